/**
 * Child process of the per-frame measurement (frame-taps.ts): loads the same-format taps of each
 * build whose `dist/` is named in argv (this build first, then the ref's) and prints, as one JSON
 * line, the CPU nanoseconds one frame costs each build's tap, measured in alternating blocks in
 * one pinned process so load from neighbours falls on all builds alike; JSON.parse of the same
 * frame and (where the first build has it) the frame check alone beside them.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

interface StreamTap {
  read(frame: { event?: string; data: string }): unknown;
}
interface ForwardTap {
  stream(backend: string, request: unknown): StreamTap;
}

/** Typical frames, as the providers send them: text deltas, most of any stream. */
const CHAT_DELTA = JSON.stringify({
  id: 'chatcmpl-bench0000000000000000000002',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model: 'gpt-4o-2024-08-06',
  service_tier: 'default',
  system_fingerprint: 'fp_bench',
  choices: [{ index: 0, delta: { content: ' quick' }, logprobs: null, finish_reason: null }],
  usage: null,
});
const ANTHROPIC_DELTA = JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' quick' } });
const RESPONSES_DELTA = JSON.stringify({ type: 'response.output_text.delta', sequence_number: 12, item_id: 'msg_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654', output_index: 0, content_index: 0, delta: ' quick', logprobs: [], obfuscation: 'x3f' });
/** A 4 KiB delta (as the big-answer test streams): the cost per character of text. */
const CHAT_4K = CHAT_DELTA.replace('" quick"', JSON.stringify(`${'x'.repeat(4095)} `));

const FRAMES = [
  { name: 'chat delta', tap: 'openai-chat', frame: { data: CHAT_DELTA } },
  { name: 'chat delta 4 KiB', tap: 'openai-chat', frame: { data: CHAT_4K } },
  { name: 'anthropic content_block_delta', tap: 'anthropic', frame: { event: 'content_block_delta', data: ANTHROPIC_DELTA } },
  { name: 'responses output_text.delta', tap: 'openai-responses', frame: { event: 'response.output_text.delta', data: RESPONSES_DELTA } },
] as const;

/**
 * A stream's deltas differ in their text (and Responses' in their sequence number): a tap reads
 * them in turn, as it reads a stream, so nothing it keeps from one frame to the next is measured
 * on identical text.
 */
const WORDS = [' quick', ' brown', ' jumps', ' lazy.', ' over', ' the', ' dog', ' fox'];
function inTurn(frame: { event?: string; data: string }): Array<{ event?: string; data: string }> {
  // The first six characters of the delta's text take another word (the 4 KiB one keeps its length).
  const text = /("(?:content|text|delta)":")(.{6})/;
  return WORDS.map((word, i) => ({ ...frame, data: frame.data.replace(text, (_, key: string) => key + word.padEnd(6)).replace('"sequence_number":12', `"sequence_number":${12 + i}`) }));
}

/** CPU time now, in nanoseconds. */
function cpuNs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
}

/** CPU nanoseconds per call of each function, in short blocks taken in turn (so a neighbour's burst hits all alike), median of the blocks. */
function nsPerCall(fns: Array<() => unknown>, blocks = 24, blockMs = 5): number[] {
  for (const fn of fns) for (let i = 0; i < 20_000; i++) fn();
  // Calls per block, sized on the first function.
  let calls = 1_000;
  for (const start = cpuNs(); cpuNs() - start < blockMs * 1e6; ) for (let i = 0; i < 1_000; i++) fns[0]!();
  const per = fns.map(() => [] as number[]);
  const probe = cpuNs();
  for (let i = 0; i < calls; i++) fns[0]!();
  calls = Math.max(100, Math.round((calls * blockMs * 1e6) / Math.max(1, cpuNs() - probe)));
  for (let block = 0; block < blocks; block++) {
    fns.forEach((fn, f) => {
      const start = cpuNs();
      for (let i = 0; i < calls; i++) fn();
      per[f]!.push((cpuNs() - start) / calls);
    });
  }
  return per.map((values) => values.sort((x, y) => x - y)[values.length >> 1]!);
}

async function main(): Promise<void> {
  const builds = await Promise.all(process.argv.slice(2).map((dist) => loadBuild(path.resolve(dist))));
  const request = { model: 'm', system: [], messages: [], tools: [] };
  const rows = FRAMES.map(({ name, tap, frame }) => {
    const readers = builds.map((build) => build.taps[tap]?.stream('bench', request));
    // Every build's tap in the same blocks, each reading the stream's frames in turn; the frame check and JSON.parse once, for scale.
    const frames = inTurn(frame);
    const taps = nsPerCall(
      readers.map((reader) => {
        let next = 0;
        return reader ? () => reader.read(frames[next++ & 7]!) : () => undefined;
      }),
    );
    const check = builds[0]!.check;
    const [parse, checked] = nsPerCall([() => JSON.parse(frame.data), check ? () => check(frame.data) : () => undefined], 8);
    return { frame: name, bytes: Buffer.byteLength(frame.data), tap_ns: taps.map((ns, i) => (readers[i] ? ns : null)), check_ns: check ? checked : null, parse_ns: parse };
  });
  process.stdout.write(`${JSON.stringify(rows)}\n`);
}

/** A build's taps and frame check, from its dist/ (a build that lacks one has undefined there). */
async function loadBuild(dist: string) {
  const load = async <T>(file: string): Promise<T | undefined> => {
    try {
      return (await import(pathToFileURL(path.join(dist, file)).href)) as T;
    } catch {
      return undefined;
    }
  };
  const taps: Record<string, ForwardTap | undefined> = {
    'openai-chat': (await load<{ chatForwardTap: ForwardTap }>('backends/openai-chat/forward-tap.js'))?.chatForwardTap,
    anthropic: (await load<{ anthropicForwardTap: ForwardTap }>('backends/anthropic/forward-tap.js'))?.anthropicForwardTap,
    'openai-responses': (await load<{ responsesForwardTap: ForwardTap }>('backends/openai-responses/forward-tap.js'))?.responsesForwardTap,
  };
  return { taps, check: (await load<{ isJsonObject: (text: string) => boolean }>('core/json-check.js'))?.isJsonObject };
}

void main();
