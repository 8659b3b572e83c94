// The grader's batch page (OUT/report.html), drawn only from the embedded
// perflab-batch block: results.jsonl's records in grading order and the
// baselines measured along the way.
PL.run(function () {
  var el = PL.el, fmt = PL.fmt;
  var data = PL.data('perflab-batch');
  var page = document.getElementById('page');
  page.textContent = '';
  var recs = data.records;
  page.appendChild(el('h1', { text: 'perflab batch: ' + PL.count(recs.length, 'hand-in') + ' graded' }));
  // How the batch was baselined, from what OUT holds: measured baselines (with
  // --recalibrate-every), else a record naming the --baseline file it used, else
  // (the default) each run timed the oracle beside its own kernels.
  var fixedBaseline = data.baselines.length ? null : recs.map(function (r) { return r.baseline; }).filter(function (b) { return b; })[0];
  var baselineText = data.baselines.length ? PL.count(data.baselines.length, 'baseline measurement')
    : fixedBaseline ? 'a fixed baseline, ' + fixedBaseline
    : recs.length ? 'each run timed the naive oracle in turns with its own kernels' : 'nothing graded yet';
  // Which speedup gave the points: the policy's basis (docs/grader.md, "Grade basis").
  var basisText = data.basis === 'model' ? 'points from the model machine\'s speedups (the same code gets the same points anywhere)'
    : 'points from the timed speedups';
  page.appendChild(el('p', { class: 'sub', text: 'Policy: ' + data.policy + ' \u00b7 ' + basisText + ' \u00b7 ' + baselineText }));

  // Outliers: speedups beyond Tukey's fences (1.5 IQR past the quartiles) among
  // the hand-ins that passed - worth a look for a measurement gone wrong or a trick.
  function quantile(xs, q) { var i = (xs.length - 1) * q, lo = Math.floor(i), hi = Math.ceil(i); return xs[lo] + (xs[hi] - xs[lo]) * (i - lo); }
  var outlier = {};
  ['rotate', 'smooth'].forEach(function (k) {
    // A failed hand-in keeps the speedup of its kernel that passed, but its grade is not a
    // measurement to compare: it neither moves the quartiles nor is flagged.
    var passed = recs.filter(function (r) { return r.status === 'ok' && r[k + '_speedup'] !== null; });
    var xs = passed.map(function (r) { return r[k + '_speedup']; }).sort(function (a, b) { return a - b; });
    if (xs.length < 4) return;
    var q1 = quantile(xs, 0.25), q3 = quantile(xs, 0.75), iqr = q3 - q1;
    passed.forEach(function (r) {
      var s = r[k + '_speedup'];
      if (s < q1 - 1.5 * iqr || s > q3 + 1.5 * iqr) (outlier[r.id] = outlier[r.id] || []).push(k + ' ' + fmt(s) + '\u00d7');
    });
  });

  // Status counts with their reasons.
  var statuses = {};
  recs.forEach(function (r) { (statuses[r.status] = statuses[r.status] || []).push(r); });
  var names = Object.keys(statuses).sort(function (a, b) { return statuses[b].length - statuses[a].length; });
  var kpis = el('div', { class: 'kpis' });
  names.forEach(function (s) {
    kpis.appendChild(el('div', { class: 'kpi', 'data-status': s }, [el('b', { text: String(statuses[s].length) }),
      el('span', { class: s === 'ok' ? 'good' : 'bad', text: s })]));
  });
  page.appendChild(kpis);

  // The table.
  page.appendChild(el('h2', { text: 'Hand-ins' }));
  var search = el('input', { type: 'search', placeholder: 'Search ID, status, reason\u2026', 'aria-label': 'search' });
  page.appendChild(search);
  var rows = recs.map(function (r, order) {
    var flag = outlier[r.id] ? el('span', { class: 'flag warn', title: 'outlier: ' + outlier[r.id].join(', '), text: ' \u2691' }) : null;
    return el('tr', { 'data-id': r.id, 'data-status': r.status }, [
      el('td', { class: 'num', text: String(order + 1) }),
      el('td', null, [el('a', { href: 'feedback/' + encodeURIComponent(r.id) + '.html', text: r.id }), flag]),
      el('td', null, [el('span', { class: 'badge ' + (r.status === 'ok' ? 'good' : 'bad'), text: r.status })]),
      el('td', { class: 'num', text: fmt(r.rotate_speedup) }), el('td', { class: 'num', text: fmt(r.smooth_speedup) }),
      el('td', { class: 'num', text: fmt(r.rotate_points, 1) }), el('td', { class: 'num', text: fmt(r.smooth_points, 1) }),
      el('td', { class: 'num', text: fmt(r.total, 1) }), el('td', { text: r.reason })]);
  });
  var t = PL.table(['#', 'ID', 'Status', 'Rotate speedup', 'Smooth speedup', 'Rotate pts', 'Smooth pts', 'Total', 'Reason'], rows,
                   [true, false, false, true, true, true, true, true, false]);
  t.id = 'handins';
  PL.sortable(t);
  PL.searchable(search, t);
  page.appendChild(t);

  var grid = el('div', { class: 'grid' });
  page.appendChild(grid);
  var c1 = el('div', { class: 'card' });
  grid.appendChild(c1);
  PL.chart(c1, 'Hand-ins by status', {
    type: 'bar', data: { labels: names, datasets: [{ label: 'hand-ins', data: names.map(function (s) { return statuses[s].length; }),
      backgroundColor: names.map(function (s) { return s === 'ok' ? '#009E73' : '#D55E00'; }), borderColor: '#000', borderWidth: 1 }] },
    options: { indexAxis: 'y', plugins: { legend: { display: false } }, scales: { x: { beginAtZero: true, ticks: { precision: 0 } } } }
  }, 1);
  var reasons = el('div', null);
  names.filter(function (s) { return s !== 'ok'; }).forEach(function (s) {
    var byReason = {};
    statuses[s].forEach(function (r) { var k = r.reason.split('\n')[0]; byReason[k] = (byReason[k] || 0) + 1; });
    reasons.appendChild(el('h3', null, [el('span', { class: 'badge bad', text: s })]));
    reasons.appendChild(el('ul', null, Object.keys(byReason).map(function (k) { return el('li', { text: byReason[k] + ' \u00d7 ' + k }); })));
  });
  c1.appendChild(reasons);

  // Points histogram per kernel.
  var c2 = el('div', { class: 'card' });
  grid.appendChild(c2);
  // One scale of points for both kernels, so a band's label is true of both when
  // the policy gives them different maxima.
  var bins = 10, labels = [];
  var maxp = Math.max(data.max_points.rotate, data.max_points.smooth);
  var digits = Number.isInteger(maxp / bins) ? 0 : 1;
  for (var i = 0; i < bins; i++) labels.push(fmt(maxp * i / bins, digits) + '\u2013' + fmt(maxp * (i + 1) / bins, digits));
  var hist = ['rotate', 'smooth'].map(function (k, j) {
    var counts = labels.map(function () { return 0; });
    recs.forEach(function (r) {
      var p = r[k + '_points'];
      counts[Math.min(bins - 1, Math.floor(p * bins / maxp))]++;
    });
    return { label: k, data: counts, color: PL.style(j).color };
  });
  PL.bars(c2, 'Points per kernel (hand-ins per band)', labels, hist, 'hand-ins',
          { scales: { y: { beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: 'hand-ins' } },
                      x: { title: { display: true, text: 'points' } } } });

  // The oracle's baseline over the batch: how far each measurement moved from the first.
  var c3 = el('div', { class: 'card', id: 'baselines' });
  grid.appendChild(c3);
  if (data.baselines.length) {
    var first = data.baselines[0];
    var series = [];
    ['rotate', 'smooth'].forEach(function (k) {
      Object.keys(first[k]).sort(function (a, b) { return a - b; }).forEach(function (dim) {
        var s = PL.style(series.length);
        series.push({ label: k + ' ' + dim, borderColor: s.color, backgroundColor: s.color, borderDash: s.dash, pointStyle: s.shape,
                      pointRadius: 5, data: data.baselines.map(function (b, i) {
                        return { x: i, y: b[k][dim] !== undefined ? 100 * (b[k][dim] / first[k][dim] - 1) : null, cpe: b[k][dim] }; }) });
      });
    });
    PL.chart(c3, 'The naive baseline over the batch, in time order (change from the first, %)', {
      type: 'line', data: { labels: data.baselines.map(function (b) { return 'after ' + b.after_handins; }), datasets: series },
      options: { parsing: false, scales: {
        x: { type: 'linear', ticks: { stepSize: 1, callback: function (v) { var b = data.baselines[v]; return b ? '#' + (v + 1) + ' (+' + b.after_handins + ')' : ''; } },
             title: { display: true, text: 'measurement (hand-ins graded by that process so far)' } },
        y: { title: { display: true, text: '% from the first' } } },
        plugins: { tooltip: { callbacks: { label: function (c) { return c.dataset.label + ': CPE ' + fmt(c.raw.cpe) + ' (' + fmt(c.raw.y, 1) + '%)'; } } } } }
    }, series.length);
    c3.appendChild(el('p', { class: 'muted', text: 'Each point is one measurement of the naive oracle (baselines/' +
      data.baselines[data.baselines.length - 1].file + ' is the latest). Drift shows as a trend, noise as scatter between neighbours.' }));
  } else {
    c3.appendChild(el('h3', { text: 'Baseline' }));
    c3.appendChild(el('p', { text: fixedBaseline ? 'Every hand-in was scored against the fixed baseline ' + fixedBaseline + '.'
      : recs.length ? 'No batch baseline to drift: each hand-in\u2019s run timed the naive oracle in turns with its own kernels and ' +
                      'took the median of the per-round ratios (the default; --recalibrate-every measures one for the batch).'
      : 'Nothing graded yet.' }));
  }

  // Outliers.
  var c4 = el('div', { class: 'card', id: 'outliers' });
  grid.appendChild(c4);
  c4.appendChild(el('h3', { text: 'Outliers (speedup beyond 1.5 IQR of the quartiles of the hand-ins graded ok)' }));
  var ids = Object.keys(outlier);
  var okCount = statuses.ok ? statuses.ok.length : 0;
  c4.appendChild(ids.length ? el('ul', null, ids.map(function (id) { return el('li', { text: '\u2691 ' + id + ': ' + outlier[id].join(', ') }); }))
                            : el('p', { class: 'muted', text: 'None' + (okCount < 4 ? ' (too few hand-ins graded ok to tell: ' + okCount + ')' : '') + '.' }));

  window.perflabExtra = { 'data-handins': recs.length, 'data-outliers': ids.length,
                          'data-points-bands': JSON.stringify({ labels: labels, rotate: hist[0].data, smooth: hist[1].data }) };
});
