/** The Prometheus text format, parsed into samples (names, labels, values) for tests to read. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/gy;

export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`not an exposition line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    if (sample[2]) {
      LABEL.lastIndex = 0;
      for (let match = LABEL.exec(sample[2]); match; match = LABEL.exec(sample[2])) labels[match[1]!] = match[2]!;
    }
    samples.push({ name: sample[1]!, labels, value: sample[3] === '+Inf' ? Infinity : Number(sample[3]) });
  }
  return samples;
}

/** The one sample with this name and (at least) these labels; 0 when there is none. */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const matches = samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, expected]) => sample.labels[key] === expected));
  if (matches.length > 1) throw new Error(`${matches.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return matches[0]?.value ?? 0;
}
