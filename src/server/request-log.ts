import { Chalk, type ChalkInstance } from 'chalk';
import { redactText, redactValue, rememberedSecrets } from '../core/redact.js';
import type { RequestLogEntry } from '../core/request-record.js';

/**
 * One finished request as the request log sees it: the request's trace, completed by the HTTP
 * layer with the status and the time it took (src/core/request-record.ts). It never holds a key;
 * bodies only when the log was asked for them.
 */
export type { RequestLogEntry } from '../core/request-record.js';

/** Where the HTTP layer reports each finished request. */
export interface RequestLog {
  /** Whether request and response bodies should be captured for this log. */
  readonly logBodies: boolean;
  /** Cheap: queues the entry; formatting and writing happen later, off the request's path. */
  record(entry: RequestLogEntry): void;
  /** Writes everything queued, now (at shutdown, and when the queue grows large). */
  flush(): void;
}

export type LogFormat = 'text' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];

export interface RequestLogOptions extends BatchOptions {
  format: LogFormat;
  /** Colour the text format (a terminal that wants colour). */
  color?: boolean;
  /** Default: standard error. */
  write?: (text: string) => void;
}

/**
 * A request log that costs the request almost nothing: entries are queued and written together
 * on the next turn of the event loop (setImmediate), or at once when many are waiting.
 */
export function createRequestLog(options: RequestLogOptions): RequestLog {
  const write = options.write ?? ((text: string) => void process.stderr.write(text));
  const colours = new Chalk({ level: options.color ? 1 : 0 });
  const format = options.format === 'json' ? formatJson : (entry: RequestLogEntry) => formatText(entry, colours);
  return batchedLog((entries, known) => {
    let text = '';
    for (const entry of entries) text += `${format(redactEntry(entry, known))}\n`;
    write(text);
  }, options);
}

export interface BatchOptions {
  logBodies?: boolean;
  /** Entries queued before a flush is forced at once rather than on the next turn of the event loop. */
  maxQueued?: number;
  /** Values never to write (beyond the usual credential shapes). Default: the upstream keys this process has used. */
  secrets?: () => Iterable<string>;
}

/**
 * What every request log shares (standard error, the stored log, OpenTelemetry): `record` only
 * queues; `handle` gets the queued entries, with the secrets known at that moment, on the next
 * turn of the event loop (setImmediate), or at once when many are waiting.
 */
export function batchedLog(handle: (entries: RequestLogEntry[], secrets: string[]) => void, options: BatchOptions = {}): RequestLog {
  const maxQueued = options.maxQueued ?? 256;
  const secrets = options.secrets ?? rememberedSecrets;
  let queue: RequestLogEntry[] = [];
  let scheduled: NodeJS.Immediate | undefined;

  const flush = (): void => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
    if (queue.length === 0) return;
    const entries = queue;
    queue = [];
    handle(entries, [...secrets()]);
  };

  return {
    logBodies: options.logBodies ?? false,
    record(entry) {
      queue.push(entry);
      if (queue.length >= maxQueued) flush();
      else scheduled ??= setImmediate(flush);
    },
    flush,
  };
}

/**
 * The entry with its error text and bodies scrubbed of credentials. Upstream text is redacted
 * before it reaches the pipeline already; this is the second line of defence, at the last moment,
 * off the request's path.
 */
export function redactEntry(entry: RequestLogEntry, given: Iterable<string> = []): RequestLogEntry {
  // Read several times below: a one-pass iterable would be spent on the first field.
  const secrets = Array.isArray(given) ? (given as string[]) : [...given];
  const failedTarget = entry.targets?.some((target) => target.error !== undefined) ?? false;
  // The path and the model name are the client's words too: a key pasted into a base URL or a model setting.
  const path = redactText(entry.path, secrets);
  const model = entry.model === undefined ? undefined : redactText(entry.model, secrets);
  const clientWordsClean = path === entry.path && model === entry.model;
  if (clientWordsClean && entry.error === undefined && entry.cause === undefined && entry.notes === undefined && entry.requestBody === undefined && entry.responseBody === undefined && !failedTarget) return entry;
  return {
    ...entry,
    path,
    ...(model !== undefined ? { model } : {}),
    // A policy's note names what it found, never the value; scrubbed all the same, as every text here.
    ...(entry.notes !== undefined ? { notes: mapNotes(entry.notes, (note) => redactText(note, secrets)) } : {}),
    ...(failedTarget ? { targets: entry.targets!.map((target) => (target.error === undefined ? target : { ...target, error: redactText(target.error, secrets) })) } : {}),
    ...(entry.error !== undefined ? { error: redactText(entry.error, secrets) } : {}),
    ...(entry.cause !== undefined ? { cause: redactText(describeCause(entry.cause), secrets, MAX_CAUSE_CHARS) } : {}),
    ...(entry.requestBody !== undefined ? { requestBody: redactValue(entry.requestBody, secrets) } : {}),
    ...(entry.responseBody !== undefined ? { responseBody: redactValue(entry.responseBody, secrets) } : {}),
  };
}

/** A cause is cut to this many characters in a log line, after it has been redacted. */
const MAX_CAUSE_CHARS = 1_000;

/** How many causes of causes are followed. */
const MAX_CAUSE_DEPTH = 3;

/** A cause as one line of text: an error's name, code and message (and its own causes), or the value itself. */
export function describeCause(cause: unknown, depth = 0): string {
  try {
    if (typeof cause === 'string') return cause;
    if (cause instanceof Error) {
      const code = (cause as { code?: unknown }).code;
      let text = `${cause.name}${typeof code === 'string' || typeof code === 'number' ? ` ${code}` : ''}`;
      const inner = cause instanceof AggregateError ? cause.errors : [];
      if (cause.message) text += `: ${cause.message}`;
      else if (inner.length && depth < MAX_CAUSE_DEPTH) text += `: ${inner.map((error) => describeCause(error, depth + 1)).join('; ')}`;
      if (cause.cause !== undefined && depth < MAX_CAUSE_DEPTH) text += ` (cause: ${describeCause(cause.cause, depth + 1)})`;
      return text;
    }
    return JSON.stringify(cause) ?? String(cause);
  } catch {
    return 'an undescribable value';
  }
}

/** One line of `--log-format json` and of the request store: snake_case, fields left out when unknown. */
export interface StoredRequest {
  time: string;
  request_id?: string;
  method: string;
  path: string;
  endpoint?: string;
  status: number;
  caller?: string;
  format?: string;
  model?: string;
  rule?: string;
  backend?: string;
  upstream_model?: string;
  attempts?: number;
  latency_ms: number;
  input_tokens?: number;
  output_tokens?: number;
  cost_usd?: number;
  targets?: Array<{ backend: string; upstream_model: string; outcome: 'ok' | number; latency_ms: number; error?: string }>;
  /** Each policy's note, by policy name. */
  notes?: Record<string, string>;
  /** The request's session: the hash it is kept under (`svc-router sessions`). */
  session?: string;
  /** Where a failure moved the request's session (`heavy → light`, `pooled key 1 → key 2`). */
  session_moved?: string;
  stream?: boolean;
  aborted?: boolean;
  error?: string;
  /** Written as text (redactEntry describes it). */
  cause?: string;
  request_body?: unknown;
  response_body?: unknown;
}

/**
 * Each field of the record and its name in the stored line, in the line's order. The compiler
 * refuses a field of RequestLogEntry left out here (below), so whatever the pipeline records
 * reaches the stored line, and is read back from it, without another edit.
 */
const STORED_FIELDS = [
  ['time', 'time'],
  ['requestId', 'request_id'],
  ['method', 'method'],
  ['path', 'path'],
  ['endpoint', 'endpoint'],
  ['status', 'status'],
  ['caller', 'caller'],
  ['format', 'format'],
  ['model', 'model'],
  ['rule', 'rule'],
  ['backend', 'backend'],
  ['upstreamModel', 'upstream_model'],
  ['attempts', 'attempts'],
  ['latencyMs', 'latency_ms'],
  ['inputTokens', 'input_tokens'],
  ['outputTokens', 'output_tokens'],
  ['costNanoUsd', 'cost_usd'],
  ['targets', 'targets'],
  ['notes', 'notes'],
  ['session', 'session'],
  ['sessionMoved', 'session_moved'],
  ['stream', 'stream'],
  ['aborted', 'aborted'],
  ['error', 'error'],
  ['cause', 'cause'],
  ['requestBody', 'request_body'],
  ['responseBody', 'response_body'],
] as const satisfies ReadonlyArray<readonly [keyof RequestLogEntry, keyof StoredRequest]>;

type Unstored = Exclude<keyof RequestLogEntry, (typeof STORED_FIELDS)[number][0]>;
type Unread = Exclude<keyof StoredRequest, (typeof STORED_FIELDS)[number][1]>;
const everyFieldStored = <T extends [never, never]>(): T | undefined => undefined;
everyFieldStored<[Unstored, Unread]>();

type StoredTarget = NonNullable<StoredRequest['targets']>[number];
type EntryTarget = NonNullable<RequestLogEntry['targets']>[number];

/** One JSON object per line, snake_case, fields left out when unknown. */
export function formatJson(entry: RequestLogEntry): string {
  const record: Record<string, unknown> = {};
  for (const [field, name] of STORED_FIELDS) {
    const value = entry[field];
    if (value === undefined) continue;
    if (field === 'time') record[name] = new Date(value as number).toISOString();
    else if (field === 'costNanoUsd') record[name] = (value as number) / 1e9;
    else if (field === 'targets') record[name] = (value as EntryTarget[]).map(storedTarget);
    else record[name] = value;
  }
  return JSON.stringify(record);
}

/** A stored line back as the entry it was written from (what `svc-router logs` formats as text). */
export function entryFromStored(stored: StoredRequest): RequestLogEntry {
  const record = stored as unknown as Record<string, unknown>;
  const entry: Record<string, unknown> = {};
  for (const [field, name] of STORED_FIELDS) {
    const value = record[name];
    if (value === undefined) continue;
    if (field === 'time') entry[field] = Date.parse(value as string);
    else if (field === 'costNanoUsd') entry[field] = Math.round((value as number) * 1e9);
    else if (field === 'targets') entry[field] = (value as StoredTarget[]).map(entryTarget);
    else entry[field] = value;
  }
  return entry as unknown as RequestLogEntry;
}

const storedTarget = (target: EntryTarget): StoredTarget => ({
  backend: target.backend,
  upstream_model: target.upstreamModel,
  outcome: target.outcome,
  latency_ms: target.latencyMs,
  ...(target.error !== undefined ? { error: target.error } : {}),
});

const entryTarget = (target: StoredTarget): EntryTarget => ({
  backend: target.backend,
  upstreamModel: target.upstream_model,
  outcome: target.outcome,
  latencyMs: target.latency_ms,
  ...(target.error !== undefined ? { error: target.error } : {}),
});

/** The notes with each one mapped; a policy's name is kept as an own key whatever it is. */
function mapNotes(notes: Record<string, string>, map: (note: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(notes).map(([name, note]) => [name, map(note)]));
}

/**
 * logfmt-style, one line per request:
 * `2026-11-22T06:01:11.123Z 200 POST /v1/chat/completions id=req_… caller=alice format=chat
 * model=svc.intelligent-pro backend=offline attempts=1 latency_ms=12 tokens=5+7`.
 */
export function formatText(entry: RequestLogEntry, colours: ChalkInstance): string {
  const field = (name: string, value: string | number | undefined): string =>
    value === undefined || value === '' ? '' : ` ${colours.dim(`${name}=`)}${typeof value === 'number' ? value : quoted(value)}`;
  const status = entry.status >= 500 ? colours.red : entry.status >= 400 ? colours.yellow : colours.green;
  const tokens = entry.inputTokens === undefined && entry.outputTokens === undefined ? undefined : `${entry.inputTokens ?? 0}+${entry.outputTokens ?? 0}`;
  // BACKEND:UPSTREAM_MODEL as routes write it, when the upstream was asked for another name.
  const backend = entry.backend && entry.upstreamModel && entry.upstreamModel !== entry.model ? `${entry.backend}:${entry.upstreamModel}` : entry.backend;
  let line = `${colours.dim(new Date(entry.time).toISOString())} ${status(String(entry.status))} ${entry.method} ${quoted(entry.path)}`;
  line += field('id', entry.requestId);
  line += field('caller', entry.caller);
  line += field('format', entry.format);
  line += field('model', entry.model);
  line += field('rule', entry.rule);
  line += field('backend', backend);
  line += field('attempts', entry.attempts);
  line += field('latency_ms', entry.latencyMs);
  line += field('tokens', tokens);
  if (entry.costNanoUsd !== undefined) line += field('cost_usd', entry.costNanoUsd / 1e9);
  // A fallback's failed tries, in order: `BACKEND:MODEL/STATUS/MS`, the last being the one that answered (or failed last).
  if (entry.targets?.some((target) => target.outcome !== 'ok')) line += field('targets', entry.targets.map((target) => `${target.backend}:${target.upstreamModel}/${target.outcome}/${target.latencyMs}ms`).join(','));
  line += field('session', entry.session);
  line += field('session_moved', entry.sessionMoved);
  // Every policy's note, as `note.NAME=…`: a new policy's note needs no change here.
  if (entry.notes) for (const [name, note] of Object.entries(entry.notes)) line += field(`note.${name}`, note);
  if (entry.stream) line += field('stream', 'true');
  if (entry.aborted) line += field('aborted', 'true');
  if (entry.error !== undefined) line += ` ${colours.dim('error=')}${colours.red(JSON.stringify(entry.error))}`;
  if (entry.cause !== undefined) line += ` ${colours.dim('cause=')}${JSON.stringify(typeof entry.cause === 'string' ? entry.cause : describeCause(entry.cause))}`;
  if (entry.requestBody !== undefined) line += ` ${colours.dim('request_body=')}${JSON.stringify(entry.requestBody)}`;
  if (entry.responseBody !== undefined) line += ` ${colours.dim('response_body=')}${JSON.stringify(entry.responseBody)}`;
  return line;
}

/** Plain words stay bare; anything with spaces, quotes or control characters is JSON-quoted. */
function quoted(value: string): string {
  // eslint-disable-next-line no-control-regex
  return /^[^\s"=\u0000-\u001f\u007f]+$/.test(value) ? value : JSON.stringify(value);
}
