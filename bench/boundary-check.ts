/**
 * What checking one upstream stream chunk costs, per way of checking it: the project's own field
 * readers (src/backends/<type>/api.ts), zod 4 mini and valibot, on a typical Chat text chunk, a
 * Chat tool-call argument chunk and an Anthropic content_block_delta, with JSON.parse of the same
 * chunk for scale. Not part of `npm test` or `npm run bench`:
 *
 *   npx tsx bench/boundary-check.ts
 *
 * zod and valibot are not dependencies. They are measured when they resolve from this project or
 * from the directory in BOUNDARY_BENCH_DEPS (e.g. one where `npm install zod valibot` was run),
 * and skipped otherwise.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { readAnthropicEvent } from '../src/backends/anthropic/api.js';
import { readChatChunk } from '../src/backends/openai-chat/api.js';

const ROUNDS = 7;
const ITERATIONS = 300_000;

const chatText = JSON.stringify({
  id: 'chatcmpl-BqTEnH9mAb3eV7wTi0DyZj6fGlQr',
  object: 'chat.completion.chunk',
  created: 1751886000,
  model: 'gpt-4o-mini-2024-07-18',
  service_tier: 'default',
  system_fingerprint: 'fp_ee1d74bde0',
  choices: [{ index: 0, delta: { content: ' world' }, logprobs: null, finish_reason: null }],
  usage: null,
});
const chatToolArguments = JSON.stringify({
  id: 'chatcmpl-BqTEnH9mAb3eV7wTi0DyZj6fGlQr',
  object: 'chat.completion.chunk',
  created: 1751886000,
  model: 'gpt-4o-mini-2024-07-18',
  service_tier: 'default',
  system_fingerprint: 'fp_ee1d74bde0',
  choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"loca' } }] }, logprobs: null, finish_reason: null }],
  usage: null,
});
const anthropicDelta = JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' world' } });

type Check = (value: unknown) => unknown;

/** Median nanoseconds per call of `check` over pre-parsed copies of the chunk. */
function measure(json: string, check: Check): number {
  // A pool of separately parsed objects, so no one object's hidden class is all that is seen.
  const pool = Array.from({ length: 64 }, () => JSON.parse(json) as unknown);
  let sink = 0;
  const perRound: number[] = [];
  for (let round = 0; round < ROUNDS + 1; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < ITERATIONS; i++) if (check(pool[i & 63]) !== undefined) sink++;
    const elapsed = Number(process.hrtime.bigint() - started) / ITERATIONS;
    if (round > 0) perRound.push(elapsed); // the first round warms up
  }
  if (sink === -1) console.log(sink);
  perRound.sort((a, b) => a - b);
  return perRound[Math.floor(perRound.length / 2)]!;
}

async function load(specifier: string): Promise<any> {
  const bases = [import.meta.url, ...(process.env.BOUNDARY_BENCH_DEPS ? [pathToFileURL(path.join(path.resolve(process.env.BOUNDARY_BENCH_DEPS), 'package.json')).href] : [])];
  for (const base of bases) {
    try {
      return await import(pathToFileURL(createRequire(base).resolve(specifier)).href);
    } catch {
      // not here; try the next place
    }
  }
  return undefined;
}

function zodChecks(z: any): { chat: Check; anthropic: Check } {
  const usage = z.nullish(
    z.object({
      prompt_tokens: z.nullish(z.number()),
      completion_tokens: z.nullish(z.number()),
      prompt_tokens_details: z.nullish(z.object({ cached_tokens: z.nullish(z.number()) })),
      completion_tokens_details: z.nullish(z.object({ reasoning_tokens: z.nullish(z.number()) })),
    }),
  );
  const chat = z.object({
    id: z.nullish(z.string()),
    choices: z.nullish(
      z.array(
        z.object({
          delta: z.nullish(
            z.object({
              content: z.nullish(z.string()),
              refusal: z.nullish(z.string()),
              reasoning_content: z.nullish(z.string()),
              reasoning: z.nullish(z.string()),
              tool_calls: z.nullish(
                z.array(
                  z.object({
                    index: z.nullish(z.number()),
                    id: z.nullish(z.string()),
                    function: z.nullish(z.object({ name: z.nullish(z.string()), arguments: z.nullish(z.string()) })),
                  }),
                ),
              ),
            }),
          ),
          finish_reason: z.nullish(z.string()),
        }),
      ),
    ),
    usage,
  });
  const anthropic = z.object({
    type: z.literal('content_block_delta'),
    index: z.number(),
    delta: z.object({
      type: z.string(),
      text: z.optional(z.string()),
      thinking: z.optional(z.string()),
      signature: z.optional(z.string()),
      partial_json: z.optional(z.string()),
    }),
  });
  return { chat: (value) => chat.safeParse(value).data, anthropic: (value) => anthropic.safeParse(value).data };
}

function valibotChecks(v: any): { chat: Check; anthropic: Check } {
  const usage = v.nullish(
    v.object({
      prompt_tokens: v.nullish(v.number()),
      completion_tokens: v.nullish(v.number()),
      prompt_tokens_details: v.nullish(v.object({ cached_tokens: v.nullish(v.number()) })),
      completion_tokens_details: v.nullish(v.object({ reasoning_tokens: v.nullish(v.number()) })),
    }),
  );
  const chat = v.object({
    id: v.nullish(v.string()),
    choices: v.nullish(
      v.array(
        v.object({
          delta: v.nullish(
            v.object({
              content: v.nullish(v.string()),
              refusal: v.nullish(v.string()),
              reasoning_content: v.nullish(v.string()),
              reasoning: v.nullish(v.string()),
              tool_calls: v.nullish(
                v.array(
                  v.object({
                    index: v.nullish(v.number()),
                    id: v.nullish(v.string()),
                    function: v.nullish(v.object({ name: v.nullish(v.string()), arguments: v.nullish(v.string()) })),
                  }),
                ),
              ),
            }),
          ),
          finish_reason: v.nullish(v.string()),
        }),
      ),
    ),
    usage,
  });
  const anthropic = v.object({
    type: v.literal('content_block_delta'),
    index: v.number(),
    delta: v.object({
      type: v.string(),
      text: v.optional(v.string()),
      thinking: v.optional(v.string()),
      signature: v.optional(v.string()),
      partial_json: v.optional(v.string()),
    }),
  });
  return { chat: (value) => v.safeParse(chat, value).output, anthropic: (value) => v.safeParse(anthropic, value).output };
}

const zod = await load('zod/mini');
const valibot = await load('valibot');
const ways: Array<[string, { chat: Check; anthropic: Check } | undefined]> = [
  ['own readers (api.ts)', { chat: (value) => readChatChunk('bench', value), anthropic: (value) => readAnthropicEvent('bench', value) }],
  ['zod/mini', zod && zodChecks(zod.z ?? zod)],
  ['valibot', valibot && valibotChecks(valibot)],
];

const rows: string[][] = [['check', 'chat text chunk', 'chat tool-call chunk', 'anthropic content_block_delta']];
rows.push(['JSON.parse (for scale)', ...[chatText, chatToolArguments, anthropicDelta].map((json) => `${measure(json, () => JSON.parse(json)).toFixed(0)} ns`)]);
for (const [label, checks] of ways) {
  if (!checks) {
    rows.push([label, 'not installed', '', '']);
    continue;
  }
  rows.push([
    label,
    `${measure(chatText, checks.chat).toFixed(0)} ns`,
    `${measure(chatToolArguments, checks.chat).toFixed(0)} ns`,
    `${measure(anthropicDelta, checks.anthropic).toFixed(0)} ns`,
  ]);
}
const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
for (const row of rows) console.log(row.map((cell, column) => cell.padEnd(widths[column]!)).join('  '));
console.log(`\nmedian of ${ROUNDS} rounds of ${ITERATIONS} checks each, Node ${process.version}`);
