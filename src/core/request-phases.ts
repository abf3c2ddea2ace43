import { performance } from 'node:perf_hooks';

/**
 * The router's own phases of a completion request, in the order they usually come:
 * - read: from the request's arrival to its body parsed and decoded in the client's format
 *   (the key and path checks before it included);
 * - route: the route resolved to a chain of targets;
 * - admit: the policies (limits, usage cap, ledger reservation), and recording the usage after;
 * - encode: the reply (or the stream's head) built in the client's format;
 * - write: the response handed to the socket (for a stream, its head).
 * The time the upstream holds the request (the fallback chain's call, and any classifier a policy
 * waits for) is the `upstream` span, which is not the router's own time and is not among them.
 */
export const ROUTER_PHASES = ['read', 'route', 'admit', 'encode', 'write'] as const;
export type RouterPhase = (typeof ROUTER_PHASES)[number];

export type Phase = RouterPhase | 'upstream';

/**
 * Per-phase time of one request, taken with one clock read per phase boundary: begin() reads the
 * clock once and charges the time since the previous boundary to the phase that was running. A
 * phase may come back (admit before the upstream call, and again to record the usage after it):
 * its time adds up. Whatever ends a request early (an error thrown anywhere) leaves the time with
 * the phase it happened in.
 */
export class RequestPhases {
  read = 0;
  route = 0;
  admit = 0;
  encode = 0;
  write = 0;
  /** Not the router's own: the upstream's wait. */
  upstream = 0;
  /** The completion pipeline ran (other endpoints do not have these phases). */
  completion = false;
  private current: Phase | undefined = 'read';
  /** The clock at the latest boundary. */
  private last: number;

  /** `start`: performance.now() when the request arrived; the read phase starts there. */
  constructor(readonly start: number = performance.now()) {
    this.last = start;
  }

  /** Starts `phase` now (nothing, not even a clock read, when it is the one running). */
  begin(phase: Phase): void {
    if (phase === this.current) return;
    this.mark();
    this.current = phase;
  }

  /** Ends the phase running; the clock is read once. */
  stop(): void {
    if (this.current === undefined) return;
    this.mark();
    this.current = undefined;
  }

  private mark(): void {
    const now = performance.now();
    if (this.current !== undefined) this[this.current] += now - this.last;
    this.last = now;
  }

  /** The router's own time so far, in ms: every phase but the upstream's. */
  get overheadMs(): number {
    return this.read + this.route + this.admit + this.encode + this.write;
  }
}
