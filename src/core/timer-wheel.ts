import { performance } from 'node:perf_hooks';

/**
 * The wheel's resolution. A deadline fires no earlier than asked and at most one tick after it
 * (plus whatever the event loop itself is late by). Per-request deadlines are seconds to minutes
 * long, so 50 ms of lateness is noise, and a tick is cheap: one timer, a map lookup per slot.
 */
export const TICK_MS = 50;

/** What the wheel needs of time: a monotonic clock in ms, and one timer to wake it (injected in tests). */
export interface WheelClock {
  now(): number;
  arm(wake: () => void, ms: number): unknown;
  disarm(timer: unknown): void;
}

const realClock: WheelClock = {
  now: () => performance.now(),
  arm(wake, ms) {
    // Unref'd: a pending deadline never keeps the process alive on its own.
    return setTimeout(wake, ms).unref();
  },
  disarm: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

/** One scheduled deadline: cancel() is O(1) and may be called any number of times, before or after it fires. */
export class Deadline {
  /** The tick it fires at; -1 once it fired or was cancelled. */
  slot = -1;
  /** Neighbours in its slot's list (an intrusive list: unlinking needs no search). */
  prev: Deadline | null = null;
  next: Deadline | null = null;

  constructor(
    private readonly wheel: TimerWheel,
    readonly fire: () => void,
  ) {}

  get pending(): boolean {
    return this.slot !== -1;
  }

  cancel(): void {
    if (this.slot !== -1) this.wheel.unlink(this);
  }
}

/**
 * One timer for every per-request deadline in the process (body reads, upstream totals, verdict
 * waits...), instead of a setTimeout per request per deadline: deadlines sit in coarse slots of
 * `tickMs`, keyed by the absolute tick they are due at, and a single re-armed timer runs while any
 * are pending, emptying each slot whose time has come.
 */
export class TimerWheel {
  private readonly slots = new Map<number, Deadline>();
  private count = 0;
  /** Every slot up to this tick has fired. */
  private processed = 0;
  private timer: unknown = undefined;
  private readonly wake = () => this.tick();

  constructor(
    readonly tickMs = TICK_MS,
    private readonly clock: WheelClock = realClock,
  ) {}

  /** The wheel's clock (performance.now() unless a test gave it another). */
  now(): number {
    return this.clock.now();
  }

  /** Deadlines waiting to fire. */
  get size(): number {
    return this.count;
  }

  /** Calls `fire` once, no sooner than `ms` from now and at most one tick later; cancel() the result to stop it. */
  after(ms: number, fire: () => void): Deadline {
    const deadline = new Deadline(this, fire);
    this.place(deadline, ms);
    return deadline;
  }

  /** Moves a deadline (pending, fired or cancelled) to `ms` from now. */
  reschedule(deadline: Deadline, ms: number): void {
    if (deadline.slot !== -1) this.unlink(deadline);
    this.place(deadline, ms);
  }

  private place(deadline: Deadline, ms: number): void {
    const now = this.clock.now();
    if (this.timer === undefined) {
      // From idle, the wheel starts at the present tick. While it fires (the timer is also unset
      // then) a slot not yet emptied may still be pending: the count says so, and then it goes on.
      if (this.count === 0) this.processed = Math.floor(now / this.tickMs);
      this.arm(now);
    }
    // Rounded up, so it never fires early; and never into a slot already emptied.
    const slot = Math.max(Math.ceil((now + Math.max(0, ms)) / this.tickMs), this.processed + 1);
    const head = this.slots.get(slot);
    deadline.slot = slot;
    deadline.prev = null;
    deadline.next = head ?? null;
    if (head) head.prev = deadline;
    this.slots.set(slot, deadline);
    this.count++;
  }

  /** @internal Takes a pending deadline out of its slot (Deadline.cancel). */
  unlink(deadline: Deadline): void {
    const { prev, next, slot } = deadline;
    if (prev) prev.next = next;
    else if (next) this.slots.set(slot, next);
    else this.slots.delete(slot);
    if (next) next.prev = prev;
    deadline.prev = deadline.next = null;
    deadline.slot = -1;
    if (--this.count === 0) this.stop();
  }

  private arm(now: number): void {
    // To the next slot boundary (already past, when a deadline's callback took long: at once).
    this.timer = this.clock.arm(this.wake, Math.max(1, (this.processed + 1) * this.tickMs - now));
  }

  private stop(): void {
    if (this.timer === undefined) return;
    this.clock.disarm(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    this.timer = undefined;
    const now = this.clock.now();
    const current = Math.floor(now / this.tickMs);
    let failure: { error: unknown } | undefined;
    if (current > this.processed) {
      // After a long stall, visit the slots that exist rather than every tick that passed.
      const due =
        current - this.processed > this.slots.size
          ? [...this.slots.keys()].filter((slot) => slot <= current).sort((a, b) => a - b)
          : undefined;
      const from = this.processed + 1;
      this.processed = current;
      // Every due slot fires; the first error any deadline threw is rethrown after them all.
      const fire = (slot: number) => {
        const failed = this.fireSlot(slot);
        failure ??= failed;
      };
      if (due) for (const slot of due) fire(slot);
      else for (let slot = from; slot <= current; slot++) fire(slot);
    }
    // A timer that woke a little early (timer clocks round to whole ms) just waits for the boundary.
    if (this.count > 0 && this.timer === undefined) this.arm(this.clock.now());
    if (failure) throw failure.error;
  }

  /** Fires every deadline of one slot; one that throws does not stop the others (the first error is rethrown after). */
  private fireSlot(slot: number): { error: unknown } | undefined {
    let deadline: Deadline | null = this.slots.get(slot) ?? null;
    if (!deadline) return undefined;
    this.slots.delete(slot);
    let failure: { error: unknown } | undefined;
    while (deadline) {
      const next: Deadline | null = deadline.next;
      deadline.prev = deadline.next = null;
      deadline.slot = -1;
      this.count--;
      try {
        deadline.fire();
      } catch (error) {
        failure ??= { error };
      }
      deadline = next;
    }
    if (this.count === 0) this.stop();
    return failure;
  }
}

/** The process's wheel, shared by every per-request deadline. */
export const deadlines = new TimerWheel();
