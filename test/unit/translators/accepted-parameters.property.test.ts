import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeAnthropicRequest } from '../../../src/backends/anthropic/encode-request.js';
import { encodeBedrockRequest } from '../../../src/backends/bedrock/encode-request.js';
import { encodeGeminiRequest } from '../../../src/backends/gemini/encode-request.js';
import { encodeVertexRequest } from '../../../src/backends/vertex/encode-request.js';
import { encodeChatRequest } from '../../../src/backends/openai-chat/encode-request.js';
import { encodeResponsesRequest } from '../../../src/backends/openai-responses/encode-request.js';
import { capabilitiesOf, type SamplingSetting } from '../../../src/catalog/index.js';
import type { BackendType } from '../../../src/core/backend-types.js';
import { REASONING_EFFORTS, type CanonicalRequest, type ReasoningEffort } from '../../../src/core/request.js';
import { userRequest } from './support.js';

/**
 * Whatever a client asks for, no translator sends a parameter the catalog says the target refuses,
 * and every sampling setting or effort level not sent as asked is named in the warnings.
 */

type Sent = { sampling: Partial<Record<SamplingSetting, unknown>>; effort?: string; thinking?: string };

const read = (type: BackendType, body: Record<string, any>): Sent => {
  switch (type) {
    case 'openai-chat':
      return { sampling: { temperature: body.temperature, topP: body.top_p }, effort: body.reasoning_effort };
    case 'openai-responses':
      return { sampling: { temperature: body.temperature, topP: body.top_p }, effort: body.reasoning?.effort };
    case 'anthropic':
    case 'bedrock':
      return { sampling: { temperature: body.temperature, topP: body.top_p, topK: body.top_k }, effort: body.output_config?.effort, thinking: body.thinking?.type };
    case 'vertex':
      return read(body.contents ? 'gemini' : 'anthropic', body);
    case 'gemini': {
      const config = body.generationConfig ?? {};
      return { sampling: { temperature: config.temperature, topP: config.topP, topK: config.topK }, effort: config.thinkingConfig?.thinkingLevel };
    }
  }
};

const ENCODERS: Record<BackendType, (request: CanonicalRequest, model: string) => Record<string, any>> = {
  'openai-chat': (request, model) => encodeChatRequest(request, model, false) as unknown as Record<string, any>,
  'openai-responses': (request, model) => encodeResponsesRequest(request, model, false) as unknown as Record<string, any>,
  anthropic: (request, model) => encodeAnthropicRequest(request, model, false) as unknown as Record<string, any>,
  gemini: (request, model) => encodeGeminiRequest(request, model, false) as unknown as Record<string, any>,
  vertex: (request, model) => encodeVertexRequest(request, model, false) as Record<string, any>,
  bedrock: (request, model) => encodeBedrockRequest('bedrock', request, model),
};

const OPENAI = ['gpt-5', 'gpt-5-mini', 'gpt-5-pro', 'gpt-5.1', 'gpt-5.1-codex-max', 'gpt-5.2', 'gpt-5.4', 'gpt-5.5-pro', 'gpt-5.6-sol', 'o3', 'o4-mini', 'o1-mini', 'gpt-4.1', 'gpt-4o', 'my-llama'];
const MODELS: Record<BackendType, readonly string[]> = {
  'openai-chat': OPENAI,
  'openai-responses': OPENAI,
  anthropic: ['claude-opus-4-7', 'claude-opus-5-5', 'claude-sonnet-5', 'claude-opus-4-6', 'claude-sonnet-4-6', 'claude-opus-4-5', 'claude-sonnet-4-5-20250929', 'claude-haiku-4-5', 'claude-opus-4-1', 'claude-opus-4', 'claude-3-5-haiku', 'claude-unknown-9'],
  bedrock: ['anthropic.claude-sonnet-4-5-20250929-v1:0', 'us.anthropic.claude-opus-4-1-20250805-v1:0', 'anthropic.claude-3-5-haiku-20241022-v1:0'],
  gemini: ['gemini-2.5-pro', 'gemini-2.5-flash', 'gemini-3-pro-preview', 'gemini-3-flash-preview', 'gemini-2.0-flash'],
  vertex: ['claude-opus-4-5', 'claude-sonnet-4-5', 'claude-haiku-4-5', 'gemini-2.5-pro', 'gemini-3-flash-preview'],
};

const WIRE: Record<SamplingSetting, string> = { temperature: 'temperature', topP: 'top_p', topK: 'top_k' };

const requestArb = fc.record(
  {
    temperature: fc.double({ min: 0, max: 1, noNaN: true }),
    topP: fc.double({ min: 0.01, max: 1, noNaN: true }),
    topK: fc.integer({ min: 1, max: 100 }),
    reasoningEffort: fc.constantFrom<ReasoningEffort>(...REASONING_EFFORTS),
    reasoningBudget: fc.integer({ min: 1024, max: 16_000 }),
    maxOutputTokens: fc.integer({ min: 2_000, max: 64_000 }),
  },
  { requiredKeys: [] },
);

const cases = fc.oneof(...(Object.keys(MODELS) as BackendType[]).map((type) => fc.tuple(fc.constant(type), fc.constantFrom(...MODELS[type]), requestArb)));

describe('parameters the target accepts', () => {
  it('no translator sends a parameter the catalog says the model refuses, and each one left out is named', () => {
    fc.assert(
      fc.property(cases, ([type, model, extra]) => {
        const request = userRequest('hi', extra);
        const body = ENCODERS[type](request, model);
        const sent = read(type, body);
        const warnings = (request.backendWarnings ?? []).join('\n');
        const capabilities = capabilitiesOf(type, model);
        const sentSettings = (Object.keys(sent.sampling) as SamplingSetting[]).filter((setting) => sent.sampling[setting] !== undefined);
        if (capabilities) {
          for (const setting of capabilities.refusesSampling) expect(sentSettings, `${model} ${setting}`).not.toContain(setting);
          if (capabilities.exclusiveSampling) expect(capabilities.exclusiveSampling.filter((setting) => sentSettings.includes(setting)).length).toBeLessThanOrEqual(1);
          if (capabilities.samplingOnlyAtEffort && sent.effort !== undefined && sent.effort !== capabilities.samplingOnlyAtEffort) {
            expect(sentSettings.filter((setting) => setting !== 'topK')).toEqual([]);
          }
          if (sent.effort !== undefined) expect(capabilities.reasoning?.efforts ?? []).toContain(sent.effort);
          if (sent.thinking === 'enabled') expect(capabilities.reasoning?.budget).toBe(true);
          if (sent.thinking === 'adaptive') expect(capabilities.reasoning?.adaptive).toBe(true);
          if (!capabilities.reasoning) expect(sent.effort).toBeUndefined();
        }
        // Every sampling setting asked for reaches the upstream or is named.
        for (const setting of ['temperature', 'topP', 'topK'] as const) {
          if (request[setting] === undefined || sentSettings.includes(setting)) continue;
          expect(warnings, `${type} ${model} ${setting}`).toContain(WIRE[setting]);
        }
        // An effort sent at another level than asked says so, naming both.
        const asked = request.reasoningEffort;
        if (asked !== undefined && sent.effort !== undefined && sent.effort !== asked) {
          expect(warnings).toContain(`'${asked}'`);
          expect(warnings).toContain(`'${sent.effort}'`);
        }
      }),
      { numRuns: 600 },
    );
  });

  it('sends thinking in the form the model takes: adaptive with an effort on Opus 4.7, a budget on Sonnet 4.5', () => {
    const opus = userRequest('hi', { reasoningEffort: 'xhigh', temperature: 0.3 });
    const opusBody = encodeAnthropicRequest(opus, 'claude-opus-4-7', false) as unknown as Record<string, any>;
    expect(opusBody.thinking).toEqual({ type: 'adaptive' });
    expect(opusBody.output_config).toEqual({ effort: 'xhigh' });
    expect(opusBody.temperature).toBeUndefined();
    expect(opus.backendWarnings?.join(' ')).toContain('temperature');

    const sonnet = userRequest('hi', { reasoningEffort: 'xhigh', maxOutputTokens: 64_000 });
    const sonnetBody = encodeAnthropicRequest(sonnet, 'claude-sonnet-4-5', false) as unknown as Record<string, any>;
    expect(sonnetBody.thinking).toEqual({ type: 'enabled', budget_tokens: 24_576 });
    expect(sonnetBody.output_config).toBeUndefined();
  });

  it('turns thinking off outright for effort none on a Claude that thinks, and sends nothing to one the catalog does not know', () => {
    const off = encodeAnthropicRequest(userRequest('hi', { reasoningEffort: 'none' }), 'claude-sonnet-5', false) as unknown as Record<string, any>;
    expect(off.thinking).toEqual({ type: 'disabled' });
    expect(off.output_config).toBeUndefined();
    expect((encodeAnthropicRequest(userRequest('hi', { reasoningEffort: 'none' }), 'claude-unknown-9', false) as unknown as Record<string, any>).thinking).toBeUndefined();
  });

  it("maps an effort one to one where the model has it, else to the nearest, named: gpt-5 has no 'none', gpt-5.1 no 'minimal'", () => {
    const effort = (model: string, asked: ReasoningEffort) => {
      const request = userRequest('hi', { reasoningEffort: asked });
      const body = encodeResponsesRequest(request, model, false);
      return [body.reasoning?.effort, request.backendWarnings ?? []] as const;
    };
    expect(effort('gpt-5.2', 'xhigh')).toEqual(['xhigh', []]);
    expect(effort('gpt-5', 'none')[0]).toBe('minimal');
    expect(effort('gpt-5', 'none')[1].join(' ')).toContain("'none' sent as 'minimal'");
    expect(effort('gpt-5.1', 'minimal')[0]).toBe('low');
    expect(effort('o3', 'max')[0]).toBe('high');
  });

  it('keeps temperature with Chat Completions on gpt-5.2 at effort none, and drops it, named, at any other', () => {
    const at = (effort: ReasoningEffort | undefined) => {
      const request = userRequest('hi', { temperature: 0.2, ...(effort ? { reasoningEffort: effort } : {}) });
      return [encodeChatRequest(request, 'gpt-5.2', false).temperature, request.backendWarnings ?? []] as const;
    };
    expect(at('none')).toEqual([0.2, []]);
    expect(at(undefined)).toEqual([0.2, []]);
    expect(at('high')[0]).toBeUndefined();
    expect(at('high')[1].join(' ')).toContain("temperature not sent: gpt-5.2 takes them only at reasoning effort 'none'");
  });
});
