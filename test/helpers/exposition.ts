/** GET /metrics read the way Prometheus reads it: the exposition text, parsed line by line. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Record<string, string>;
  help: Record<string, string>;
  samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/gy;

/** Parses the text format strictly: every line must be a comment, blank, or a well-formed sample. */
export function parseExposition(text: string): Exposition {
  const result: Exposition = { types: {}, help: {}, samples: [] };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const comment = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (comment) {
      (comment[1] === 'TYPE' ? result.types : result.help)[comment[2]!] = comment[3]!;
      continue;
    }
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`not an exposition line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    if (sample[2]) {
      LABEL.lastIndex = 0;
      let consumed = 0;
      for (let match = LABEL.exec(sample[2]); match; match = LABEL.exec(sample[2])) {
        labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
        consumed = LABEL.lastIndex;
      }
      if (consumed !== sample[2].length) throw new Error(`bad labels: ${sample[2]}`);
    }
    const value = sample[3] === '+Inf' ? Infinity : Number(sample[3]);
    if (Number.isNaN(value)) throw new Error(`bad value in ${line}`);
    result.samples.push({ name: sample[1]!, labels, value });
  }
  return result;
}

/** The samples alone. */
export const parseSamples = (text: string): Sample[] => parseExposition(text).samples;

/** The one sample with this name and (at least) these labels; 0 when there is none. */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const matches = samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, expected]) => sample.labels[key] === expected));
  if (matches.length > 1) throw new Error(`${matches.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return matches[0]?.value ?? 0;
}
