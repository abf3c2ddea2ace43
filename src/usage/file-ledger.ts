import fs from 'node:fs';
import { reportOnStderr } from '../files/report-on-stderr.js';
import { SkippedLines } from '../files/skipped-lines.js';
import { DailyBuckets } from './daily-buckets.js';
import { HeldReservations, type Held } from './held-reservations.js';
import { DAY_MS, decideReservation, firstWindowDay, type Ledger, type Reservation, type ReserveRequest, type UsageRecord, type UsageRow, type UsageSummary } from './ledger.js';
import { readLedgerLine } from './ledger-lines.js';
import { LEASE_AFTER, LEASE_ASKS, LEASE_SHARE, Leases, type Lease } from './leases.js';

export { parseRecord } from './ledger-lines.js';

const RECHECK_MS = 25;
/** Rechecks a reservation that other processes raced for this many times before refusing it. */
const RACE_RETRIES = 3;

/** A reservation line: its own shape, which a reader that knows only usage records skips. */
interface ReserveLine {
  reserve: { id: string; developer: string; tokens: number; until: number };
}
/** Records and releases made in this turn, counted already, waiting for the turn's write. */
interface Waiting {
  lines: string;
  /** Lines in `lines`. */
  count: number;
  /** Request ids of the records among them, and of the releases. */
  ids: string[];
  releases: string[];
  /** Reservations of their own for the requests in flight under leases given back in this write. */
  kept: Array<{ id: string; held: Held }>;
}

interface AskedReservation {
  request: ReserveRequest;
  now: number;
  /** Times it was taken back after losing a race (see RACE_RETRIES). */
  attempt: number;
  resolve(reservation: Reservation): void;
  reject(error: unknown): void;
}

/**
 * The embedded ledger: one JSON line per completed request, appended on an O_APPEND descriptor
 * before the response is finished. The lines asked for in one turn of the event loop (records,
 * releases, reservations) go out in one write(2) at the end of the turn, and a record's promise
 * resolves only once that write is done: a reply that waits for it is never finished before its
 * usage is in the file, so a killed process loses nothing it answered (the kernel holds the
 * bytes), and the lines of several processes never interleave. Reads catch up with whatever other
 * processes appended since the last read; this process's own records are counted as they are
 * made, so the common case reads nothing back.
 */
export class FileLedger implements Ledger {
  private readonly fd: number;
  private readonly buckets = new DailyBuckets();
  /** Bytes of the file already counted, from the start. */
  private offset = 0;
  private pending = '';
  /** Own records written past `offset`: their bytes, and their ids to skip when read back. */
  private ownBytes = 0;
  private checkedAt = -Infinity;
  private readonly ownIds = new Set<string>();
  /** Reservations in flight, this process's and others' (read from the file), by request id. */
  private readonly held = new HeldReservations();
  private readonly ownReservations = new Set<string>();
  /** Own release lines past `offset`: applied when written, so reading one back must not undo a later re-reservation. */
  private readonly ownReleases = new Set<string>();
  /** Lines counted so far, in file order (see Held.seq). */
  private seq = 0;
  /**
   * Other processes' records read by the last catchUp, with their line and the reservation each
   * settled: a recheck after a race counts only lines above its own (see decideAbove).
   */
  private lastRead: Array<{ seq: number; entry: UsageRecord; settled: Held | undefined }> = [];
  /** Whole lines before `offset`, and own lines written past it: a skipped line is told by its number. */
  private lines = 0;
  private ownLines = 0;
  /** Torn or garbage lines: skipped, and each told once. */
  private readonly skipped: SkippedLines;
  /** Reservations asked for in this turn of the event loop, decided and written together. */
  private asked: AskedReservation[] = [];
  /** Records and releases of this turn, counted already, written ahead of its reservations. */
  private waitingLines = '';
  private waitingCount = 0;
  private waitingIds: string[] = [];
  private waitingReleases: string[] = [];
  /** What this turn's records wait on: its write. */
  private turn: { promise: Promise<void>; resolve(): void; reject(error: unknown): void } | undefined;
  private flushScheduled: NodeJS.Immediate | undefined;
  /** Slices of the cap this process admits its own requests from without writing (see leases.ts). */
  /** Developers whose lease was used up this turn, and whether the ledger is closing (no lease is taken then). */
  private renewing = new Set<string>();
  private closing = false;
  private readonly leases = new Leases(`lease-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);

  /**
   * `report` hears of each line that cannot be read (default: standard error). With `leases`, a
   * busy process far from a developer's cap admits from leases (see askLeases); without, every
   * reservation has a line of its own (a tool that reads the file per request relies on that).
   */
  constructor(
    readonly file: string,
    report: (message: string) => void = reportOnStderr,
    private readonly options: { leases?: boolean } = {},
  ) {
    this.skipped = new SkippedLines(file, report);
    this.fd = fs.openSync(file, 'a+', 0o600);
    this.catchUp();
    // A process killed mid-write can leave a torn last line; start ours on a line of its own.
    if (this.pending !== '') {
      fs.writeSync(this.fd, '\n');
      this.pending = '';
      this.catchUp();
    }
  }

  /**
   * Counted at once (this turn's reservations count it), written with everything else asked for
   * in this turn of the event loop: one write(2) for the turn. The promise resolves once the line
   * is in the file, so a reply that waits for it is never answered before its usage is recorded.
   */
  record(entry: UsageRecord): Promise<void> {
    let line = `${JSON.stringify(entry)}\n`;
    this.buckets.add(entry);
    if (entry.requestId) {
      const lease = this.leases.settle(entry.requestId, entry.inputTokens + entry.outputTokens);
      if (lease) {
        // Admitted under a lease: the lease holds what the request used less, for every process reading the line.
        this.held.shrink(lease.id, entry.inputTokens + entry.outputTokens);
        line = `${line.slice(0, -2)},"lease":${JSON.stringify(lease.id)}}\n`;
      }
      // The record is the settlement: other processes drop the reservation when they read it.
      else this.held.delete(entry.requestId);
      this.waitingIds.push(entry.requestId);
    }
    this.waitingLines += line;
    this.waitingCount++;
    return this.turnWritten();
  }

  /** The promise of this turn's write, made once per turn and shared by every record of it. */
  private turnWritten(): Promise<void> {
    this.flushScheduled ??= setImmediate(this.flushTurn);
    if (!this.turn) {
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<void>((yes, no) => ((resolve = yes), (reject = no)));
      this.turn = { promise, resolve, reject };
    }
    return this.turn.promise;
  }

  /**
   * Every process appends to one file with O_APPEND, so the file itself orders their
   * reservations, and a reservation counts everything above its own line. Reservations asked for
   * in one turn of the event loop are decided together, in order, and written with one write and
   * one fstat: decide from what is known, append, and check that no other process appended
   * meanwhile. When one did, read its lines and decide each again against the reservations above
   * its own line; one that no longer fits is taken back (a release line) and tried again. Lines
   * below ours were decided by processes that counted ours, so what is used and held never passes
   * the cap. A record made while reservations wait goes in the same write, ahead of their lines,
   * and they are decided as if it were counted already.
   */
  reserve(request: ReserveRequest): Promise<Reservation> {
    const now = request.now ?? Date.now();
    const leased = this.leases.admit(request, now);
    if (leased !== undefined) {
      // Admitted here, from this process's lease: nothing to write, nothing to read.
      const { developer } = request;
      const reserved = this.held.total(developer, now) - this.leases.slack(developer) - leased;
      return Promise.resolve({ granted: true, tokens: leased, used: this.buckets.totalTokens(developer, now), reserved });
    }
    return new Promise((resolve, reject) => {
      this.asked.push({ request, now, attempt: 0, resolve, reject });
      this.flushScheduled ??= setImmediate(this.flushTurn);
    });
  }

  /** Writes what this turn asked for: its records and releases, then its reservations, in one write. */
  private readonly flushTurn = (): void => {
    this.flushScheduled = undefined;
    const batch = this.asked;
    this.asked = [];
    const turn = this.turn;
    this.turn = undefined;
    const waiting: Waiting = { lines: this.waitingLines, count: this.waitingCount, ids: this.waitingIds, releases: this.waitingReleases, kept: [] };
    this.giveBackLeases(waiting);
    this.waitingLines = '';
    this.waitingCount = 0;
    this.waitingIds = [];
    this.waitingReleases = [];
    let written = false;
    try {
      this.reserveBatch(batch, waiting, () => {
        written = true;
        turn?.resolve();
      });
    } catch (error) {
      // Unwritten records are their callers' failure; a failure reading back after them concerns the reservations.
      if (!written) turn?.reject(error);
      for (const asked of batch) asked.reject(error);
    }
    if (!written) turn?.resolve();
  };

  /**
   * Decides a batch of reservations and writes them, with `waiting` (records and releases, already
   * counted) ahead of them in the same write; `onWritten` is told once that write is done. Throws
   * when the write fails and records were in it.
   */
  private reserveBatch(batch: AskedReservation[], waiting: Waiting, onWritten: () => void): void {
    const written: Array<{ asked: AskedReservation; held: Held; reservation: Reservation }> = [];
    let lines = '';
    let caughtUp = false;
    if (this.options.leases && (batch.length >= LEASE_AFTER || this.renewing.size) && !this.closing) {
      // A lease may be taken in this write: size it, and decide the turn's reservations, from the
      // file as it stands rather than from what this process last read of it.
      this.catchUp();
      caughtUp = true;
    }
    for (const asked of batch) {
      const { request, now } = asked;
      let reservation = this.decide(request, now);
      if (reservation.tokens < Math.max(request.tokens, request.minimum) && !caughtUp) {
        // What this process knows may be stale by other processes' releases and settlements:
        // look before refusing or cutting a reservation short.
        this.catchUp();
        caughtUp = true;
        reservation = this.decide(request, now);
      }
      if (!reservation.granted) {
        asked.resolve(reservation);
        continue;
      }
      const held: Held = { developer: request.developer, tokens: reservation.tokens, until: now + request.ttlMs, seq: 0 };
      // Held at once, so the next reservation of the batch counts it.
      this.held.set(request.requestId, held);
      lines += reserveLine(request.requestId, held);
      written.push({ asked, held, reservation });
    }
    lines += this.askLeases(batch, written);
    if (!written.length && !waiting.count) return;
    const text = waiting.lines + lines;
    try {
      fs.writeSync(this.fd, text);
    } catch (error) {
      for (const { asked } of written) {
        this.held.delete(asked.request.requestId);
        asked.reject(error);
      }
      // Unwritten, a release still lapses at its time-to-live; unwritten records are their callers' failure.
      if (waiting.count > waiting.releases.length) throw error;
      return;
    }
    this.ownBytes += Buffer.byteLength(text);
    this.ownLines += waiting.count + written.length;
    for (const id of waiting.ids) this.ownIds.add(id);
    for (const id of waiting.releases) this.ownReleases.add(id);
    for (const { id } of waiting.kept) this.ownReservations.add(id);
    for (const { asked } of written) this.ownReservations.add(asked.request.requestId);
    onWritten();
    if (!written.length) return;
    this.checkedAt = performance.now();
    if (!this.catchUp()) {
      for (const { held } of waiting.kept) held.seq = ++this.seq;
      for (const { asked, held, reservation } of written) {
        held.seq = ++this.seq;
        asked.resolve(reservation);
      }
      return;
    }
    // Reading the file back placed our lines among theirs (catchUp set each held.seq).
    for (const { asked, held } of written) {
      const { request } = asked;
      const recheck = this.decideAbove(request, asked.now, held.seq, request.requestId);
      if (recheck.granted && recheck.tokens >= held.tokens) {
        asked.resolve({ ...recheck, tokens: held.tokens });
        continue;
      }
      void this.release(request.developer, request.requestId);
      if (!recheck.granted || asked.attempt + 1 >= RACE_RETRIES) asked.resolve({ ...recheck, granted: false, tokens: 0 });
      else {
        this.asked.push({ ...asked, attempt: asked.attempt + 1 });
        this.flushScheduled ??= setImmediate(this.flushTurn);
      }
    }
  }

  /**
   * Leases that stopped admitting are given back in this turn's write: a release line, then a
   * reservation of its own for each request still in flight under it (no more than the lease
   * held, so what is held only drops), ahead of the turn's reservations.
   */
  private giveBackLeases(waiting: Waiting): void {
    for (const lease of this.leases.takeRetired()) {
      // One used up under load is renewed in the same write (see askLeases).
      if (!this.closing) this.renewing.add(lease.developer);
      if (!this.held.delete(lease.id)) continue;
      waiting.lines += `{"release":${JSON.stringify(lease.id)}}\n`;
      waiting.count++;
      waiting.releases.push(lease.id);
      for (const [id, tokens] of lease.grants) {
        const held: Held = { developer: lease.developer, tokens, until: lease.until, seq: 0 };
        this.held.set(id, held);
        waiting.lines += reserveLine(id, held);
        waiting.count++;
        waiting.kept.push({ id, held });
      }
    }
  }

  /**
   * A lease for each developer this turn asked LEASE_AFTER reservations of (a busy router), when
   * it has none and the cap is far: 1/LEASE_SHARE of what is left once the turn's reservations are
   * held, if that holds LEASE_ASKS of the largest ask. Its line is decided and rechecked as any
   * reservation, after the turn's own (never tried again: the next busy turn asks anew). Returns
   * the lines to write.
   */
  private askLeases(batch: AskedReservation[], written: Array<{ asked: AskedReservation; held: Held; reservation: Reservation }>): string {
    const renewing = this.renewing;
    this.renewing = new Set();
    if (!this.options.leases || (batch.length < LEASE_AFTER && !renewing.size)) return '';
    let lines = '';
    const asks = new Map<string, { count: number; largest: number; first: AskedReservation }>();
    for (const asked of batch) {
      const { developer, tokens, minimum } = asked.request;
      const seen = asks.get(developer);
      if (seen) {
        seen.count++;
        seen.largest = Math.max(seen.largest, tokens, minimum);
      } else asks.set(developer, { count: 1, largest: Math.max(tokens, minimum), first: asked });
    }
    for (const [developer, { count, largest, first }] of asks) {
      if (this.closing) break;
      if ((count < LEASE_AFTER && !renewing.has(developer)) || this.leases.has(developer)) continue;
      const { request, now } = first;
      const left = request.capTokens - this.buckets.totalTokens(developer, now) - this.held.total(developer, now);
      const tokens = Math.floor(left / LEASE_SHARE);
      if (tokens < LEASE_ASKS * largest) continue;
      // It outlives the requests it admits: each must end before it lapses (Leases.admit).
      const lease = this.leases.propose(developer, tokens, now + 2 * request.ttlMs);
      const held: Held = { developer, tokens, until: lease.until, seq: 0 };
      this.held.set(lease.id, held);
      lines += reserveLine(lease.id, held);
      const asked: AskedReservation = {
        // Rechecked after a race as asking LEASE_SHARE times itself: at its own line too it is at most that share of what is left.
        request: { developer, requestId: lease.id, capTokens: request.capTokens, minimum: tokens * LEASE_SHARE, tokens: tokens * LEASE_SHARE, ttlMs: 2 * request.ttlMs, now },
        now,
        attempt: RACE_RETRIES - 1,
        resolve: (reservation) => {
          if (reservation.granted) this.leases.start(lease);
        },
        reject: () => undefined,
      };
      written.push({ asked, held, reservation: { granted: true, tokens, used: 0, reserved: 0 } });
    }
    return lines;
  }

  /** Gives the reservation back at once; its release line goes out with this turn's write, which the promise waits for. */
  release(_developer: string, requestId: string): Promise<void> {
    // A leased request's share goes back to the lease: nothing to write.
    if (this.leases.giveBack(requestId) || !this.held.delete(requestId)) return Promise.resolve();
    this.waitingLines += `{"release":${JSON.stringify(requestId)}}\n`;
    this.waitingCount++;
    this.waitingReleases.push(requestId);
    // Resolves once written (unwritten, the reservation still lapses at its time-to-live).
    return this.turnWritten().catch(() => undefined);
  }

  /** The cap's decision against usage (records waiting for this turn's write included) and every live reservation. */
  private decide(request: ReserveRequest, now: number): Reservation {
    return decideReservation(request, this.buckets.totalTokens(request.developer, now), this.held.total(request.developer, now));
  }

  /**
   * The same as the file stands at line `before`: usage and reservations (other than `own`) on the
   * lines above it. A record below it may settle a reservation above it for fewer tokens than were
   * held; at `before` the reservation was still held, so it counts, and the record does not.
   */
  private decideAbove(request: ReserveRequest, now: number, before: number, own: string): Reservation {
    const { developer } = request;
    let used = this.buckets.totalTokens(developer, now);
    let reserved = this.held.totalAbove(developer, now, before, own);
    const firstDay = firstWindowDay(now);
    for (const { seq, entry, settled } of this.lastRead) {
      if (seq < before || entry.developer !== developer) continue;
      if (Math.floor(entry.ts / DAY_MS) >= firstDay) used -= entry.inputTokens + entry.outputTokens;
      if (settled?.developer === developer && settled.seq < before && settled.until > now) reserved += settled.tokens;
    }
    return decideReservation(request, used, reserved);
  }

  async summary(developer: string, now = Date.now(), fresh = false): Promise<UsageSummary> {
    // What this process recorded is written by the time its summary answers (the turn's write), so
    // another process that reads after it counts the same.
    if (this.turn) await this.turn.promise.catch(() => undefined);
    // Other processes' records (another router, the CLI's in-process chat) are looked for at most
    // every RECHECK_MS: a stat per request would cost a system call on the hot path.
    const checked = performance.now();
    if (fresh || checked - this.checkedAt >= RECHECK_MS) {
      this.checkedAt = checked;
      this.catchUp();
    }
    return this.buckets.summary(developer, now);
  }

  async breakdown(now = Date.now()): Promise<UsageRow[]> {
    this.catchUp();
    return this.buckets.breakdown(now);
  }

  async close(): Promise<void> {
    // Leases are given back, their requests in flight kept as reservations of their own (to lapse).
    this.closing = true;
    this.leases.retireAll();
    clearImmediate(this.flushScheduled);
    this.flushTurn();
    fs.closeSync(this.fd);
  }

  /** Reads what other processes appended; whether there was any (one fstat when there was none). */
  private catchUp(): boolean {
    const size = fs.fstatSync(this.fd).size;
    this.lastRead = [];
    if (size === this.offset + this.ownBytes && this.pending === '') {
      // Nobody else wrote: everything past the offset is ours and already counted.
      this.offset = size;
      this.lines += this.ownLines;
      this.ownLines = 0;
      this.ownBytes = 0;
      this.ownIds.clear();
      this.ownReservations.clear();
      this.ownReleases.clear();
      return false;
    }
    if (size <= this.offset) return false;
    const chunk = Buffer.alloc(size - this.offset);
    const read = fs.readSync(this.fd, chunk, 0, chunk.length, this.offset);
    this.offset += read;
    const lines = (this.pending + chunk.toString('utf8', 0, read)).split('\n');
    this.pending = lines.pop() ?? '';
    for (const [index, line] of lines.entries()) {
      this.seq++;
      const read = readLedgerLine(line);
      switch (read.kind) {
        case 'record': {
          const entry = read.record;
          let settled = entry.requestId === undefined ? undefined : this.held.get(entry.requestId);
          if (entry.requestId) this.held.delete(entry.requestId);
          if (entry.requestId && this.ownIds.delete(entry.requestId)) continue;
          this.buckets.add(entry);
          const lease = read.lease === undefined ? undefined : this.held.get(read.lease);
          if (lease) {
            // Another process's lease holds what this request used less (a recheck above the lease counts it back).
            const less = this.held.shrink(read.lease!, entry.inputTokens + entry.outputTokens);
            settled = { ...lease, tokens: less };
          }
          this.lastRead.push({ seq: this.seq, entry, settled });
          continue;
        }
        case 'release':
          if (!this.ownReleases.has(read.id)) this.held.delete(read.id);
          continue;
        case 'reserve':
          this.readReservation(read);
          continue;
        case 'unreadable':
          // Torn by a process killed mid-write, or not ours: skipped (its tokens are unknown), and told.
          this.skipped.skip(this.lines + index + 1, read.problem);
          continue;
        case 'blank':
          continue;
      }
    }
    this.skipped.done();
    this.lines += lines.length;
    this.ownLines = 0;
    this.ownBytes = 0;
    this.ownReservations.clear();
    this.ownReleases.clear();
    return true;
  }

  private readReservation(reserve: { id: string; developer: string; tokens: number; until: number }): void {
    if (this.ownReservations.has(reserve.id)) {
      // Ours is held already (and may be settled already: it must not come back); now we know its place.
      const own = this.held.get(reserve.id);
      if (own) own.seq = this.seq;
      return;
    }
    this.held.set(reserve.id, { developer: reserve.developer, tokens: reserve.tokens, until: reserve.until, seq: this.seq });
  }
}

/** A ReserveLine as JSON text, written without building the object (ids and names as JSON strings). */
export const reserveLine = (id: string, held: Held): string =>
  `{"reserve":{"id":${JSON.stringify(id)},"developer":${JSON.stringify(held.developer)},"tokens":${JSON.stringify(held.tokens)},"until":${JSON.stringify(held.until)}}}\n`;
