import type { ProviderMetadata } from '../core/provider-metadata.js';
import type { Usage } from '../core/reply.js';
import type { RequestTrace } from '../core/request-record.js';
import type { StreamEvent } from '../core/stream-events.js';
import type { SvcMeta } from '../formats/client-format.js';
import type { Admission, Policy, PolicyInput } from './policy.js';

/**
 * Runs the policies in order. A policy that admits with nothing to do later adds nothing; one
 * that refuses (throws) has every admission made before it released, and the refusal goes on to
 * the client. A synchronous admission costs no promise: only a policy that returns one is awaited.
 * Each admission's note goes into the request record (`trace.notes`) under the policy's name.
 */
export function admitAll(policies: readonly Policy[], input: PolicyInput, trace?: RequestTrace): Admissions | Promise<Admissions> {
  const admissions = new Admissions(trace);
  try {
    for (let i = 0; i < policies.length; i++) {
      const policy = policies[i]!;
      const admitted = policy.admit(input);
      if (admitted instanceof Promise) return admitFrom(policies, i, admitted, input, admissions);
      if (admitted) admissions.add(policy.name, admitted);
    }
  } catch (error) {
    admissions.release();
    throw error;
  }
  return admissions;
}

/** The policies that also run on token counts, in order (worked out once per list). */
export function countingPolicies(policies: readonly Policy[]): readonly Policy[] {
  let counting = countingByList.get(policies);
  if (!counting) countingByList.set(policies, (counting = policies.filter((policy) => policy.onCounts)));
  return counting;
}

const countingByList = new WeakMap<readonly Policy[], readonly Policy[]>();

/** The rest of admitAll, from the first policy that answered with a promise. */
async function admitFrom(policies: readonly Policy[], index: number, pending: Promise<Admission | undefined>, input: PolicyInput, admissions: Admissions): Promise<Admissions> {
  try {
    const first = await pending;
    if (first) admissions.add(policies[index]!.name, first);
    for (let i = index + 1; i < policies.length; i++) {
      const policy = policies[i]!;
      const answer = policy.admit(input);
      const admitted = answer instanceof Promise ? await answer : answer;
      if (admitted) admissions.add(policy.name, admitted);
    }
  } catch (error) {
    admissions.release();
    throw error;
  }
  return admissions;
}

/**
 * What the policies admitted a request with. The pipeline settles them all once, when the
 * request's usage is recorded, or releases them all once, when it fails first; never both.
 */
export class Admissions {
  /** The reply's headers from every admission, in policy order; undefined when none has any. */
  headers: Record<string, string> | undefined;
  /** Whether an admission reads the reply: then it is translated, never forwarded, and each batch is shown to it. */
  inspects = false;
  private readonly list: Admission[] = [];
  private done = false;

  constructor(private readonly trace: RequestTrace | undefined) {}

  add(name: string, admission: Admission): void {
    this.list.push(admission);
    if (admission.headers) this.headers = this.headers ? { ...this.headers, ...admission.headers } : admission.headers;
    if (admission.inspect) this.inspects = true;
    if (admission.note !== undefined && this.trace) (this.trace.notes ??= {})[name] = admission.note;
  }

  /** Settles every admission; a promise when one of them must be waited for before the reply is finished. */
  settle(usage: Usage, costNanoUsd: number | undefined, report: SvcMeta): Promise<void> | undefined {
    if (this.done) return undefined;
    this.done = true;
    let written: Promise<void> | undefined;
    for (const admission of this.list) {
      const answer = admission.settle?.(usage, costNanoUsd, report);
      if (answer) written = written ? Promise.all([written, answer]).then(() => undefined) : answer;
    }
    return written;
  }

  release(): void {
    if (this.done) return;
    this.done = true;
    for (const admission of this.list) admission.release?.();
  }

  /**
   * Shows a batch of the reply to every admission that reads it (call only when `inspects`); a
   * promise when one of them holds the batch, settled once every one that holds it is done.
   */
  inspect(batch: readonly StreamEvent[]): void | Promise<void> {
    let held: Array<Promise<void>> | undefined;
    for (const admission of this.list) {
      const answer = admission.inspect?.(batch);
      if (answer instanceof Promise) (held ??= []).push(answer);
    }
    if (held) return held.length === 1 ? held[0] : Promise.all(held).then(() => undefined);
  }

  /** The reply's end metadata with what each admission adds to it, in policy order. */
  amendFinish(providerMetadata: ProviderMetadata | undefined): ProviderMetadata | undefined {
    let amended = providerMetadata;
    for (const admission of this.list) if (admission.amendFinish) amended = admission.amendFinish(amended);
    return amended;
  }

  /** The batch with its `finish` event amended (the same batch when it has none). */
  amended(batch: StreamEvent[]): StreamEvent[] {
    const at = batch.findIndex((event) => event.type === 'finish');
    if (at === -1) return batch;
    const finish = batch[at] as Extract<StreamEvent, { type: 'finish' }>;
    const providerMetadata = this.amendFinish(finish.providerMetadata);
    if (providerMetadata === finish.providerMetadata) return batch;
    const copy = batch.slice();
    copy[at] = providerMetadata ? { ...finish, providerMetadata } : finish;
    return copy;
  }
}

/**
 * A batch in the pieces an inspecting policy is shown: the events before a `finish`, then the
 * `finish` and what follows it, so a policy that holds the reply's end holds nothing before it.
 */
export function splitAtFinish(batch: StreamEvent[]): StreamEvent[][] {
  const at = batch.findIndex((event) => event.type === 'finish');
  return at <= 0 ? [batch] : [batch.slice(0, at), batch.slice(at)];
}
