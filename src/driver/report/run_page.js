// The page of one driver run (./driver --html, and the grader's feedback/ID.html):
// drawn only from the JSON blocks the page embeds.
PL.run(function () {
  var el = PL.el, fmt = PL.fmt;
  var report = PL.data('perflab-report');
  var explain = PL.data('perflab-explain');
  var compare = PL.data('perflab-compare');
  var grader = PL.data('perflab-grader');
  var page = document.getElementById('page');
  page.textContent = '';
  var variantSeries = 0;
  var log2 = function (d) { return Math.log(d) / Math.LN2; };
  // Legends keep one line per series; the tables below carry the full names.
  var short = function (name) { return name.length > 48 ? name.slice(0, 46) + '\u2026' : name; };
  // The driver already names an unregistered graded function "rotate() function (graded; not registered)".
  var graded = function (v) { return v.graded && !/\(graded/.test(v.name) ? ' (graded)' : ''; };
  // A log2 dim axis whose ticks are exactly the dims measured.
  function dimAxis(dims, pad) {
    return { type: 'linear', title: { display: true, text: 'dim (log scale)' },
             min: log2(Math.min.apply(null, dims)) - pad, max: log2(Math.max.apply(null, dims)) + pad,
             afterBuildTicks: function (axis) { axis.ticks = dims.map(function (d) { return { value: log2(d) }; }); },
             ticks: { callback: function (v) { return String(Math.round(Math.pow(2, v))); } } };
  }

  // What "not converged" means depends on how the run was timed (results.hpp): one
  // short sentence, the cause, the remedy, as the text report says it.
  var unsure = !report ? '' : report.config.baseline === 'measured'
    ? 'the rounds beside the oracle still disagreed by more than ' + fmt(100 * report.config.ratio_tolerance, 1) +
      '% when sampling stopped (or the kernel was too quick to tell from its call); rerun when the machine is quieter'
    : 'the fastest samples never agreed within ' + fmt(100 * report.config.epsilon, 1) +
      '% (or the kernel was too quick to tell from its call); rerun when the machine is quieter';

  var title = report && report.team ? 'perflab: team ' + report.team.team : 'perflab report';
  if (grader) title = 'perflab feedback: ' + grader.id;
  page.appendChild(el('h1', { text: title }));
  if (report) {
    var names = report.team ? [report.team.name1, report.team.name2].filter(function (n) { return n; }).join(', ') : '';
    page.appendChild(el('p', { class: 'sub', text: (names ? names + ' \u00b7 ' : '') + report.driver + ' \u00b7 ' +
                                               report.machine.cpu_model }));
  }

  // The machine as shared with others, in one plain line each, above everything else
  // (older reports have no machine_load).
  var load = report && report.machine_load;
  if (load && load.busy) page.appendChild(el('div', { class: 'notice', 'data-busy': '', text: load.busy }));
  if (load && load.cpu_choice) page.appendChild(el('p', { class: 'muted', 'data-cpu-choice': '', text: load.cpu_choice }));

  if (grader) {
    var ok = grader.status === 'ok';
    var g = el('div', { class: 'card' + (ok ? '' : ' failed'), id: 'grader' }, [
      el('h3', null, ['Grade: ', el('span', { class: 'badge ' + (ok ? 'good' : 'bad'), text: grader.status }),
                      ' ', fmt(grader.total, 1) + ' points (rotate ' + fmt(grader.rotate_points, 1) + ', smooth ' +
                      fmt(grader.smooth_points, 1) + ')']),
      el('p', { text: grader.reason }),
      report ? el('p', { class: 'muted', text: grader.trials > 1
        ? 'The charts show the last of ' + grader.trials + ' timed runs; the grade uses the median speedup over all of them.'
        : 'The charts show the timed run the grade is from.' }) : null,
      // The grader's text feedback: its verdict and the driver's output, or the build's log.
      // Open when there is nothing else to show: a build's errors are the whole story.
      grader.feedback ? el('details', report ? null : { open: '' }, [el('summary', { text: 'The text feedback (feedback/' + grader.id + '.txt)' }),
                                             el('pre', { text: grader.feedback })]) : null]);
    page.appendChild(g);
  }
  if (!report) return;

  // Headline figures.
  var kpis = el('div', { class: 'kpis' });
  // Under a grade from several trials the points here are the charted run's, not the grade's.
  var ofRun = grader && grader.trials > 1 ? ' in the run charted below (the grade above is the median of ' + grader.trials + ' runs)' : '';
  if (report.total_points !== null)
    kpis.appendChild(el('div', { class: 'kpi', 'data-kpi': 'total' }, [el('b', { text: fmt(report.total_points, 1) }),
      el('span', { text: 'points in total' + ofRun })]));
  // The points are the graded function's and the best speedup may be another
  // variant's: each figure names its own, so neither reads as the other's.
  Object.keys(report.kernels).forEach(function (name) {
    var k = report.kernels[name];
    var best = k.best ? k.variants.filter(function (v) { return v.name === k.best.name; })[0] : null;
    kpis.appendChild(el('div', { class: 'kpi', 'data-kpi': name + '-best' }, [
      el('b', { text: k.best ? fmt(k.best.mean_speedup, 2) + '\u00d7' + (best && !best.converged ? ' *' : '') : '\u2013' }),
      el('span', { text: name + ' best speedup' + (k.best ? ', ' + short(k.best.name) : '') +
                         (best && !best.converged ? ' (not converged)' : '') })]));
    if (k.points !== null)
      kpis.appendChild(el('div', { class: 'kpi', 'data-kpi': name + '-points' }, [
        el('b', { text: fmt(k.points, 1) + '/' + k.max_points }),
        el('span', { text: name + ' points, for ' + short(k.points_from) + ofRun })]));
  });
  page.appendChild(kpis);
  // Which speedup the points are for, when the model machine ran beside the timing.
  if (report.model) {
    var byModel = report.basis === 'model';
    var modelled = [];
    Object.keys(report.kernels).forEach(function (name) {
      report.kernels[name].variants.forEach(function (v) {
        if (v.graded) modelled.push(name + ' ' + (v.model_mean_speedup !== null ? fmt(v.model_mean_speedup, 2) + '\u00d7' : 'none') +
                                 (v.model_points !== null ? ' (' + fmt(v.model_points, 1) + ' pts)' : ''));
      });
    });
    page.appendChild(el('p', { class: 'notice', 'data-basis': report.basis, text:
      (byModel ? 'The grade is the model machine\'s: the points are for the speedups on the machine model of the policy ' +
                 '(docs/model.md), the same on every run; the timed figures are shown beside them. '
               : 'The grade is the timed speedup\'s; the model machine\'s figures are shown beside it. ') +
      'Model speedup of the graded functions: ' + modelled.join(', ') + '.' }));
  }
  [report.clock_notice, report.counters_unavailable, report.simulation_unavailable].forEach(function (n) {
    if (n) page.appendChild(el('div', { class: 'notice', text: n }));
  });

  if (compare) drawComparison(compare);

  var findingsByKernel = {};
  var general = [];
  if (explain) explain.findings.forEach(function (f) {
    if (f.kernel) (findingsByKernel[f.kernel] = findingsByKernel[f.kernel] || []).push(f); else general.push(f);
  });
  // Problems first; what was checked and is fine in one line each, so the
  // findings that need a look sit beside the charts they are about.
  var rank = { problem: 0, warning: 1, info: 2, ok: 3 };
  var byRank = function (a, b) { return rank[a.severity] - rank[b.severity]; };
  general.sort(byRank);
  Object.keys(findingsByKernel).forEach(function (k) { findingsByKernel[k].sort(byRank); });
  // The answer first; the machine's caveats after the kernels' problems.
  if (explain && explain.summary && explain.summary.length) {
    page.appendChild(el('h2', { text: 'Summary' }));
    page.appendChild(el('ul', { class: 'summary' }, explain.summary.map(function (l) {
      return el('li', { 'data-finding': l.id }, [el('b', { text: (l.kernel || 'build') + ': ' }), l.title,
        l.fix ? el('div', { text: 'Fix: ' + l.fix }) : null]); })));
  }
  var caveats = general.filter(function (f) { return f.id === 'measurement-quality' && f.severity !== 'ok'; });
  general = general.filter(function (f) { return caveats.indexOf(f) < 0; });
  if (explain && general.length) {
    page.appendChild(el('h2', { text: 'Diagnosis' }));
    var gg = el('div', { class: 'grid' });
    general.filter(function (f) { return f.severity !== 'ok'; }).forEach(function (f) { gg.appendChild(finding(f)); });
    page.appendChild(gg);
    var fine = general.filter(function (f) { return f.severity === 'ok'; });
    if (fine.length)
      page.appendChild(el('ul', { class: 'muted' }, fine.map(function (f) {
        return el('li', { 'data-finding': f.id }, [el('span', { class: 'badge good', text: 'ok' }), ' ' + f.title]); })));
  }

  Object.keys(report.kernels).forEach(function (name) { drawKernel(name, report.kernels[name]); });
  if (caveats.length) {
    page.appendChild(el('h2', { text: 'Caveats about this run' }));
    var cg = el('div', { class: 'grid' });
    caveats.forEach(function (f) { cg.appendChild(finding(f)); });
    page.appendChild(cg);
  }
  drawMachine();
  window.perflabExtra = { 'data-variant-series': variantSeries };

  function finding(f) {
    var dl = el('dl');
    Object.keys(f.evidence || {}).forEach(function (k) {
      var v = f.evidence[k];
      dl.appendChild(el('dt', { text: k }));
      dl.appendChild(el('dd', { text: typeof v === 'number' ? String(Math.round(v * 1000) / 1000) : String(v) }));
    });
    return el('div', { class: 'card finding ' + f.severity, 'data-finding': f.id }, [
      el('h3', null, [el('span', { class: 'badge', text: f.severity }), ' ', f.title]),
      f.variant ? el('p', { class: 'muted', text: f.variant }) : null, dl,
      f.meaning ? el('p', null, [el('b', { text: 'What it means: ' }), f.meaning]) : null,
      f.advice ? el('p', null, [el('b', { text: 'What to try: ' }), f.advice]) : null]);
  }

  function drawComparison(c) {
    var sec = el('section', { id: 'compare' });
    sec.appendChild(el('h2', { text: 'Compared with ' + c.old }));
    // What the verdicts were judged on is the driver's sentence (compare.cpp); the rest
    // speaks of the oracle only where some row was judged in its units.
    var inOracleUnits = c.rows.some(function (r) { return r.against_oracle; });
    var asMeasured = c.rows.some(function (r) { return !r.against_oracle; });
    sec.appendChild(el('p', { class: 'sub', text: !c.rows.length ? 'No verdict, ' + c.judged + '.'
      : 'The change in each CPE, and a rank test on both runs\u2019 samples, ' + c.judged + '.' +
        (inOracleUnits ? ' Relative to the oracle a machine slower during one run is not called a change.' : '') +
        (asMeasured ? ' As measured, a machine slower during one run can show as a change.' : '') +
        ' \u201cResolves\u201d is the least change the test finds 4 times in 5 at that row\u2019s noise (5% level, at least 3%).' }));
    if (c.remedy) sec.appendChild(el('p', { class: 'notice', text: c.remedy }));
    var glyph = { faster: '\u25bc faster', slower: '\u25b2 slower', 'within noise': '= within noise' };
    var cls = { faster: 'good', slower: 'bad', 'within noise': 'muted' };
    var rows = c.rows.map(function (r) {
      return el('tr', { 'data-verdict': r.verdict, 'data-variant': r.variant, 'data-dim': String(r.dim) }, [
        el('td', { text: r.kernel }), el('td', { text: r.variant }), el('td', { class: 'num', text: String(r.dim) }),
        el('td', { class: 'num', text: fmt(r.old_cpe) }), el('td', { class: 'num', text: fmt(r.new_cpe) }),
        el('td', { class: 'num', 'data-sort': String(r.change), text: (r.change >= 0 ? '+' : '') + fmt(100 * r.change, 1) + '%' }),
        el('td', { class: 'num', text: r.against_oracle ? (r.judged_change >= 0 ? '+' : '') + fmt(100 * r.judged_change, 1) + '%' : '\u2013' }),
        el('td', { class: 'num', text: r.band === null ? 'too few samples' : '\u00b1' + fmt(100 * r.band, 1) + '%' }),
        el('td', null, [el('span', { class: 'badge ' + cls[r.verdict], text: glyph[r.verdict] })])]);
    });
    if (rows.length) {
      var t = PL.table(['Kernel', 'Variant', 'Dim', 'Old CPE', 'New CPE', 'Change', 'vs oracle', 'Resolves', 'Verdict'], rows,
                       [false, false, true, true, true, true, true, true, false]);
      PL.sortable(t);
      sec.appendChild(t);
    }
    c.renamed.forEach(function (u) { sec.appendChild(el('p', { class: 'muted', text: 'Compared under another name: ' + u })); });
    c.unmatched.forEach(function (u) { sec.appendChild(el('p', { class: 'muted', text: 'Not compared: ' + u })); });
    page.appendChild(sec);
  }

  function drawKernel(name, k) {
    var sec = el('section', { id: 'kernel-' + name, 'data-kernel': name });
    sec.appendChild(el('h2', { text: name.charAt(0).toUpperCase() + name.slice(1) }));
    page.appendChild(sec);
    if (k.notice) sec.appendChild(el('div', { class: 'notice', text: k.notice }));
    var timed = k.variants.filter(function (v) { return v.correct && v.dims.length; });
    var failed = k.variants.filter(function (v) { return !v.correct; });
    var grid = el('div', { class: 'grid' });
    sec.appendChild(grid);

    // CPE against dim: every variant, the oracle and the memcpy.
    if (timed.length || k.speed_of_light) {
      var card = el('div', { class: 'card' });
      grid.appendChild(card);
      // Beside the measured oracle the speedup is the median of paired rounds: the chart
      // draws that round's two CPEs, which divide to it, not the fastest of each.
      var paired = timed.some(function (v) { return v.dims.some(function (d) { return d.typical_cpes; }); });
      var shown = function (d) { return paired ? (d.typical_cpes ? d.typical_cpes.cpe : null) : d.cpe; };
      var sets = timed.map(function (v, i) {
        var s = PL.style(i);
        var ds = v.dims.filter(function (d) { return shown(d) !== null; });
        return { label: short(v.name) + graded(v) + (v.converged ? '' : ' \u2013 not converged'), legendName: short(v.name),
                 data: ds.map(function (d) { return { x: log2(d.dim), y: shown(d), dim: d.dim, converged: d.converged, n: d.samples }; }),
                 borderColor: s.color, backgroundColor: s.color, borderDash: s.dash, pointStyle: s.shape,
                 pointRadius: 5, borderWidth: v.graded ? 3 : 2,
                 // A figure whose samples never agreed is drawn hollow.
                 pointBackgroundColor: ds.map(function (d) { return d.converged ? s.color : '#fff'; }) };
      });
      variantSeries += sets.length;
      if (paired) {
        var oracle = [], colors = [];
        timed.forEach(function (v, i) {
          v.dims.forEach(function (d) {
            if (!d.typical_cpes) return;
            oracle.push({ x: log2(d.dim), y: d.typical_cpes.baseline_cpe, dim: d.dim, beside: short(v.name) });
            colors.push(PL.style(i).color);
          });
        });
        sets.push({ label: 'naive oracle, in the same round', data: oracle, showLine: false, borderColor: colors,
                    backgroundColor: colors, pointStyle: 'crossRot', pointRadius: 7, borderWidth: 2 });
      } else if (k.baseline_cpes.length)
        sets.push({ label: 'naive oracle (baseline)', data: k.dims.map(function (d, i) { return { x: log2(d), y: k.baseline_cpes[i], dim: d }; }),
                    borderColor: '#000', backgroundColor: '#000', borderDash: [10, 4], pointStyle: 'crossRot', pointRadius: 6, borderWidth: 2 });
      if (k.speed_of_light)
        sets.push({ label: 'memcpy (speed of light, fastest)', data: k.speed_of_light.dims.map(function (d) { return { x: log2(d.dim), y: d.cpe, dim: d.dim, converged: d.converged }; }),
                    borderColor: '#777', backgroundColor: '#777', borderDash: [2, 2], pointStyle: 'line', pointRadius: 7, borderWidth: 2 });
      PL.chart(card, 'CPE (cycles per pixel) against dim' + (paired ? ', the round the speedup stands for' : '') +
                     ', log axes \u2013 lower is faster', {
        type: 'line', data: { datasets: sets },
        options: { parsing: false, scales: {
          x: dimAxis(k.dims, 0.25),
          y: { type: 'logarithmic', title: { display: true, text: 'CPE' } } },
          plugins: { tooltip: { callbacks: { label: function (c) {
            var p = c.raw; return c.dataset.label + (p.beside ? ' beside ' + p.beside : '') + ': dim ' + p.dim + ', CPE ' + fmt(p.y) +
              (p.converged === false ? ' (not converged)' : '') + (p.n ? ', ' + PL.count(p.n, 'sample') : ''); } } } } }
      }, sets.length);
      card.appendChild(el('p', { class: 'muted', text: (paired
        ? 'Lines: each variant\u2019s CPE in the middle round of those timed in turns with the oracle; \u00d7: the oracle\u2019s ' +
          'in that round. Their ratio is the speedup; the fastest samples are in the strip chart. '
        : 'The oracle\u2019s CPEs over a variant\u2019s are its speedup. ') + 'Hollow markers: ' + unsure + '.' }));
    }

    // Speedup against the scoring curve.
    if (k.curve && k.curve.length) {
      var card2 = el('div', { class: 'card' });
      grid.appendChild(card2);
      // A function only --explain timed (an unregistered candidate) earns nothing in a
      // normal run or from the grader: no points are drawn for it.
      var em0 = explain && explain.measurements ? explain.measurements[name] : null;
      var explainOnly = em0 ? em0.variants.filter(function (v) { return v.registered === false && !v.graded; })
                                          .map(function (v) { return v.name; }) : [];
      // The points are for the speedup on the policy's basis: drawn at that speedup.
      var basisSpeedup = function (v) { return report.basis === 'model' ? v.model_mean_speedup : v.mean_speedup; };
      var scored = timed.filter(function (v) { return basisSpeedup(v) !== null && v.points !== null && explainOnly.indexOf(v.name) < 0; });
      var maxX = Math.max(k.curve[k.curve.length - 1][0] * 1.15,
                          Math.max.apply(null, [0].concat(scored.map(function (v) { return basisSpeedup(v) * 1.1; }))));
      var curve = [{ x: 0, y: k.curve[0][1] }].concat(k.curve.map(function (p) { return { x: p[0], y: p[1] }; }))
                  .concat([{ x: maxX, y: k.curve[k.curve.length - 1][1] }]);
      var sets2 = [{ label: 'scoring curve (policy)', data: curve, type: 'line', borderColor: '#000', backgroundColor: '#000',
                     pointRadius: 0, borderWidth: 2, borderDash: [6, 3] }];
      scored.forEach(function (v, i) {
        var s = PL.style(timed.indexOf(v));
        // An unsettled mean is drawn hollow, as its CPEs are: its points may move on a rerun.
        sets2.push({ label: short(v.name) + ': ' + fmt(basisSpeedup(v)) + '\u00d7 \u2192 ' + fmt(v.points, 1) + ' pts' + graded(v) +
                            (v.converged ? '' : ' \u2013 not converged'), legendName: short(v.name),
                     data: [{ x: basisSpeedup(v), y: v.points }], type: 'scatter', borderColor: s.color, backgroundColor: s.color,
                     pointBackgroundColor: v.converged ? s.color : '#fff', borderWidth: 2,
                     pointStyle: s.shape, pointRadius: v.graded ? 9 : 7,
                     // The axes end at 0 and at full marks, where such a marker sits on the
                     // edge: drawn whole, not cut in half there.
                     clip: false });
      });
      PL.chart(card2, 'Mean speedup and the points it earns (max ' + k.max_points + ')', {
        type: 'scatter', data: { datasets: sets2 },
        options: { scales: { x: { type: 'linear', min: 0, max: maxX, title: { display: true, text: report.basis === 'model'
                                 ? 'model machine speedup over the naive oracle (the grade)' : 'mean speedup over the naive baseline' } },
                             y: { min: 0, max: k.max_points, title: { display: true, text: 'points' } } } }
      }, sets2.length);
      if (k.points !== null)
        card2.appendChild(el('p', { text: 'Scored: ' + fmt(k.points, 1) + ' of ' + k.max_points + ' points, for ' + k.points_from + '.' }));
    }

    // Each dim's speedup with its 95% interval, as the JSON gives them, marked * where
    // not converged as the text report marks the CPE.
    if (timed.length) {
      var card6 = el('div', { class: 'card', 'data-speedups': name });
      grid.appendChild(card6);
      card6.appendChild(el('h3', { text: 'Speedup per dim' + (report.config.baseline === 'measured' ? ', with its 95% interval' : '') }));
      var speedRows = timed.map(function (v) {
        return el('tr', null, [el('td', { text: v.name })].concat(v.dims.map(function (d) {
          var range = d.speedup_interval ? ' [' + fmt(d.speedup_interval[0]) + ', ' + fmt(d.speedup_interval[1]) + ']' : '';
          return el('td', { class: 'num' + (d.converged ? '' : ' warn'), 'data-dim': String(d.dim), 'data-converged': String(d.converged),
                            text: fmt(d.speedup) + '\u00d7' + range + (d.converged ? '' : ' *') });
        })));
      });
      card6.appendChild(PL.table(['Variant'].concat(k.dims.map(String)), speedRows, [false].concat(k.dims.map(function () { return true; }))));
      if (timed.some(function (v) { return v.dims.some(function (d) { return !d.converged; }); }))
        card6.appendChild(el('p', { class: 'muted', text: '* unsure: ' + unsure + '.' }));
    }

    // Every sample of every figure: the spread behind each CPE.
    if (timed.length) {
      var card3 = el('div', { class: 'card' });
      grid.appendChild(card3);
      var n = timed.length;
      var sets3 = timed.map(function (v, i) {
        var s = PL.style(i);
        var pts = [], fill = [];
        v.dims.forEach(function (d) {
          (d.sample_cpes || []).forEach(function (c) {
            pts.push({ x: log2(d.dim) + (i - (n - 1) / 2) * 0.07, y: c, dim: d.dim, converged: d.converged });
            fill.push(d.converged ? s.color : '#fff');
          });
        });
        return { label: short(v.name), data: pts, borderColor: s.color, backgroundColor: s.color, pointBackgroundColor: fill,
                 pointStyle: s.shape, pointRadius: 3.5 };
      });
      PL.chart(card3, 'Every sample (strip per variant and dim; hollow = not converged)', {
        type: 'scatter', data: { datasets: sets3 },
        options: { parsing: false, scales: {
          x: dimAxis(k.dims, 0.5),
          y: { type: 'logarithmic', title: { display: true, text: 'CPE of each sample' } } },
          plugins: { tooltip: { callbacks: { label: function (c) { return c.dataset.label + ': dim ' + c.raw.dim + ', ' + fmt(c.raw.y); } } } } }
      }, sets3.length);
      var conv = timed.map(function (v) {
        return el('tr', null, [el('td', { text: v.name })].concat(v.dims.map(function (d) {
          return el('td', { class: 'num ' + (d.converged ? '' : 'warn'), text: d.samples + (d.converged ? ' \u2713' : ' \u2717 not converged') });
        })));
      });
      card3.appendChild(PL.table(['Samples per figure'].concat(k.dims.map(String)), conv, [false].concat(k.dims.map(function () { return true; }))));
    }

    // Misses per pixel, where measured.
    var events = [];
    timed.forEach(function (v) {
      var d = v.dims[v.dims.length - 1];
      [d.simulated || {}, d.counters || {}].forEach(function (o) {
        Object.keys(o).forEach(function (e) { if (events.indexOf(e) < 0 && /miss/i.test(e)) events.push(e); });
      });
    });
    if (events.length) {
      var card4 = el('div', { class: 'card' });
      grid.appendChild(card4);
      var dim = k.dims[k.dims.length - 1];
      var naive = timed.filter(function (v) { return /naive/i.test(v.name); });
      PL.bars(card4, 'Misses per pixel at dim ' + dim + (report.simulation_geometry ? ' (simulated by cachegrind)' : ' (hardware counters)'),
              events, timed.map(function (v, i) {
        var d = v.dims[v.dims.length - 1];
        var isNaive = naive.indexOf(v) >= 0;
        var o = Object.assign({}, d.counters || {}, d.simulated || {});
        return { label: short(v.name) + (isNaive ? ' (naive)' : ''), color: PL.style(i).color, outline: isNaive ? 3 : 1,
                 data: events.map(function (e) { return o[e] === undefined ? null : o[e]; }) };
      }), 'per pixel');
      card4.appendChild(el('p', { class: 'muted', text: (naive.length ? 'Thick black outline: the naive version, for comparison. '
        : 'No variant named naive is registered here; register the naive version to see its misses beside yours. ') +
        (report.simulation_geometry ? 'Simulated cache: ' + report.simulation_geometry + '.' : '') }));
    }

    // --explain's own figures at its comparison dim: the naive oracle's beside each variant's.
    var em = explain && explain.measurements ? explain.measurements[name] : null;
    if (em && !events.length) {
      var keys = ['d1_read_misses_per_px', 'd1_write_misses_per_px', 'll_misses_per_px'];
      var labelsE = ['D1 read misses/px', 'D1 write misses/px', 'LL misses/px'];
      var whoE = [{ name: 'naive oracle', figures: em.naive.figures, color: '#000' }];
      em.variants.forEach(function (v, i) { whoE.push({ name: short(v.name), figures: v.figures, color: PL.style(i).color }); });
      if (em.reference) whoE.push({ name: 'reference: ' + em.reference.name, figures: em.reference.figures, color: '#999' });
      whoE = whoE.filter(function (w) { return keys.some(function (k) { return w.figures && w.figures[k] !== null && w.figures[k] !== undefined; }); });
      if (whoE.length) {
        var card5 = el('div', { class: 'card' });
        grid.appendChild(card5);
        PL.bars(card5, 'Misses per pixel at dim ' + em.dim + ' (' + (explain.figures_source || 'explain').split(',')[0] + ')',
                labelsE, whoE.map(function (w) {
          return { label: w.name, color: w.color, data: keys.map(function (k) { return w.figures[k]; }) };
        }), 'per pixel');
        card5.appendChild(el('p', { class: 'muted', text: 'Solid black: the naive oracle; grey: the reference kernel, where measured.' }));
      }
    }

    // Failures, each with its first bad pixel.
    failed.forEach(function (v) {
      var f = v.failure || {};
      var parts = [el('h3', null, [el('span', { class: 'badge bad', text: '\u2717 FAILED' }), ' ', v.name]),
                   el('p', { text: v.error || 'failed its check' })];
      if (f.first) {
        var sw = function (rgb) { return el('span', { class: 'swatch', style: 'background: rgb(' + rgb.join(',') + ')' }); };
        parts.push(el('p', null, ['First bad pixel at dim ' + f.dim + ': dst[' + f.first.row + '][' + f.first.col + '] is (' +
          f.first.actual.join(', ') + ') ', sw(f.first.actual), ', should be (' + f.first.expected.join(', ') + ') ', sw(f.first.expected)]));
        parts.push(el('p', { class: 'muted', text: PL.count(f.wrong_pixels, 'wrong pixel') + (f.unwritten_pixels ? ', ' + f.unwritten_pixels + ' of them never written' : '') }));
      }
      grid.appendChild(el('div', { class: 'card failed', 'data-failed': v.name }, parts));
    });

    // The diagnosis for this kernel, beside its charts.
    (findingsByKernel[name] || []).forEach(function (f) { grid.appendChild(finding(f)); });
  }

  function drawMachine() {
    var m = report.machine, c = report.config;
    var sec = el('section', { id: 'machine' });
    sec.appendChild(el('h2', { text: 'Machine and settings' }));
    var rows = [
      ['CPU', m.cpu_model + ' (' + m.logical_cpus + ' logical CPUs)'],
      ['Clock', m.clock.description + ' \u2013 ' + fmt(m.clock.frequency_hz / 1e9, 3) + ' GHz'],
      ['Pinned to', m.clock.pinned_cpu === null ? 'not pinned' : 'CPU ' + m.clock.pinned_cpu],
      ['K-best', 'K=' + c.k + ', epsilon=' + c.epsilon + ', at most ' + PL.count(c.max_samples, 'sample') +
                 (c.baseline === 'measured' ? '; beside the oracle, until the speedup\u2019s 95% interval is within \u00b1' +
                                              fmt(100 * c.ratio_tolerance, 1) + '%' : '')],
      ['Inputs', c.seed === null ? 'from a secret key drawn for the run' : 'from seed ' + c.seed],
      ['Baseline', c.baseline], ['Scoring policy', c.policy],
      ['Cache cleared before each sample', Math.round(c.cache_clear_bytes / 1024) + ' KiB']];
    m.caches.forEach(function (ca) {
      rows.push(['L' + ca.level + ' ' + ca.type, Math.round(ca.size_bytes / 1024) + ' KiB' + (ca.ways ? ', ' + ca.ways + '-way' : '') +
                 (ca.line_bytes ? ', ' + ca.line_bytes + ' B lines' : '') +
                 (!ca.shared_cpus ? '' : ca.shared_cpus === 1 ? ', private to one logical CPU'
                                                              : ', shared by ' + ca.shared_cpus + ' logical CPUs') + ' (' + ca.source + (ca.plausible ? '' : '; implausible, ignored') + ')']);
    });
    sec.appendChild(PL.table(['', ''], rows.map(function (r) { return el('tr', null, [el('th', { text: r[0] }), el('td', { text: r[1] })]); })));
    page.appendChild(sec);
  }
});
