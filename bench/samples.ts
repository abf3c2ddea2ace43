import type { LatencyResult } from './latency-client.js';
import type { ThroughputSample } from './measure.js';

/**
 * What was measured: the router on a path (`baseline`: the router built from the `--against` ref),
 * or the bare proxy / the upstream itself for an upstream format.
 */
export type Subject = { kind: 'router' | 'baseline'; path: string } | { kind: 'bare' | 'direct'; upstream: string };

export interface RoundSamples {
  throughput?: ThroughputSample;
  latency?: LatencyResult;
}

/** Every round's measurements, by subject and streaming mode; round i of one subject pairs with round i of another. */
export class Samples {
  private readonly rounds = new Map<string, RoundSamples[]>();

  private key(subject: Subject, stream: boolean): string {
    const name = 'path' in subject ? subject.path : subject.upstream;
    return `${subject.kind}:${name}:${stream ? 'stream' : 'json'}`;
  }

  record(subject: Subject, stream: boolean, round: number, sample: RoundSamples): void {
    const key = this.key(subject, stream);
    const list = this.rounds.get(key) ?? [];
    list[round] = { ...list[round], ...sample };
    this.rounds.set(key, list);
  }

  get(subject: Subject, stream: boolean): RoundSamples[] {
    return this.rounds.get(this.key(subject, stream)) ?? [];
  }
}
