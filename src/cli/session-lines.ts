import { formatCount, formatPercent, formatUsd } from '../core/format-numbers.js';
import type { CacheDrop, SessionModelView, SessionsReport, SessionView } from '../sessions/session-book.js';
import { formatDuration } from './commands/status.js';
import { chalk } from './output.js';

/** `svc-router sessions` as text: a block per session, most recent first, each model it asked for under it and each drop on a line of its own with its reasons. */
export function sessionLines(report: SessionsReport): string[] {
  if (report.sessions.length === 0) {
    return ['No sessions yet: a session is a client that names one (Claude Code and Codex do; docs/teams.md, "Sessions stay put").'];
  }
  const lines = [`${formatCount(report.sessions.length)} session(s) this router served, most recent first (kept in its memory, at most ${formatCount(report.capacity)}):`];
  for (const session of report.sessions) lines.push('', ...sessionBlock(session));
  return lines;
}

/**
 * A session: its client and totals, then each model it asked for (where it went, its share of the
 * turns and cache) with that model's drops under it; a prompt cache is per model, so drops are too.
 */
function sessionBlock(session: SessionView): string[] {
  const client = [session.caller, session.format, session.agent].filter(Boolean).join(' · ');
  const share = session.cached_share === null ? '' : ` = ${formatPercent(session.cached_share)}`;
  const cost = session.cost_usd === null ? 'cost n/a' : formatUsd(session.cost_usd) + (session.unpriced_turns ? ` + ${formatCount(session.unpriced_turns)} unpriced turn(s)` : '');
  const lines = [
    `${chalk.bold(session.id)}  ${client}`,
    `  ${formatCount(session.turns)} turn(s) over ${formatDuration(Math.round(session.duration_ms / 1000))} · input ${formatCount(session.input_tokens)} (cached ${formatCount(session.cached_tokens)}${share}, written ${formatCount(session.cache_write_tokens)}) · output ${formatCount(session.output_tokens)} · ${cost}`,
  ];
  const shown = session.models.reduce((sum, model) => sum + model.turns, 0);
  for (const model of session.models) lines.push(...modelLines(model, session.models.length > 1));
  if (shown < session.turns) lines.push(`  ${formatCount(session.turns - shown)} turn(s) on models no longer listed (at most ${session.models.length} are kept)`);
  return lines;
}

function modelLines(model: SessionModelView, several: boolean): string[] {
  const route = model.route === model.model ? model.model : `${model.model} (route ${model.route})`;
  const key = model.key ? `, ${model.key.label}` : '';
  // With one model the session's totals say the rest; with several, each model's own share.
  const own = several ? ` · ${formatCount(model.turns)} turn(s), cached ${model.cached_share === null ? 'n/a' : formatPercent(model.cached_share)}` : '';
  const lines = [`  ${route} → ${model.target}${key}${own}`];
  if (model.dropped_turns === 0) return [...lines, `    ${chalk.green('no cache drops')}`];
  const older = model.dropped_turns - model.drops.length;
  lines.push(`    ${chalk.yellow(`${formatCount(model.dropped_turns)} turn(s) whose cached share dropped`)}${older > 0 ? ` (the latest ${model.drops.length} shown)` : ''}:`);
  for (const drop of model.drops) lines.push(`      ${dropLine(drop)}`);
  return lines;
}

function dropLine(drop: CacheDrop): string {
  const share = (value: number | null) => (value === null ? 'n/a' : formatPercent(value));
  const why = drop.reasons.length ? drop.reasons.map((reason) => reason.text).join('; ') : 'no cause the router can see (the provider dropped the prefix on its own)';
  return `turn ${drop.turn} at ${drop.time.slice(11, 19)}: cached ${share(drop.previous_cached_share)} → ${share(drop.cached_share)} (read ${formatCount(drop.cached_tokens)} of ${formatCount(drop.cacheable_tokens)} cached by the turn before): ${why}`;
}
