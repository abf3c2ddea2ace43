/**
 * Soak test: many requests over every client format, streamed and not, against fake upstreams of
 * every kind, watching the router's memory. Exits non-zero if any request fails or if resident
 * memory grows by more than 10 % between the end of the warm-up and the end of the run.
 *
 *   npm run soak -- [--requests N] [--duration-s S] [--concurrency C] [--warmup W]
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startAnthropicUpstream } from '../test/fakes/anthropic-upstream.js';
import type { FakeUpstream } from '../test/fakes/fake-server.js';
import { startOpenAIChatUpstream } from '../test/fakes/openai-chat-upstream.js';
import { startOpenAIResponsesUpstream } from '../test/fakes/openai-responses-upstream.js';
import type { ScriptedTurn } from '../test/fakes/scripted-turn.js';
import { startRouter } from '../test/helpers/router.js';

const MAX_GROWTH = 0.1;

interface Options {
  requests: number;
  durationS: number;
  concurrency: number;
  warmup: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { requests: 5_000, durationS: 600, concurrency: 16, warmup: 0 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = Number(argv[i + 1]);
    const take = (name: keyof Options, min: number) => {
      if (!Number.isFinite(value) || value < min) throw new Error(`${flag} needs a number of at least ${min}`);
      options[name] = Math.floor(value);
      i++;
    };
    if (flag === '--requests') take('requests', 1);
    else if (flag === '--duration-s') take('durationS', 1);
    else if (flag === '--concurrency') take('concurrency', 1);
    else if (flag === '--warmup') take('warmup', 0);
    else throw new Error(`unknown option ${flag} (expected --requests, --duration-s, --concurrency, --warmup)`);
  }
  if (!options.warmup) options.warmup = Math.min(1_000, Math.max(1, Math.floor(options.requests / 10)));
  return options;
}

/** A full collection, when the flag can be turned on at run time (it can in V8). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  gc?.();
  gc?.();
}

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** Varied turns: plain text, tool calls, reasoning, long and short. */
function turn(index: number): ScriptedTurn {
  switch (index % 4) {
    case 0:
      return { text: `Answer number ${index}: ${'lorem ipsum '.repeat(20)}`, usage: { input: 40, output: 60 } };
    case 1:
      return { toolCalls: [{ name: 'weather', arguments: { city: `City ${index}` } }], usage: { input: 50, output: 12 } };
    case 2:
      return { reasoning: { text: 'Thinking it through. '.repeat(5) }, text: 'Done.', usage: { input: 30, output: 40 } };
    default:
      return { text: '✓ ünïcödé 👋🏽 '.repeat(10), chunkSize: 3 };
  }
}

const FORMATS = ['chat', 'messages', 'responses'] as const;
type Format = (typeof FORMATS)[number];

function request(format: Format, model: string, stream: boolean, index: number): { path: string; body: unknown } {
  const text = `Request ${index}: what is the weather?`;
  const tools = [{ name: 'weather', description: 'Weather by city', schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
  switch (format) {
    case 'chat':
      return {
        path: '/v1/chat/completions',
        body: {
          model,
          stream,
          ...(stream ? { stream_options: { include_usage: true } } : {}),
          messages: [{ role: 'user', content: text }],
          tools: tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.schema } })),
        },
      };
    case 'messages':
      return {
        path: '/v1/messages',
        body: { model, stream, max_tokens: 512, messages: [{ role: 'user', content: text }], tools: tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.schema })) },
      };
    case 'responses':
      return {
        path: '/v1/responses',
        body: { model, stream, input: text, tools: tools.map((tool) => ({ type: 'function', name: tool.name, description: tool.description, parameters: tool.schema })) },
      };
  }
}

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  const script = (_body: unknown, index: number) => turn(index);
  const fakes: FakeUpstream[] = [await startOpenAIChatUpstream(script), await startAnthropicUpstream(script), await startOpenAIResponsesUpstream(script)];
  const router = await startRouter({ capTokens: 1_000_000_000 });
  const skus = ['svc.intelligent-basic', 'svc.intelligent-pro', 'svc.intelligent-lite'];
  router.config.update((settings) => {
    const types = ['openai-chat', 'anthropic', 'openai-responses'] as const;
    types.forEach((type, i) => {
      settings.backends[`soak-${type}`] = { type, baseUrl: fakes[i]!.url, apiKey: 'sk-soak-upstream' };
      settings.routes[skus[i]!] = [`soak-${type}:soak-model`];
    });
  });
  const headers = (format: Format): Record<string, string> =>
    format === 'messages'
      ? { 'x-api-key': router.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }
      : { authorization: `Bearer ${router.key}`, 'content-type': 'application/json' };

  const deadline = performance.now() + options.durationS * 1000;
  const failures: string[] = [];
  let next = 0;
  let done = 0;
  let baseline: NodeJS.MemoryUsage | undefined;
  let warmedUp: () => void;
  const warm = new Promise<void>((resolve) => (warmedUp = resolve));

  async function worker(): Promise<void> {
    for (;;) {
      // Stop handing out requests at the warm-up boundary until the baseline is taken.
      if (next === options.warmup && !baseline) await warm;
      if (next >= options.requests || performance.now() > deadline) return;
      const index = next++;
      const format = FORMATS[index % 3]!;
      const model = skus[Math.floor(index / 3) % 3]!;
      const stream = Math.floor(index / 9) % 2 === 0;
      const { path, body } = request(format, model, stream, index);
      try {
        const response = await fetch(`${router.origin}${path}`, { method: 'POST', headers: headers(format), body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
        const text = await response.text();
        const complete = !stream || (format === 'chat' ? text.includes('data: [DONE]') : format === 'messages' ? text.includes('event: message_stop') : text.includes('event: response.completed'));
        if (response.status !== 200 || !complete) failures.push(`#${index} ${format} ${model}${stream ? ' stream' : ''}: ${response.status} ${text.slice(0, 200)}`);
      } catch (error) {
        failures.push(`#${index} ${format} ${model}${stream ? ' stream' : ''}: ${(error as Error).message}`);
      }
      done++;
      // The fakes keep every request they saw; that is the harness, not the router, so drop it.
      if (done % 100 === 0) for (const fake of fakes) fake.requests.length = 0;
      if (done === options.warmup) {
        // Let the other workers finish their warm-up requests before measuring.
        while (done < next) await new Promise((resolve) => setImmediate(resolve));
        for (const fake of fakes) fake.requests.length = 0;
        collectGarbage();
        baseline = process.memoryUsage();
        console.log(`after ${done} warm-up requests: rss ${mib(baseline.rss)}, heap used ${mib(baseline.heapUsed)}`);
        warmedUp!();
      }
    }
  }

  const started = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, () => worker()));
  const seconds = (performance.now() - started) / 1000;
  for (const fake of fakes) fake.requests.length = 0;
  collectGarbage();
  const end = process.memoryUsage();
  const usage = await router.app.ledger.summary('alice');

  await router.close();
  await Promise.all(fakes.map((fake) => fake.close()));

  console.log(`${done} requests in ${seconds.toFixed(1)} s (${(done / seconds).toFixed(0)}/s, concurrency ${options.concurrency}); ${failures.length} failed`);
  console.log(`ledger: ${usage.requests} requests, ${usage.totalTokens} tokens`);
  for (const failure of failures.slice(0, 10)) console.log(`  ${failure}`);
  if (!baseline) {
    console.log('the run ended before the warm-up did; no memory comparison');
    return failures.length ? 1 : 0;
  }
  const growth = (end.rss - baseline.rss) / baseline.rss;
  console.log(`rss: ${mib(baseline.rss)} after warm-up → ${mib(end.rss)} at the end (${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)} %)`);
  console.log(`heap used: ${mib(baseline.heapUsed)} → ${mib(end.heapUsed)}`);
  let status = 0;
  if (failures.length) status = 1;
  if (usage.requests !== done) {
    console.log(`the ledger recorded ${usage.requests} requests for ${done} served`);
    status = 1;
  }
  if (growth > MAX_GROWTH) {
    console.log(`rss grew by more than ${MAX_GROWTH * 100} % after the warm-up`);
    status = 1;
  }
  return status;
}

main().then(
  (status) => process.exit(status),
  (error: unknown) => {
    console.error(error);
    process.exit(2);
  },
);
