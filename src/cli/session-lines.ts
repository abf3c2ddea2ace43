import { formatCount, formatPercent, formatUsd } from '../core/format-numbers.js';
import type { CacheDrop, SessionsReport, SessionView } from '../sessions/session-book.js';
import { formatDuration } from './commands/status.js';
import { chalk } from './output.js';

/** `svc-router sessions` as text: a block per session, most recent first, each drop on a line of its own with its reasons. */
export function sessionLines(report: SessionsReport): string[] {
  if (report.sessions.length === 0) {
    return ['No sessions yet: a session is a client that names one (Claude Code and Codex do; docs/teams.md, "Sessions stay put").'];
  }
  const lines = [`${formatCount(report.sessions.length)} session(s) this router served, most recent first (kept in its memory, at most ${formatCount(report.capacity)}):`];
  for (const session of report.sessions) lines.push('', ...sessionBlock(session));
  return lines;
}

function sessionBlock(session: SessionView): string[] {
  const client = [session.caller, session.format, session.agent].filter(Boolean).join(' · ');
  const route = session.route === session.model ? session.model : `${session.model} (route ${session.route})`;
  const key = session.key ? `, ${session.key.label}` : '';
  const share = session.cached_share === null ? '' : ` = ${formatPercent(session.cached_share)}`;
  const cost = session.cost_usd === null ? 'cost n/a' : formatUsd(session.cost_usd) + (session.unpriced_turns ? ` + ${formatCount(session.unpriced_turns)} unpriced turn(s)` : '');
  const lines = [
    `${chalk.bold(session.id)}  ${client}`,
    `  ${route} → ${session.target}${key}`,
    `  ${formatCount(session.turns)} turn(s) over ${formatDuration(Math.round(session.duration_ms / 1000))} · input ${formatCount(session.input_tokens)} (cached ${formatCount(session.cached_tokens)}${share}, written ${formatCount(session.cache_write_tokens)}) · output ${formatCount(session.output_tokens)} · ${cost}`,
  ];
  if (session.dropped_turns === 0) return [...lines, `  ${chalk.green('no cache drops')}`];
  const older = session.dropped_turns - session.drops.length;
  lines.push(`  ${chalk.yellow(`${formatCount(session.dropped_turns)} turn(s) whose cached share dropped`)}${older > 0 ? ` (the latest ${session.drops.length} shown)` : ''}:`);
  for (const drop of session.drops) lines.push(`    ${dropLine(drop)}`);
  return lines;
}

function dropLine(drop: CacheDrop): string {
  const share = (value: number | null) => (value === null ? 'n/a' : formatPercent(value));
  const why = drop.reasons.length ? drop.reasons.map((reason) => reason.text).join('; ') : 'no cause the router can see (the provider dropped the prefix on its own)';
  return `turn ${drop.turn} at ${drop.time.slice(11, 19)}: cached ${share(drop.previous_cached_share)} → ${share(drop.cached_share)} (read ${formatCount(drop.cached_tokens)} of ${formatCount(drop.cacheable_tokens)} cached by the turn before): ${why}`;
}
