// Shared by every perflab page: the data blocks, the colour-blind-safe palette
// (Okabe-Ito) with a marker shape and a dash pattern per series (a hatching per
// bar series) so the charts also read in grey, element helpers, and the
// attributes the tests read once the page has drawn (data-rendered,
// data-series-count, data-errors, ...).
'use strict';
var PL = (function () {
  var OKABE_ITO = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#F0E442'];
  var SHAPES = ['circle', 'triangle', 'rect', 'rectRot', 'star', 'crossRot', 'rectRounded', 'cross'];
  var DASHES = [[], [6, 3], [2, 3], [8, 3, 2, 3], [12, 4], [4, 2, 1, 2]];
  // Bars have no marker or dash: each series' fill gets its own hatching instead.
  var HATCHES = ['solid', 'diagonal', 'dots', 'horizontal', 'crosshatch', 'vertical', 'antidiagonal', 'grid'];
  var seriesCount = 0;
  var markersCut = 0;
  var legendsCut = 0;
  var charts = [];

  function data(id) {
    var el = document.getElementById(id);
    if (!el) return null;
    return JSON.parse(el.textContent);
  }
  function style(i) {
    return { color: OKABE_ITO[i % OKABE_ITO.length], shape: SHAPES[i % SHAPES.length], dash: DASHES[i % DASHES.length] };
  }
  // el('div', {class: 'x'}, [children or text])
  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) {
      if (k === 'text') e.textContent = attrs[k]; else e.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) {
      if (c === null || c === undefined) return;
      e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    });
    return e;
  }
  function fmt(x, digits) {
    if (x === null || x === undefined || !isFinite(x)) return '\u2013';
    return Number(x).toFixed(digits === undefined ? 2 : digits);
  }
  // "1 hand-in", "2 hand-ins": a count with its noun.
  function count(n, noun) { return n + ' ' + noun + (n === 1 ? '' : 's'); }
  // The i-th hatching over `color`, in black or white, whichever stands out from it;
  // `pattern` names it (the chart's canvas lists the names, for the tests).
  function hatch(color, i) {
    var name = HATCHES[i % HATCHES.length];
    var size = 10, tile = document.createElement('canvas');
    tile.width = tile.height = size;
    var g = tile.getContext('2d');
    g.fillStyle = color;
    g.fillRect(0, 0, size, size);
    var rgb = [1, 3, 5].map(function (j) { return parseInt(color.length === 4 ? color.charAt((j + 1) / 2).repeat(2) : color.substr(j, 2), 16); });
    var ink = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] < 110 ? '#fff' : '#000';
    g.strokeStyle = g.fillStyle = ink;
    g.lineWidth = 1.6;
    var line = function (x0, y0, x1, y1) { g.beginPath(); g.moveTo(x0, y0); g.lineTo(x1, y1); g.stroke(); };
    var half = size / 2;
    if (name === 'diagonal' || name === 'crosshatch') { line(0, size, size, 0); line(-half, half, half, -half); line(half, size + half, size + half, half); }
    if (name === 'antidiagonal' || name === 'crosshatch') { line(0, 0, size, size); line(-half, half, half, size + half); line(half, -half, size + half, half); }
    if (name === 'horizontal' || name === 'grid') line(0, half, size, half);
    if (name === 'vertical' || name === 'grid') line(half, 0, half, size);
    if (name === 'dots') { g.beginPath(); g.arc(half, half, 1.8, 0, 2 * Math.PI); g.fill(); }
    return { fill: g.createPattern(tile, 'repeat'), pattern: name };
  }
  // How many point markers the chart cuts at its clipping edge: Chart.js clips a
  // dataset at an axis given a min or max, so a point on that value loses half its
  // marker. The clip is the one Chart.js drew with (meta._clip, as its draw() reads it).
  function cutMarkers(c) {
    var a = c.chartArea, cut = 0;
    c.data.datasets.forEach(function (d, i) {
      var meta = c.getDatasetMeta(i), clip = meta._clip;
      var edge = function (side, area, outward, whole) {
        return clip.disabled || clip[side] === false ? whole : area + outward * clip[side];
      };
      var left = edge('left', a.left, -1, 0), right = edge('right', a.right, 1, c.width);
      var top = edge('top', a.top, -1, 0), bottom = edge('bottom', a.bottom, 1, c.height);
      meta.data.forEach(function (p) {
        var r = p.options && p.options.radius ? p.options.radius + (p.options.borderWidth || 0) / 2 : 0;
        if (!r || p.skip) return;
        if (p.x - r < left || p.x + r > right || p.y - r < top || p.y + r > bottom) cut++;
      });
    });
    return cut;
  }
  // The legend's entries, each cut to fit one line of the chart: Chart.js draws an
  // entry wider than the chart past its edge, losing its end (where "not converged"
  // is) and its marker. A dataset whose label starts with a variant's name says so
  // (legendName): the name is cut, so the figures after it stay; any other label
  // loses its end. The canvas's label keeps every entry whole.
  function fittedLegend(c) {
    var items = Chart.defaults.plugins.legend.labels.generateLabels(c);
    var labels = c.options.plugins.legend.labels;
    var font = Chart.helpers.toFont(labels.font);
    var box = labels.usePointStyle ? Math.min(labels.boxWidth, font.size) : labels.boxWidth;
    var room = c.width - 2 * labels.padding - box - font.size / 2 - 2;
    c.ctx.save();
    c.ctx.font = font.string;
    items.forEach(function (item) {
      var whole = item.text, set = c.data.datasets[item.datasetIndex], name = set && set.legendName;
      var head = name && whole.indexOf(name) === 0 ? name : whole, tail = whole.slice(head.length);
      for (var keep = head.length; keep > 1 && c.ctx.measureText(item.text).width > room; keep--)
        item.text = head.slice(0, keep - 1) + '\u2026' + tail;
    });
    c.ctx.restore();
    return items;
  }
  // How many legend entries run past the chart's edge.
  function cutLegend(c) {
    return (c.legend && c.legend.legendHitBoxes || []).filter(function (h) { return h.left < 0 || h.left + h.width > c.width; }).length;
  }
  // A Chart.js chart in a fixed-height box; animation off so the page is drawn
  // by the time the load event fires (the tests and the screenshots rely on it).
  function chart(parent, title, config, series) {
    var box = el('div', { class: 'chart' });
    var canvas = el('canvas', { role: 'img', 'aria-label': title });
    box.appendChild(canvas);
    parent.appendChild(box);
    config.options = config.options || {};
    config.options.animation = false;
    config.options.responsive = true;
    config.options.maintainAspectRatio = false;
    config.options.plugins = config.options.plugins || {};
    config.options.plugins.title = { display: true, text: title, font: { size: 14 } };
    config.options.plugins.legend = Object.assign({ position: 'bottom' }, config.options.plugins.legend || {});
    config.options.plugins.legend.labels = Object.assign({ usePointStyle: true, boxWidth: 30, font: { size: 12 },
                                                          generateLabels: fittedLegend },
                                                         config.options.plugins.legend.labels || {});
    // A series drawn without markers (a curve) is a line in the legend, not the filled
    // dot Chart.js shows for it by default, which reads as a point of the chart.
    config.data.datasets.forEach(function (d) { if (d.pointRadius === 0 && !d.pointStyle) d.pointStyle = 'line'; });
    var c = new Chart(canvas.getContext('2d'), config);
    // The legend is drawn on the canvas: a screen reader (and a test) gets it from the label.
    canvas.setAttribute('aria-label', title + ': ' + config.data.datasets.map(function (d) { return d.label; }).join('; '));
    canvas.setAttribute('data-series', String(series));
    var cut = cutMarkers(c);
    canvas.setAttribute('data-cut-markers', String(cut));
    var cutEntries = cutLegend(c);
    canvas.setAttribute('data-cut-legend', String(cutEntries));
    if (c.legend) canvas.setAttribute('data-legend-markers', c.legend.legendItems.map(function (i) { return i.pointStyle; }).join(' '));
    if (c.scales.y && c.scales.y.options.max !== undefined) canvas.setAttribute('data-y-max', String(c.scales.y.max));
    var patterns = config.data.datasets.map(function (d) { return d.pattern || ''; });
    if (patterns.some(function (p) { return p; })) canvas.setAttribute('data-patterns', patterns.join(' '));
    seriesCount += series;
    markersCut += cut;
    legendsCut += cutEntries;
    charts.push(c);
    return c;
  }
  // A bar chart of `series` [{label, color, data, outline}] over `labels`: each series
  // filled with its own hatching, and the legend showing the fills, not point markers.
  function bars(parent, title, labels, series, yTitle, options) {
    var sets = series.map(function (s, i) {
      var h = hatch(s.color, i);
      return { label: s.label, data: s.data, backgroundColor: h.fill, pattern: h.pattern, borderColor: '#000',
               borderWidth: s.outline || 1 };
    });
    options = Object.assign({ scales: { y: { beginAtZero: true, title: { display: true, text: yTitle } } } }, options || {});
    options.plugins = Object.assign({ legend: { labels: { usePointStyle: false } } }, options.plugins || {});
    return chart(parent, title, { type: 'bar', data: { labels: labels, datasets: sets }, options: options }, sets.length);
  }
  // Non-blank pixels over all canvases: a chart that drew nothing leaves none.
  function ink() {
    var total = 0;
    document.querySelectorAll('canvas').forEach(function (cv) {
      try {
        var d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
        for (var i = 3; i < d.length; i += 16) if (d[i] > 0) total++;
      } catch (e) { window.perflabErrors.push('ink: ' + e); }
    });
    return total;
  }
  function finish(extra) {
    var b = document.body;
    b.setAttribute('data-series-count', String(seriesCount));
    b.setAttribute('data-charts', String(charts.length));
    b.setAttribute('data-cut-markers', String(markersCut));
    b.setAttribute('data-cut-legend', String(legendsCut));
    Object.keys(extra || {}).forEach(function (k) { b.setAttribute(k, String(extra[k])); });
    b.setAttribute('data-ink', String(ink()));
    var resources = performance.getEntriesByType('resource').map(function (r) { return r.name; });
    b.setAttribute('data-resources', String(resources.length + window.perflabBlocked.length));
    b.setAttribute('data-errors', String(window.perflabErrors.length));
    if (window.perflabErrors.length) b.setAttribute('data-error-text', window.perflabErrors.join(' | '));
    b.setAttribute('data-rendered', 'true');
  }
  // Wraps a view so that an exception still leaves the page marked, with the error.
  function run(view) {
    try { view(); } catch (e) { window.perflabErrors.push(String(e && e.stack || e)); }
    finish(window.perflabExtra);
  }
  // A table whose headers sort it (numbers as numbers) and an optional search box.
  function sortable(table) {
    var heads = table.querySelectorAll('th');
    heads.forEach(function (th, col) {
      th.classList.add('sortable');
      th.addEventListener('click', function () {
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var dir = th.getAttribute('data-dir') === 'asc' ? -1 : 1;
        heads.forEach(function (h) { h.removeAttribute('data-dir'); });
        th.setAttribute('data-dir', dir === 1 ? 'asc' : 'desc');
        rows.sort(function (a, b) {
          var x = a.cells[col].getAttribute('data-sort') || a.cells[col].textContent;
          var y = b.cells[col].getAttribute('data-sort') || b.cells[col].textContent;
          var nx = parseFloat(x), ny = parseFloat(y);
          if (!isNaN(nx) && !isNaN(ny)) return dir * (nx - ny);
          return dir * x.localeCompare(y);
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  }
  function searchable(input, table) {
    input.addEventListener('input', function () {
      var q = input.value.toLowerCase();
      Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
        r.style.display = r.textContent.toLowerCase().indexOf(q) >= 0 ? '' : 'none';
      });
    });
  }
  function table(headers, rows, numeric) {
    var thead = el('thead', null, [el('tr', null, headers.map(function (h, i) {
      return el('th', { class: numeric && numeric[i] ? 'num' : '', text: h });
    }))]);
    var tbody = el('tbody', null, rows);
    return el('table', null, [thead, tbody]);
  }
  return { data: data, style: style, el: el, fmt: fmt, count: count, chart: chart, bars: bars, run: run, sortable: sortable,
           searchable: searchable, table: table, OKABE_ITO: OKABE_ITO };
})();
