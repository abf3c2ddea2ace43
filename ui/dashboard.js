// The dashboard's script: plain browser JavaScript, no build step. The page without it is the
// server-rendered table of recent requests; with it, the table is live (EventSource on /ui/events)
// and the charts, routes, backends and config come from /ui/api/overview.
'use strict';

const MAX_ROWS = 200;
const SVG = 'http://www.w3.org/2000/svg';
const $ = (id) => document.getElementById(id);

function el(tag, attributes, ...children) {
  const node = tag.startsWith('svg:') ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

const usd = (value) => (value === null || value === undefined ? 'n/a' : value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(value === 0 ? 0 : 6)}`);
const statusClass = (status) => (status >= 500 ? 'status-bad' : status >= 400 ? 'status-warn' : 'status-ok');

function targetsCell(request) {
  const cell = el('td');
  for (const target of request.targets || []) {
    const failed = target.outcome !== 'ok';
    cell.append(el('span', { class: `target${failed ? ' failed' : ''}`, title: target.error || '' }, `${target.backend}:${target.upstream_model} ${target.outcome} ${target.latency_ms} ms`));
  }
  if (!request.targets && request.backend) cell.append(request.backend);
  return cell;
}

function requestRow(request) {
  const tokens = request.input_tokens === undefined ? '' : `${request.input_tokens}+${request.output_tokens || 0}`;
  return el(
    'tr',
    { 'data-request-id': request.request_id || '' },
    el('td', {}, request.time.slice(11, 19)),
    el('td', {}, request.caller || ''),
    el('td', {}, request.format || ''),
    el('td', {}, request.model || ''),
    targetsCell(request),
    el('td', {}, tokens),
    el('td', {}, request.cost_usd === undefined ? '' : usd(request.cost_usd)),
    el('td', { class: statusClass(request.status) }, request.status),
    el('td', {}, `${request.latency_ms} ms`),
    el('td', { class: 'error' }, request.error || ''),
  );
}

function addRequest(request) {
  const body = $('requests').tBodies[0];
  const row = requestRow(request);
  row.classList.add('fresh');
  body.prepend(row);
  while (body.rows.length > MAX_ROWS) body.deleteRow(body.rows.length - 1);
}

/** Horizontal or vertical bars in an SVG, one per slice; the measure is cost when any was priced, else tokens. */
function drawBars(svg, slices, measure, vertical) {
  svg.replaceChildren();
  const width = svg.clientWidth || 300;
  const height = svg.clientHeight || 180;
  const max = Math.max(0, ...slices.map(measure));
  if (!(max > 0)) {
    svg.append(el('svg:text', { x: 8, y: 20 }, 'no usage yet'));
    return;
  }
  if (vertical) {
    const step = width / slices.length;
    slices.forEach((slice, i) => {
      const h = (measure(slice) / max) * (height - 20);
      if (h > 0) svg.append(el('svg:rect', { x: i * step + 1, y: height - 14 - h, width: Math.max(1, step - 2), height: h, 'data-name': slice.name }, el('svg:title', {}, `${slice.name}: ${slice.requests} requests, ${slice.total_tokens} tokens, ${usd(slice.cost_usd)}`)));
    });
    svg.append(el('svg:text', { x: 0, y: height - 2 }, slices[0].name), el('svg:text', { x: width - 60, y: height - 2 }, slices[slices.length - 1].name));
    return;
  }
  const shown = slices.slice(0, 8);
  const rowHeight = height / Math.max(shown.length, 4);
  shown.forEach((slice, i) => {
    const w = (measure(slice) / max) * (width * 0.55);
    const y = i * rowHeight;
    svg.append(el('svg:text', { x: 0, y: y + rowHeight * 0.6 }, slice.name.length > 28 ? `${slice.name.slice(0, 27)}…` : slice.name));
    svg.append(el('svg:rect', { x: width * 0.42, y: y + 2, width: Math.max(1, w), height: rowHeight - 4, 'data-name': slice.name }, el('svg:title', {}, `${slice.requests} requests, ${slice.total_tokens} tokens, ${usd(slice.cost_usd)}`)));
  });
}

function renderUsage(usage) {
  if (!usage || usage.error) return;
  const byCost = (usage.totals.cost_usd || 0) > 0;
  const measure = byCost ? (slice) => slice.cost_usd || 0 : (slice) => slice.total_tokens;
  $('measure').textContent = byCost ? '(bars: cost)' : '(bars: tokens)';
  $('usage').hidden = false;
  drawBars($('chart-day'), usage.by_day, measure, true);
  drawBars($('chart-model'), usage.by_upstream_model, measure, false);
  drawBars($('chart-key'), usage.by_key, measure, false);
  const totals = $('totals');
  totals.replaceChildren();
  const add = (name, value) => totals.append(el('div', {}, el('dt', {}, name), el('dd', {}, value)));
  add('requests', usage.totals.requests);
  add('tokens', usage.totals.total_tokens);
  add('cost', usd(usage.totals.cost_usd) + (usage.totals.unpriced_requests ? ` (+${usage.totals.unpriced_requests} unpriced)` : ''));
}

function renderRoutes(routes) {
  const body = $('routes').tBodies[0];
  body.replaceChildren(
    ...routes.map((route) => {
      const cell = el('td');
      for (const target of route.targets) {
        const seen = target.ok + target.failed;
        const text = seen ? `${target.target}: ${target.ok}/${seen} ok, ~${target.avg_latency_ms} ms` : `${target.target}: no recent calls`;
        cell.append(el('span', { class: `target${target.failed ? ' failed' : ''}`, title: target.last_error || '' }, text));
      }
      return el('tr', {}, el('td', {}, route.model + (route.default ? ' (default)' : '')), cell);
    }),
  );
  $('routes-section').hidden = false;
}

function renderBackends(backends) {
  const body = $('backends').tBodies[0];
  body.replaceChildren(
    ...backends.map((backend) =>
      el(
        'tr',
        {},
        el('td', {}, backend.name),
        el('td', {}, backend.type),
        el('td', {}, backend.base_url),
        el('td', {}, backend.requests),
        el('td', { class: backend.failures ? 'status-bad' : '' }, backend.failures),
        el('td', { class: 'error' }, backend.recent_errors.map((error) => `${error.time.slice(11, 19)} ${error.status} ${error.error}`).join('\n')),
      ),
    ),
  );
  $('backends-section').hidden = false;
}

let refreshing;
async function refresh() {
  refreshing = undefined;
  const response = await fetch('/ui/api/overview', { credentials: 'same-origin' });
  if (!response.ok) return;
  const overview = await response.json();
  renderUsage(overview.usage);
  renderRoutes(overview.routes);
  renderBackends(overview.backends);
  $('config').textContent = JSON.stringify(overview.config, null, 2);
  $('config-section').hidden = false;
}
const refreshSoon = () => (refreshing ??= setTimeout(refresh, 500));

function connect() {
  const live = $('live');
  const events = new EventSource('/ui/events', { withCredentials: true });
  events.onopen = () => {
    live.textContent = 'live';
    live.className = 'live on';
  };
  events.onerror = () => {
    live.textContent = 'reconnecting…';
    live.className = 'live off';
  };
  events.addEventListener('request', (event) => {
    addRequest(JSON.parse(event.data));
    refreshSoon();
  });
}

document.addEventListener('DOMContentLoaded', () => {
  connect();
  refresh();
});
