import type { ServerResponse } from 'node:http';
import { rememberedSecrets } from '../../core/redact.js';
import { formatJson, redactEntry, type RequestLog, type RequestLogEntry } from '../request-log.js';

/** Requests the dashboard shows on arrival, and from which each target's recent health is told. */
export const RECENT_REQUESTS = 200;

/**
 * The dashboard's request feed. Its `record` is the whole cost a request pays for the dashboard:
 * the entry goes into a fixed ring (one slot written, nothing allocated) and, only when a browser is
 * watching, onto a queue that is redacted and sent on the next turn of the event loop.
 */
export class LiveFeed implements RequestLog {
  readonly logBodies = false;
  private readonly ring: Array<RequestLogEntry | undefined> = new Array(RECENT_REQUESTS).fill(undefined);
  private next = 0;
  private readonly watchers = new Set<ServerResponse>();
  private queue: RequestLogEntry[] = [];
  private scheduled: NodeJS.Immediate | undefined;

  record(entry: RequestLogEntry): void {
    this.ring[this.next] = entry;
    this.next = (this.next + 1) % RECENT_REQUESTS;
    if (this.watchers.size === 0) return;
    this.queue.push(entry);
    this.scheduled ??= setImmediate(() => this.flush());
  }

  /** Sends what is queued to every watcher, redacted (bodies never: the feed does not carry them). */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (this.queue.length === 0) return;
    const entries = this.queue;
    this.queue = [];
    const frames = entries.map((entry) => `event: request\ndata: ${asJson(entry)}\n\n`).join('');
    for (const watcher of this.watchers) watcher.write(frames);
  }

  /** The recent requests, oldest first, redacted, as the request store writes them. */
  recent(): unknown[] {
    const known = [...rememberedSecrets()];
    const entries: unknown[] = [];
    for (let i = 0; i < RECENT_REQUESTS; i++) {
      const entry = this.ring[(this.next + i) % RECENT_REQUESTS];
      if (entry) entries.push(JSON.parse(formatJson(redactEntry(withoutBodies(entry), known))));
    }
    return entries;
  }

  /** Streams to `res` from now until it closes. */
  watch(res: ServerResponse): void {
    this.watchers.add(res);
    res.once('close', () => this.watchers.delete(res));
  }

  get watching(): number {
    return this.watchers.size;
  }
}

const withoutBodies = (entry: RequestLogEntry): RequestLogEntry =>
  entry.requestBody === undefined && entry.responseBody === undefined ? entry : { ...entry, requestBody: undefined, responseBody: undefined };

const asJson = (entry: RequestLogEntry): string => formatJson(redactEntry(withoutBodies(entry), rememberedSecrets()));
