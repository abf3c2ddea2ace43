// The dashboard's script: plain browser JavaScript, no build step. The page without it is the
// server-rendered table of recent requests; with it, the table is live (EventSource on /ui/events)
// and the charts, routes, backends and config come from /ui/api/overview, the sessions from
// /ui/api/sessions. Numbers are written by formatCount, formatUsd and formatPercent from
// /ui/format.js: the CLI's own functions (src/core/format-numbers.ts).
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

/** The longest path a row shows (as the server's rows do); the whole of it is in the request log. */
const PATH_SHOWN = 120;
const statusClass = (status) => (status >= 500 ? 'status-bad' : status >= 400 ? 'status-warn' : 'status-ok');

function targetsCell(request) {
  const cell = el('td', { class: 'targets' });
  for (const target of request.targets || []) {
    const failed = target.outcome !== 'ok';
    cell.append(el('span', { class: `target${failed ? ' failed' : ''}`, title: target.error || '' }, `${target.backend}:${target.upstream_model} ${target.outcome} ${target.latency_ms} ms`));
  }
  if (!request.targets && request.backend) cell.append(request.backend);
  return cell;
}

/** `POST /v1/messages`: which request a row is, whether or not it reached a model (probes, 404s). */
function requestLine(request) {
  const path = request.path.length > PATH_SHOWN ? `${request.path.slice(0, PATH_SHOWN - 1)}…` : request.path;
  return `${request.method} ${path}`;
}

function requestRow(request) {
  const tokens = request.input_tokens === undefined ? '' : `${formatCount(request.input_tokens)}+${formatCount(request.output_tokens || 0)}`;
  return el(
    'tr',
    { 'data-request-id': request.request_id || '' },
    el('td', {}, request.time.slice(11, 19)),
    el('td', { class: 'request' }, requestLine(request)),
    el('td', {}, request.caller || ''),
    el('td', {}, request.format || ''),
    el('td', {}, request.model || ''),
    targetsCell(request),
    el('td', { class: 'number' }, tokens),
    el('td', { class: 'number' }, request.cost_usd === undefined ? '' : formatUsd(request.cost_usd)),
    el('td', { class: statusClass(request.status) }, request.status),
    el('td', { class: 'number' }, `${formatCount(request.latency_ms)} ms`),
    el('td', { class: 'error' }, [request.error, ...Object.entries(request.notes || {}).map(([name, note]) => `${name}: ${note}`)].filter(Boolean).join(' · ')),
  );
}

/**
 * A table whose columns do not fit its section shows each row as a card instead (the `cards` class
 * in dashboard.css): its cells wrap, each labelled with its column's header. Measured, not set at
 * a width, since what fits depends on what the rows hold; the class is taken off, the section
 * measured and the class put back in one task, so nothing is painted in between.
 */
function fitTable(table) {
  const section = table.closest('section');
  if (!section || section.hidden) return;
  const headers = [...table.tHead.rows[0].cells].map((cell) => cell.textContent);
  for (const row of table.tBodies[0].rows) {
    for (const cell of row.cells) if (cell.colSpan === 1 && !cell.dataset.label) cell.dataset.label = headers[cell.cellIndex] || '';
  }
  table.classList.remove('cards');
  if (section.scrollWidth > section.clientWidth) table.classList.add('cards');
}

const fitAll = () => document.querySelectorAll('main table').forEach(fitTable);
let fitting;
/** Once per frame, however many rows or resizes arrive in it. */
const fitAllSoon = () => (fitting ??= requestAnimationFrame(() => {
  fitting = undefined;
  fitAll();
}));

function addRequest(request) {
  const body = $('requests').tBodies[0];
  const row = requestRow(request);
  row.classList.add('fresh');
  body.prepend(row);
  while (body.rows.length > MAX_ROWS) body.deleteRow(body.rows.length - 1);
  fitAllSoon();
}

/**
 * The charts' measure: cost, or tokens (which every request has, priced or not: a local model
 * nobody priced has tokens and no cost). Cost by default when any request in the window was priced.
 */
const MEASURES = {
  cost: { of: (slice) => slice.cost_usd || 0, text: (slice) => (slice.cost_usd === null ? 'unpriced' : formatUsd(slice.cost_usd) + (slice.unpriced_requests ? ' + unpriced' : '')) },
  tokens: { of: (slice) => slice.total_tokens, text: (slice) => `${formatCount(slice.total_tokens)} tokens` },
};
let measureChosen;
let lastUsage;

/** Bars in an SVG, one per slice: columns by day, else a labelled row per slice with its value beside the bar. */
function drawBars(svg, slices, measure, vertical) {
  svg.replaceChildren();
  const width = svg.clientWidth || 300;
  const height = svg.clientHeight || 180;
  const max = Math.max(0, ...slices.map(measure.of));
  if (vertical) {
    if (!(max > 0)) {
      svg.append(el('svg:text', { x: 8, y: 20 }, 'no usage yet'));
      return;
    }
    const step = width / slices.length;
    slices.forEach((slice, i) => {
      const h = (measure.of(slice) / max) * (height - 20);
      if (h > 0) svg.append(el('svg:rect', { x: i * step + 1, y: height - 14 - h, width: Math.max(1, step - 2), height: h, 'data-name': slice.name }, el('svg:title', {}, `${slice.name}: ${formatCount(slice.requests)} requests, ${formatCount(slice.total_tokens)} tokens, ${formatUsd(slice.cost_usd)}`)));
    });
    svg.append(el('svg:text', { x: 0, y: height - 2 }, slices[0].name), el('svg:text', { x: width, y: height - 2, 'text-anchor': 'end' }, slices[slices.length - 1].name));
    return;
  }
  if (slices.length === 0) {
    svg.append(el('svg:text', { x: 8, y: 20 }, 'no usage yet'));
    return;
  }
  const shown = slices.slice(0, 6);
  const rowHeight = height / Math.max(shown.length, 4);
  // Room beside the longest bar for its value ("$1,234.56 + unpriced").
  const room = Math.max(width * 0.3, width - 110);
  shown.forEach((slice, i) => {
    const y = i * rowHeight;
    const value = measure.of(slice);
    const w = max > 0 ? (value / max) * room : 0;
    svg.append(el('svg:text', { x: 0, y: y + 11 }, slice.name, el('svg:title', {}, slice.name)));
    const barY = y + 15;
    const barHeight = Math.max(4, rowHeight - 20);
    if (w > 0) svg.append(el('svg:rect', { x: 0, y: barY, width: Math.max(1, w), height: barHeight, 'data-name': slice.name }, el('svg:title', {}, `${formatCount(slice.requests)} requests, ${formatCount(slice.total_tokens)} tokens, ${formatUsd(slice.cost_usd)}`)));
    svg.append(el('svg:text', { x: w + 4, y: barY + barHeight / 2 + 4, class: 'value' }, measure.text(slice)));
  });
}

function chooseMeasure(name) {
  measureChosen = name;
  if (lastUsage) renderUsage(lastUsage);
}

function renderUsage(usage) {
  if (!usage || usage.error) return;
  lastUsage = usage;
  const name = measureChosen || ((usage.totals.cost_usd || 0) > 0 ? 'cost' : 'tokens');
  const measure = MEASURES[name];
  $('measure-cost').setAttribute('aria-pressed', String(name === 'cost'));
  $('measure-tokens').setAttribute('aria-pressed', String(name === 'tokens'));
  $('usage').hidden = false;
  drawBars($('chart-day'), usage.by_day, measure, true);
  drawBars($('chart-model'), usage.by_upstream_model, measure, false);
  drawBars($('chart-key'), usage.by_key, measure, false);
  const totals = $('totals');
  totals.replaceChildren();
  const add = (name, value, note) => totals.append(el('div', {}, el('dt', {}, name), el('dd', {}, value, ...(note ? [el('small', {}, ` ${note}`)] : []))));
  add('requests', formatCount(usage.totals.requests));
  add('tokens', formatCount(usage.totals.total_tokens));
  add('cost', formatUsd(usage.totals.cost_usd), usage.totals.unpriced_requests ? `(+${formatCount(usage.totals.unpriced_requests)} unpriced)` : '');
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
  fitTable($('routes'));
}

/** A backend's failures, one line per kind: how often, the status and message, and when last. */
function errorGroupsCell(backend) {
  const list = el('ul', { class: 'error-groups' });
  for (const group of backend.error_groups) {
    const when = group.count > 1 ? `last ${group.last_time.slice(11, 19)}` : group.last_time.slice(11, 19);
    list.append(el('li', { class: 'error-group' }, `${formatCount(group.count)}× ${group.status} ${group.error} `, el('small', {}, `(${when})`)));
  }
  if (backend.error_groups_not_shown) list.append(el('li', { class: 'more' }, `and ${formatCount(backend.error_groups_not_shown)} older kind(s) of error: svc-router logs --status error`));
  return el('td', { class: 'error' }, list);
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
        el('td', { class: 'url' }, backend.base_url),
        el('td', { class: 'number' }, formatCount(backend.requests)),
        el('td', { class: `number${backend.failures ? ' status-bad' : ''}` }, formatCount(backend.failures)),
        errorGroupsCell(backend),
      ),
    ),
  );
  $('backends-section').hidden = false;
  fitTable($('backends'));
}

/** 3725000 ms → "1h 2m 5s", as `svc-router sessions` writes it. */
function formatDurationMs(ms) {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const parts = [];
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (hours) parts.push(`${hours}h`);
  if (minutes || hours) parts.push(`${minutes}m`);
  parts.push(`${seconds % 60}s`);
  return parts.join(' ');
}

const share = (value) => (value === null ? 'n/a' : formatPercent(value));

/** A session's drops, one line each, in turn order over all its models: the turn, its cached share before and after, and the reasons the router saw. */
function dropsRow(session, columns) {
  const several = session.models.length > 1;
  const drops = session.models.flatMap((model) => model.drops.map((drop) => ({ drop, model: model.model }))).sort((a, b) => a.drop.turn - b.drop.turn);
  const list = el('ul', { class: 'drops' });
  for (const { drop, model } of drops) {
    const why = drop.reasons.length ? drop.reasons.map((reason) => reason.text).join('; ') : 'no cause the router can see';
    const turn = several ? `turn ${drop.turn} (${model})` : `turn ${drop.turn}`;
    list.append(el('li', { class: 'drop', 'data-turn': drop.turn, 'data-model': model }, `${turn}: ${share(drop.previous_cached_share)} → ${share(drop.cached_share)}: ${why}`));
  }
  const older = session.dropped_turns - drops.length;
  if (older > 0) list.append(el('li', { class: 'more' }, `and ${formatCount(older)} earlier`));
  return el('tr', { class: 'drops-row', 'data-drops-of': session.id }, el('td', { colspan: columns, class: 'error' }, list));
}

/** Each model a session asked for on a line of its own: where its latest turn went, and (with several) its turns. */
function modelsCell(session) {
  const several = session.models.length > 1;
  return el(
    'td',
    { class: 'targets' },
    ...session.models.map((model) =>
      el('div', { class: 'model', 'data-model': model.model }, `${model.model} → ${model.target}${model.key ? `, ${model.key.label}` : ''}${several ? ` · ${formatCount(model.turns)} turns` : ''}`),
    ),
  );
}

function renderSessions(report) {
  const body = $('sessions').tBodies[0];
  const columns = $('sessions').tHead.rows[0].cells.length;
  body.replaceChildren(
    ...report.sessions.flatMap((session) => {
      const row = el(
        'tr',
        { 'data-session-id': session.id },
        el('td', { class: 'session', title: session.id }, session.id.slice(0, 10)),
        el('td', {}, [session.caller, session.format, session.agent].filter(Boolean).join(' · ')),
        modelsCell(session),
        el('td', { class: 'number' }, formatCount(session.turns)),
        el('td', { class: 'number' }, `${formatCount(session.input_tokens)} / ${formatCount(session.cached_tokens)} / ${formatCount(session.output_tokens)}`),
        el('td', { class: 'number' }, share(session.cached_share)),
        el('td', { class: 'number' }, formatUsd(session.cost_usd)),
        el('td', { class: 'number' }, formatDurationMs(session.duration_ms)),
        el('td', { class: `number ${session.dropped_turns ? 'status-bad' : 'status-ok'}` }, formatCount(session.dropped_turns)),
      );
      return session.dropped_turns ? [row, dropsRow(session, columns)] : [row];
    }),
  );
  $('sessions-section').hidden = report.sessions.length === 0;
  fitTable($('sessions'));
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
  const sessions = await fetch('/ui/api/sessions', { credentials: 'same-origin' });
  if (sessions.ok) renderSessions(await sessions.json());
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
  $('measure-cost').addEventListener('click', () => chooseMeasure('cost'));
  $('measure-tokens').addEventListener('click', () => chooseMeasure('tokens'));
  connect();
  refresh();
  // The server's rows now, and every table again whenever the page's width changes.
  fitAll();
  window.addEventListener('resize', fitAllSoon);
});
