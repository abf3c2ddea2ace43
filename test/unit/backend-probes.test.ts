import { afterEach, describe, expect, it } from 'vitest';
import type { BackendProbe } from '../../src/backends/backend.js';
import { LOADERS } from '../../src/backends/registry.js';
import { checkBackends } from '../../src/cli/doctor/backend-checks.js';
import type { BackendSettings, Settings } from '../../src/config/settings.js';
import { BACKEND_TYPES } from '../../src/core/backend-types.js';
import { startAnthropicUpstream } from '../fakes/anthropic-upstream.js';
import { startBedrockUpstream } from '../fakes/bedrock-upstream.js';
import { startGeminiUpstream } from '../fakes/gemini-upstream.js';
import { startOpenAIChatUpstream } from '../fakes/openai-chat-upstream.js';
import { startOpenAIResponsesUpstream } from '../fakes/openai-responses-upstream.js';

/**
 * Every backend type brings the cheap call doctor proves its key with: its provider's model list,
 * asked of a fake that answers as that provider does (its auth header, its paging, its refusal).
 */

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const KEY = 'sk-probe-0123456789abcdef';
/** More models than Anthropic's default page (20) and Gemini's (50): the probe must ask for a whole list. */
const MANY = Array.from({ length: 60 }, (_, index) => `model-${index}`);

const FAKES: Record<string, (models: string[]) => Promise<{ url: string; close(): Promise<void> }>> = {
  'openai-chat': (models) => startOpenAIChatUpstream([{ text: 'unused' }], { apiKey: KEY, models }),
  'openai-responses': (models) => startOpenAIResponsesUpstream([{ text: 'unused' }], { apiKey: KEY, models }),
  anthropic: (models) => startAnthropicUpstream([{ text: 'unused' }], { apiKey: KEY, models }),
  gemini: (models) => startGeminiUpstream([{ text: 'unused' }], { apiKey: KEY, models }),
  bedrock: (models) => startBedrockUpstream([{ text: 'unused' }], { apiKey: KEY, models }),
};

async function list(probe: BackendProbe, baseUrl: string, key: string | undefined): Promise<{ status: number; body: unknown }> {
  const { url, headers } = probe.modelList(baseUrl, key);
  const response = await fetch(url, { headers });
  return { status: response.status, body: await response.json() };
}

/** The types whose calls carry a configured key, which a probe proves. */
const KEYED_TYPES = BACKEND_TYPES.filter((type) => type !== 'vertex');

describe('backend probes', () => {
  it('vertex has no probe: its credential is a Google access token fetched per call, so doctor checks its connection only', async () => {
    expect((await LOADERS.vertex()).probe).toBeUndefined();
  });

  it.each(KEYED_TYPES)('%s: its module names a probe, which lists every model with the right key', async (type) => {
    const module = await LOADERS[type]();
    expect(module.probe, `${type} has no probe: doctor could not prove its key`).toBeDefined();
    const probe = module.probe!;
    const fake = await FAKES[type]!(MANY);
    closers.push(() => fake.close());

    const answer = await list(probe, fake.url, KEY);
    expect(answer.status).toBe(200);
    const models = probe.readModels(answer.body);
    expect(models).toEqual({ ids: MANY.map((id) => probe.listedAs?.(id) ?? id), complete: true });

    // A wrong key is refused the way the provider refuses it, and the probe knows it for a refusal.
    const refused = await list(probe, fake.url, 'sk-wrong-0123456789abcdef');
    expect(refused.status === 401 || refused.status === 403 || probe.refusesKey?.(refused.status, refused.body) === true, JSON.stringify(refused)).toBe(true);
  });

  it('reads a partial page as incomplete, so a model missing from it is not reported missing', async () => {
    const module = await LOADERS.anthropic();
    expect(module.probe!.readModels({ data: [{ id: 'claude-a' }], has_more: true })).toEqual({ ids: ['claude-a'], complete: false });
    const gemini = (await LOADERS.gemini()).probe!;
    expect(gemini.readModels({ models: [{ name: 'models/gemini-x' }], nextPageToken: 'abc' })).toEqual({ ids: ['gemini-x'], complete: false });
    expect(gemini.listedAs!('models/gemini-x')).toBe('gemini-x');
    // A body that is no list is not read as an empty one.
    for (const type of KEYED_TYPES) expect((await LOADERS[type]()).probe!.readModels({ error: { message: 'no' } })).toBeUndefined();
  });

  it('gemini: a base URL with or without its API version lists the same models', async () => {
    const probe = (await LOADERS.gemini()).probe!;
    const fake = await FAKES.gemini!(['gemini-2.5-flash']);
    closers.push(() => fake.close());
    for (const base of [fake.url.replace(/\/v1beta$/, ''), fake.url]) expect(probe.readModels((await list(probe, base, KEY)).body)?.ids).toEqual(['gemini-2.5-flash']);
  });

  it.each(['x-api-key', 'bearer'] as const)('anthropic: doctor proves a key taken as %s in that form alone, with the pinned version', async (auth) => {
    const fake = await startAnthropicUpstream([{ text: 'unused' }], { apiKey: KEY, auth });
    closers.push(() => fake.close());
    const backend: BackendSettings = { type: 'anthropic', baseUrl: fake.url, apiKey: KEY, auth, anthropicVersion: '2024-01-01' };
    const report = await checkBackends({ backends: { gateway: backend } } as unknown as Settings, { timeoutMs: 5_000 });
    expect(report.results.map((result) => result.status)).toEqual(['pass']);
    const { headers } = fake.requests[0]!;
    expect(headers['anthropic-version']).toBe('2024-01-01');
    expect(auth === 'bearer' ? [headers.authorization, headers['x-api-key']] : [headers['x-api-key'], headers.authorization]).toEqual([auth === 'bearer' ? `Bearer ${KEY}` : KEY, undefined]);
  });

  it('gemini: doctor lists models under the backend’s apiVersion', async () => {
    const fake = await FAKES.gemini!(['gemini-2.5-flash']);
    closers.push(() => fake.close());
    const backend: BackendSettings = { type: 'gemini', baseUrl: fake.url.replace(/\/v1beta$/, ''), apiKey: KEY, apiVersion: 'v1' };
    const report = await checkBackends({ backends: { g: backend } } as unknown as Settings, { timeoutMs: 5_000 });
    expect(report.results.map((result) => result.status)).toEqual(['pass']);
    expect((fake as unknown as { requests: Array<{ path: string }> }).requests.map((request) => new URL(request.path, 'http://x').pathname)).toEqual(['/v1/models']);
  });
});
