import type { Redis } from 'ioredis';
import type { UsageRecord } from './ledger.js';

/**
 * How long one write waits for a replica to say it has it (WAIT). A connected replica answers the
 * primary's GETACK within a round trip; past this the records stay held, not lost.
 */
export const REPLICA_WAIT_MS = 100;
/** After a WAIT no replica answered, the next one waits this long: WAIT holds the connection, and a primary without replicas would hold it on every write. */
const QUIET_AFTER_NO_REPLICA_MS = 2_000;
/** Held records kept at most (the same bound as the queue); past it the oldest are only in Redis and the outbox. */
const MAX_HELD = 100_000;

/**
 * Replication from a Redis primary to its replicas is asynchronous: a write the primary has
 * answered is lost if the primary dies before a replica has it, and Sentinel then promotes that
 * replica. So, through sentinels, a usage record counts as written only once a replica confirmed
 * it (WAIT 1, which covers every earlier write on the connection): until then it stays here and in
 * the outbox. On every new connection (after a failover, to the promoted replica) the held records
 * are written again before anything else; Redis applies each request id once, so one the new
 * primary already has adds nothing, and one it lost is counted now. With one server (redis://)
 * there is no replica to wait for, and nothing is held.
 */
export class ReplicaConfirmations {
  /** Applied by the primary this connection is on; not yet known to be on a replica. */
  private held: UsageRecord[] = [];
  /** Held on an earlier connection: written again first. */
  private resend: UsageRecord[] = [];
  private quietUntil = 0;
  private warned = false;

  constructor(
    private readonly redis: Redis,
    private readonly enabled: boolean,
    private readonly log: (message: string) => void,
  ) {}

  /** Records to write again before the queue (taken: the caller writes them, then calls `written`). */
  takeResend(): UsageRecord[] {
    const records = this.resend;
    this.resend = [];
    return records;
  }

  /** Puts records back when writing them again failed (the connection is gone again). */
  unsent(records: UsageRecord[]): void {
    this.resend.unshift(...records);
  }

  /** A batch the primary applied: held until a replica confirms it, which this asks for. */
  async written(batch: readonly UsageRecord[], now = Date.now()): Promise<void> {
    if (!this.enabled) return;
    this.held.push(...batch);
    if (this.held.length > MAX_HELD) this.held.splice(0, this.held.length - MAX_HELD);
    if (now < this.quietUntil) return;
    let replicas: number;
    try {
      replicas = await this.redis.wait(1, REPLICA_WAIT_MS);
    } catch {
      return; // the connection went: held, and written again on the next one
    }
    if (replicas >= 1) {
      this.held = [];
      if (this.warned) this.log('a usage-store replica confirms usage writes again.');
      this.warned = false;
      return;
    }
    this.quietUntil = now + QUIET_AFTER_NO_REPLICA_MS;
    if (!this.warned) this.log('no usage-store replica confirmed the last usage writes; they stay in the outbox until one does, so a failover cannot lose them.');
    this.warned = true;
  }

  /** A new connection, perhaps to a promoted replica: what the old primary held unconfirmed is written again. */
  reconnected(): void {
    this.resend.push(...this.held);
    this.held = [];
    this.quietUntil = 0;
  }

  /** Everything not known to be safe on a replica (what the outbox must keep). */
  get pending(): UsageRecord[] {
    return [...this.resend, ...this.held];
  }

  get empty(): boolean {
    return this.resend.length === 0 && this.held.length === 0;
  }
}
