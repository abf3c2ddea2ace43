import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BackendSettings } from '../../src/config/settings.js';
import type { ChatProfileName } from '../../src/core/chat-profiles.js';
import { startChatProvider, type ChatProviderUpstream, type ProviderRules } from '../fakes/providers/chat-provider-server.js';
import { deepseekRules } from '../fakes/providers/deepseek.js';
import { groqRules } from '../fakes/providers/groq.js';
import { startLocalAnthropic, type LocalAnthropicUpstream } from '../fakes/providers/local-anthropic.js';
import { mistralRules } from '../fakes/providers/mistral.js';
import { openrouterRules } from '../fakes/providers/openrouter.js';
import { vllmRules } from '../fakes/providers/vllm.js';
import { xaiRules } from '../fakes/providers/xai.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { configText, makeHome, readConfig, removeHome, runCli } from '../cli/run-cli.js';
import { answerText, CLIENTS, firstRequest, secondRequest, send, shownReasoning, type ClientFormat } from './provider-profiles/clients.js';
import { SKU, UPSTREAM_KEY } from './support.js';

/**
 * The OpenAI-compatible providers users route to, each a fake that behaves as its documentation
 * says (test/fakes/providers/): every client format runs a two-turn tool loop through each, streamed
 * and not, and the reasoning comes back to the provider as it requires; fields a provider refuses
 * never reach it, and each left out is named in svc_meta.warnings.
 */

interface ProviderCase {
  name: string;
  rules: ProviderRules;
  profile?: ChatProfileName;
  upstreamModel: string;
  /** The reasoning the first reply shows its client, if the provider reasons. */
  shown?: string;
  /** What the provider must get back on the replayed assistant message of the second request. */
  replayed?: (assistant: Record<string, any>, fake: ChatProviderUpstream) => void;
}

const PROVIDERS: ProviderCase[] = [
  {
    name: 'OpenRouter',
    rules: openrouterRules,
    profile: 'openrouter',
    upstreamModel: 'anthropic/claude-sonnet-4.5',
    shown: 'router thought 1',
    replayed: (assistant, fake) => expect(assistant.reasoning_details).toEqual(fake.produced[0]!.fields.reasoning_details),
  },
  {
    name: 'DeepSeek',
    rules: deepseekRules,
    profile: 'deepseek',
    upstreamModel: 'deepseek-reasoner',
    shown: 'deepseek thought 1',
    replayed: (assistant) => expect(assistant.reasoning_content).toBe('deepseek thought 1'),
  },
  { name: 'vLLM (reasoning_content)', rules: vllmRules('reasoning_content'), upstreamModel: 'Qwen/Qwen3-8B', shown: 'qwen thought 1' },
  { name: 'vLLM (reasoning)', rules: vllmRules('reasoning'), upstreamModel: 'Qwen/Qwen3-8B', shown: 'qwen thought 1' },
  { name: 'Groq', rules: groqRules, profile: 'groq', upstreamModel: 'openai/gpt-oss-20b' },
  { name: 'Mistral', rules: mistralRules, profile: 'mistral', upstreamModel: 'mistral-large-latest' },
  { name: 'xAI', rules: xaiRules, profile: 'xai', upstreamModel: 'grok-3-mini', shown: 'grok thought 1' },
];

let router: TestRouter;
const open: ChatProviderUpstream[] = [];
beforeAll(async () => {
  router = await startRouter();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((fake) => fake.close()));
});
afterAll(() => router.close());

async function provider(rules: ProviderRules, upstreamModel: string, profile: ChatProfileName | undefined, settings: Partial<BackendSettings> = {}): Promise<ChatProviderUpstream> {
  const fake = await startChatProvider(rules);
  open.push(fake);
  router.config.update((draft) => {
    draft.backends.up = { type: 'openai-chat', baseUrl: fake.url, apiKey: UPSTREAM_KEY, ...(profile ? { profile } : {}), ...settings };
    draft.routes[SKU] = [`up:${upstreamModel}`];
  });
  return fake;
}

const assistantOf = (body: Record<string, any>): Record<string, any> => body.messages.find((message: any) => message.role === 'assistant');
const cases = CLIENTS.flatMap((client) => [false, true].map((stream) => [client, stream] as const));

describe.each(PROVIDERS)('$name', (provided) => {
  it.each(cases)('a %s client (streamed: %s) runs a two-turn tool loop, the reasoning sent back as the provider requires', async (client, stream) => {
    const fake = await provider(provided.rules, provided.upstreamModel, provided.profile);
    const first = firstRequest(client, SKU);
    const one = await send(router.origin, router.key, client, first, stream);
    expect(one.status, one.raw).toBe(200);
    if (provided.shown) expect(shownReasoning(client, one.reply)).toBe(provided.shown);
    const two = await send(router.origin, router.key, client, secondRequest(client, first, one.reply, 'sunny'), stream);
    expect(two.status, two.raw).toBe(200);
    expect(answerText(client, two.reply)).toBe('done: sunny');
    expect(fake.requests).toHaveLength(2);
    expect(fake.answered).toHaveLength(2);
    provided.replayed?.(assistantOf(fake.answered[1]!), fake);
  });
});

describe('the reasoning a provider does not ask back for', () => {
  it.each(['responses', 'messages'] as const)('DeepSeek: a %s client’s earlier answer without tool calls carries no reasoning_content', async (client) => {
    const fake = await provider(deepseekRules, 'deepseek-reasoner', 'deepseek');
    const ask = (body: Record<string, unknown>) => send(router.origin, router.key, client, body, false);
    const plain = { ...firstRequest(client, SKU) };
    delete plain.tools;
    const one = await ask(plain);
    expect(one.status, one.raw).toBe(200);
    const replayed =
      client === 'responses'
        ? { ...plain, input: [...(plain.input as unknown[]), ...one.reply.output, { role: 'user', content: 'And tomorrow?' }] }
        : { ...plain, messages: [...(plain.messages as unknown[]), { role: 'assistant', content: one.reply.content }, { role: 'user', content: 'And tomorrow?' }] };
    const two = await ask(replayed);
    expect(two.status, two.raw).toBe(200);
    expect(assistantOf(fake.answered[1]!).reasoning_content).toBeUndefined();
  });

  it.each(CLIENTS)('OpenRouter: the backend’s provider routing goes with a %s client’s request, over any the client set', async (client) => {
    const routing = { order: ['anthropic', 'google-vertex'], allow_fallbacks: false };
    const fake = await provider(openrouterRules, 'anthropic/claude-sonnet-4.5', 'openrouter', { providerRouting: routing });
    const extra = client === 'chat' ? { provider: { sort: 'price', allow_fallbacks: true } } : {};
    const reply = await send(router.origin, router.key, client, firstRequest(client, SKU, extra), false);
    expect(reply.status, reply.raw).toBe(200);
    expect(fake.answered[0]!.provider).toEqual(client === 'chat' ? { sort: 'price', ...routing } : routing);
  });

  it.each([
    ['anthropic/claude-sonnet-4.5', true],
    ['google/gemini-2.5-pro', true],
    ['openai/gpt-5', false],
  ] as const)('OpenRouter: %s gets prompt-cache breakpoints (cache_control) with the profile alone: %s', async (model, marked) => {
    const fake = await provider(openrouterRules, model, 'openrouter');
    const request = { ...firstRequest('messages', SKU), system: 'You are terse.' };
    const reply = await send(router.origin, router.key, 'messages', request, false);
    expect(reply.status, reply.raw).toBe(200);
    expect(JSON.stringify(fake.answered[0]!.messages).includes('"cache_control"')).toBe(marked);
  });

  it.each([
    ['deepseek', 'deepseek-reasoner', deepseekRules, 'medium'],
    ['xai', 'grok-3-mini', xaiRules, 'high'],
  ] as const)('%s: a Messages client’s thinking reaches %s as the effort it takes', async (profile, model, rules, effort) => {
    const fake = await provider(rules, model, profile);
    const reply = await send(router.origin, router.key, 'messages', { ...firstRequest('messages', SKU), thinking: { type: 'enabled', budget_tokens: 1024 } }, false);
    expect(reply.status, reply.raw).toBe(200);
    expect(fake.answered[0]!.reasoning_effort).toBe(effort);
  });

  it('OpenRouter: the reasoning request object replaces reasoning_effort, for any model', async () => {
    const fake = await provider(openrouterRules, 'anthropic/claude-sonnet-4.5', 'openrouter');
    const reply = await send(router.origin, router.key, 'responses', { ...firstRequest('responses', SKU), reasoning: { effort: 'high' } }, false);
    expect(reply.status, reply.raw).toBe(200);
    expect(fake.answered[0]!.reasoning).toEqual({ effort: 'high' });
    expect(fake.answered[0]!.reasoning_effort).toBeUndefined();
  });
});

interface RefusalCase {
  name: string;
  rules: ProviderRules;
  profile: ChatProfileName;
  upstreamModel: string;
  client: ClientFormat;
  /** Fields the client sets that the provider refuses. */
  extra: Record<string, unknown>;
  /** The fields that must not reach the provider, each named in a warning. */
  refused: string[];
}

const REFUSALS: RefusalCase[] = [
  { name: 'Groq', rules: groqRules, profile: 'groq', upstreamModel: 'openai/gpt-oss-20b', client: 'chat', extra: { logprobs: true, top_logprobs: 2, logit_bias: { '50256': -100 } }, refused: ['logprobs', 'top_logprobs', 'logit_bias'] },
  { name: 'Mistral', rules: mistralRules, profile: 'mistral', upstreamModel: 'mistral-large-latest', client: 'chat', extra: { user: 'u-1', store: false, logprobs: true }, refused: ['user', 'store', 'logprobs'] },
  { name: 'xAI', rules: xaiRules, profile: 'xai', upstreamModel: 'grok-4', client: 'chat', extra: { presence_penalty: 0.5, frequency_penalty: 0.5, stop: ['END'], reasoning_effort: 'high' }, refused: ['presence_penalty', 'frequency_penalty', 'stop', 'reasoning_effort'] },
  { name: 'xAI', rules: xaiRules, profile: 'xai', upstreamModel: 'grok-4', client: 'messages', extra: { stop_sequences: ['END'] }, refused: ['stop'] },
  { name: 'DeepSeek', rules: deepseekRules, profile: 'deepseek', upstreamModel: 'deepseek-reasoner', client: 'chat', extra: { logprobs: true, top_logprobs: 3 }, refused: ['logprobs', 'top_logprobs'] },
];

describe.each(REFUSALS)('$name refuses what a $client client set', (refusal) => {
  it.each([false, true])('with the profile, the fields never reach it and each is named in svc_meta.warnings (streamed: %s)', async (stream) => {
    const fake = await provider(refusal.rules, refusal.upstreamModel, refusal.profile);
    const reply = await send(router.origin, router.key, refusal.client, firstRequest(refusal.client, SKU, refusal.extra), stream);
    expect(reply.status, reply.raw).toBe(200);
    expect(fake.answered).toHaveLength(1);
    for (const field of refusal.refused) {
      expect(fake.answered[0]![field], field).toBeUndefined();
      expect(reply.warnings.some((warning) => warning.startsWith(`${field} not sent:`)), `a warning for ${field} in ${JSON.stringify(reply.warnings)}`).toBe(true);
    }
  });

  it('without it, the provider answers with its documented error', async () => {
    const fake = await provider(refusal.rules, refusal.upstreamModel, undefined);
    const reply = await send(router.origin, router.key, refusal.client, firstRequest(refusal.client, SKU, refusal.extra), false);
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(fake.answered).toHaveLength(0);
  });
});

describe('Mistral, whatever the client sends', () => {
  it.each(cases)('a %s client (streamed: %s): no stream_options, seed as random_seed', async (client, stream) => {
    const fake = await provider(mistralRules, 'mistral-large-latest', 'mistral');
    const request = firstRequest(client, SKU, client === 'chat' ? { seed: 7, max_completion_tokens: 50 } : {});
    if (client === 'chat') delete request.max_tokens;
    const reply = await send(router.origin, router.key, client, request, stream);
    expect(reply.status, reply.raw).toBe(200);
    expect(fake.answered[0]!.stream_options).toBeUndefined();
    if (client === 'chat') expect(fake.answered[0]).toMatchObject({ random_seed: 7, max_tokens: 50 });
  });
});

describe('backends add', () => {
  const home = makeHome();
  afterAll(() => removeHome(home));

  it.each([
    ['https://openrouter.ai/api/v1', 'openrouter'],
    ['https://api.deepseek.com', 'deepseek'],
    ['https://api.groq.com/openai/v1', 'groq'],
    ['https://api.mistral.ai/v1', 'mistral'],
    ['https://api.x.ai/v1', 'xai'],
  ])('suggests the profile a base URL on %s calls for, and stores it when given', async (baseUrl, profile) => {
    const plain = await runCli(['backends', 'add', 'up', '--type', 'openai-chat', '--base-url', baseUrl], { home });
    expect(plain.code).toBe(0);
    expect(plain.stderr).toContain(`--profile ${profile}`);
    expect(readConfig(home)!.backends.up.profile).toBeUndefined();
    const given = await runCli(['backends', 'add', 'up', '--type', 'openai-chat', '--base-url', baseUrl, '--profile', profile], { home });
    expect(given.code).toBe(0);
    expect(given.stderr).not.toContain('--profile');
    expect(readConfig(home)!.backends.up.profile).toBe(profile);
  });

  it('stores OpenRouter provider routing with its profile, and refuses it without', async () => {
    const routing = '{"order":["anthropic"],"allow_fallbacks":false}';
    const added = await runCli(['backends', 'add', 'or', '--type', 'openai-chat', '--base-url', 'https://openrouter.ai/api/v1', '--profile', 'openrouter', '--provider-routing', routing], { home });
    expect(added.code, added.stderr).toBe(0);
    expect(readConfig(home)!.backends.or).toMatchObject({ profile: 'openrouter', providerRouting: { order: ['anthropic'], allow_fallbacks: false } });
    const before = configText(home);
    const without = await runCli(['backends', 'add', 'bad', '--type', 'openai-chat', '--base-url', 'https://openrouter.ai/api/v1', '--provider-routing', routing], { home });
    expect(without.code).toBe(2);
    expect(without.stderr).toContain('--profile openrouter');
    const notJson = await runCli(['backends', 'add', 'bad', '--type', 'openai-chat', '--base-url', 'https://openrouter.ai/api/v1', '--profile', 'openrouter', '--provider-routing', '[1]'], { home });
    expect(notJson.code).toBe(2);
    expect(configText(home)).toBe(before);
  });

  it('suggests none for another host, and refuses a profile on another type or an unknown one', async () => {
    const plain = await runCli(['backends', 'add', 'local', '--type', 'openai-chat', '--base-url', 'http://localhost:8000/v1'], { home });
    expect(plain.stderr).not.toContain('--profile');
    const before = configText(home);
    const elsewhere = await runCli(['backends', 'add', 'bad', '--type', 'anthropic', '--base-url', 'https://openrouter.ai/api', '--profile', 'openrouter'], { home });
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain('--profile is for openai-chat backends only');
    const unknown = await runCli(['backends', 'add', 'bad', '--type', 'openai-chat', '--base-url', 'https://a.example', '--profile', 'nonesuch'], { home });
    expect(unknown.code).toBe(2);
    expect(configText(home)).toBe(before);
  });
});

describe('a local server’s Anthropic-compatible /v1/messages (Ollama, llama.cpp, LM Studio) as an anthropic backend', () => {
  const local = async (): Promise<LocalAnthropicUpstream> => {
    const fake = await startLocalAnthropic();
    open.push(fake as unknown as ChatProviderUpstream);
    router.config.update((draft) => {
      draft.backends.up = { type: 'anthropic', baseUrl: fake.url, apiKey: 'ollama' };
      draft.routes[SKU] = ['up:qwen3-coder'];
    });
    return fake;
  };

  it.each(cases)('a %s client (streamed: %s) runs a two-turn tool loop', async (client, stream) => {
    const fake = await local();
    const first = firstRequest(client, SKU);
    const one = await send(router.origin, router.key, client, first, stream);
    expect(one.status, one.raw).toBe(200);
    expect(shownReasoning(client, one.reply)).toBe('local thought 1');
    const two = await send(router.origin, router.key, client, secondRequest(client, first, one.reply, 'sunny'), stream);
    expect(two.status, two.raw).toBe(200);
    expect(answerText(client, two.reply)).toBe('done: sunny');
    expect(fake.answered).toHaveLength(2);
  });

  it('count_tokens, which it does not serve, is the router’s estimate rather than an error', async () => {
    const fake = await local();
    const response = await fetch(`${router.origin}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': router.key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: SKU, messages: [{ role: 'user', content: 'How many tokens is this?' }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-svc-count-source')).toBe('estimate');
    expect(((await response.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    expect(fake.requests.map((request) => request.path)).toEqual(['/v1/messages/count_tokens']);
  });
});

describe('Groq and a Chat client’s message names', () => {
  it.each([false, true])('messages[].name never reaches it, and is named in a warning (streamed: %s)', async (stream) => {
    const fake = await provider(groqRules, 'openai/gpt-oss-20b', 'groq');
    const request = { ...firstRequest('chat', SKU), messages: [{ role: 'user', name: 'alice', content: 'What is the weather in Paris?' }] };
    const reply = await send(router.origin, router.key, 'chat', request, stream);
    expect(reply.status, reply.raw).toBe(200);
    expect(fake.answered[0]!.messages[0]).toEqual({ role: 'user', content: 'What is the weather in Paris?' });
    expect(reply.warnings).toContain('messages[].name not sent: Groq refuses it.');
  });
});

describe('a profile this release does not know (a hand-edited config.json)', () => {
  it('is named in a warning rather than ignored', async () => {
    const fake = await provider(vllmRules('reasoning'), 'Qwen/Qwen3-8B', 'nonesuch' as ChatProfileName);
    const reply = await send(router.origin, router.key, 'responses', firstRequest('responses', SKU), false);
    expect(reply.status, reply.raw).toBe(200);
    expect(fake.answered).toHaveLength(1);
    expect(reply.warnings.some((warning) => warning.startsWith("profile 'nonesuch' not applied"))).toBe(true);
  });
});
