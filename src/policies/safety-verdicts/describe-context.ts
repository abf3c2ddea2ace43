import { isRecord } from './asked-safeguard.js';

/**
 * Claude Code's `classifier_context` as lines the classifier reads: where the agent works and under
 * which rules. Only the fields that bear on a verdict, each checked for its type and cut to a
 * bound, so a large or odd context costs a bounded prompt (Claude Code caps its own near 128 KB).
 */

const MAX_CONTEXT_CHARS = 16_000;
const MAX_PATH = 512;
const MAX_LIST = 32;
const MAX_RULE = 400;
const MAX_AUTO_MODE_ENTRY = 1_000;
const MAX_GIT_STATUS = 2_000;

const clip = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max)}… (cut)`);

function text(value: unknown, max = MAX_PATH): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? clip(value, max) : undefined;
}

/** A field of a record, own keys only. */
function field(record: unknown, key: string): unknown {
  return isRecord(record) && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** A list of strings, or of rule objects (`{rule}`), or of paths (`{path}`), as strings. */
function entries(value: unknown, max: number): string[] {
  if (!Array.isArray(value)) return [];
  return value.slice(0, MAX_LIST).flatMap((entry) => {
    const found = typeof entry === 'string' ? entry : (text(field(entry, 'rule'), max) ?? text(field(entry, 'path'), max));
    return found ? [clip(found, max)] : [];
  });
}

export function describeContext(context: Readonly<Record<string, unknown>>): string {
  const lines: string[] = [];
  const line = (label: string, value: string | undefined) => {
    if (value !== undefined) lines.push(`${label}: ${value}`);
  };
  const list = (label: string, values: string[]) => {
    if (values.length) lines.push(`${label}:`, ...values.map((value) => `  - ${value}`));
  };
  line('Permission mode', text(field(context, 'permission_mode'), 40));
  line('Platform', text(field(context, 'platform'), 40));
  line('Working directory', text(field(context, 'live_cwd')));
  line('Home directory', text(field(context, 'home_dir')));

  const trusted = field(context, 'trusted_directories');
  line('Trusted directory', text(field(field(trusted, 'primary'), 'path')));
  list('Further trusted directories', entries(field(trusted, 'additional'), MAX_PATH));
  list('Trusted network locations', entries(field(trusted, 'network'), MAX_PATH));
  if (field(trusted, 'block_reads_outside_working_directories') === true) lines.push('Reading outside the trusted directories is blocked.');

  const rules = field(context, 'rules');
  list("User's allow rules", entries(field(rules, 'allow'), MAX_RULE));
  list("User's deny rules", entries(field(rules, 'deny'), MAX_RULE));
  list("User's ask rules", entries(field(rules, 'ask'), MAX_RULE));

  const autoMode = field(context, 'auto_mode');
  list('Auto mode: allowed by the user', entries(field(autoMode, 'allow'), MAX_AUTO_MODE_ENTRY));
  list('Auto mode: blocked unless the user clearly asked (soft deny)', entries(field(autoMode, 'soft_deny'), MAX_AUTO_MODE_ENTRY));
  list('Auto mode: always blocked (hard deny)', entries(field(autoMode, 'hard_deny'), MAX_AUTO_MODE_ENTRY));
  list('Auto mode: environment (what the organisation trusts)', entries(field(autoMode, 'environment'), MAX_AUTO_MODE_ENTRY));

  lines.push(...describeGit(field(context, 'git_state')));
  return clip(lines.join('\n'), MAX_CONTEXT_CHARS);
}

function describeGit(git: unknown): string[] {
  if (!isRecord(git)) return [];
  const error = text(field(git, 'error'), 40);
  if (error === 'not_a_repo') return ['Git: the working directory is not a git repository.'];
  const lines: string[] = [];
  const line = (label: string, value: string | undefined) => {
    if (value !== undefined) lines.push(`Git ${label}: ${value}`);
  };
  line('root', text(field(git, 'root')));
  line('branch', text(field(git, 'branch'), 200));
  line('default branch', text(field(git, 'default_branch'), 200));
  const status = field(git, 'status');
  if (field(status, 'clean') === true) lines.push('Git status: clean');
  else line('status', text(field(status, 'porcelain'), MAX_GIT_STATUS));
  const origin = field(field(git, 'visibility'), 'origin');
  line('origin', text(field(origin, 'remote')));
  line('origin visibility', text(field(origin, 'visibility'), 20));
  line('state', error);
  return lines;
}
