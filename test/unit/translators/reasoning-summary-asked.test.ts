import { describe, expect, it } from 'vitest';
import { encodeAnthropicRequest } from '../../../src/backends/anthropic/encode-request.js';
import { encodeGeminiRequest } from '../../../src/backends/gemini/encode-request.js';
import { encodeChatRequest } from '../../../src/backends/openai-chat/encode-request.js';
import { encodeResponsesRequest } from '../../../src/backends/openai-responses/encode-request.js';
import type { CanonicalRequest } from '../../../src/core/request.js';
import { decodeResponsesRequest } from '../../../src/formats/responses/decode-request.js';
import { userRequest } from './support.js';

/**
 * Codex asks for reasoning summaries with no effort (`reasoning: {summary: "auto"}`). Every
 * upstream that can give summaries is asked for them in its own words (Anthropic
 * `thinking.display`, Gemini `includeThoughts`, Responses `reasoning.summary`); where one cannot,
 * the client is told so in a warning naming summaries. Never neither: no summary asked upstream
 * and nothing said is the bug this table catches.
 */

const CODEX = { model: 'svc.intelligent-pro', input: 'What is the weather in Paris?', reasoning: { summary: 'auto' } };
const codexRequest = (): CanonicalRequest => decodeResponsesRequest(structuredClone(CODEX), { secret: 'unit-test-secret-0123456789abcdef' }).request;

type Body = Record<string, any>;
interface Route {
  encode(request: CanonicalRequest, model: string): Body;
  /** The upstream body asks for summaries. */
  asks(body: Body): boolean;
}

const ROUTES: Record<'anthropic' | 'gemini' | 'openai-responses' | 'openai-chat', Route> = {
  anthropic: { encode: (request, model) => encodeAnthropicRequest(request, model, false) as unknown as Body, asks: (body) => body.thinking?.display === 'summarized' },
  gemini: { encode: (request, model) => encodeGeminiRequest(request, model, false) as unknown as Body, asks: (body) => body.generationConfig?.thinkingConfig?.includeThoughts === true },
  'openai-responses': { encode: (request, model) => encodeResponsesRequest(request, model, false) as unknown as Body, asks: (body) => body.reasoning?.summary === 'auto' },
  'openai-chat': { encode: (request, model) => encodeChatRequest(request, model, false) as unknown as Body, asks: () => false },
};

describe("a Codex request for reasoning summaries with no effort", () => {
  it('is read as a request for summarized reasoning, the effort left to the model', () => {
    const request = codexRequest();
    expect(request.reasoningDisplay).toBe('summarized');
    expect(request.reasoningEffort).toBeUndefined();
  });

  it.each<[keyof typeof ROUTES, string, 'asked' | RegExp]>([
    ['anthropic', 'claude-opus-5-5', 'asked'],
    ['anthropic', 'claude-fable-5-1', 'asked'],
    // Thinking is off unless asked on these: the client is told to name an effort.
    ['anthropic', 'claude-sonnet-4-5', /reasoning summaries not requested from claude-sonnet-4-5: .*name one/],
    ['anthropic', 'claude-3-5-haiku', /reasoning summaries not requested from claude-3-5-haiku: claude-3-5-haiku does not think/],
    ['gemini', 'gemini-3-pro-preview', 'asked'],
    ['gemini', 'gemini-2.5-flash', 'asked'],
    ['gemini', 'gemini-2.5-pro', 'asked'],
    ['openai-responses', 'gpt-5.6', 'asked'],
    ['openai-responses', 'o3', 'asked'],
    // The client's own Responses body, forwarded as sent: what OpenAI itself would be sent.
    ['openai-responses', 'gpt-4.1', 'asked'],
    ['openai-chat', 'gpt-5.6', /reasoning display 'summarized' not applied \(thinking\.display, reasoning\.summary\)/],
  ])('on %s to %s: summaries asked upstream, or the warning names them', (route, model, expected) => {
    const request = codexRequest();
    const body = ROUTES[route].encode(request, model);
    const warnings = request.backendWarnings ?? [];
    if (expected === 'asked') {
      expect(ROUTES[route].asks(body), JSON.stringify(body)).toBe(true);
      expect(warnings.filter((warning) => /summar/.test(warning))).toEqual([]);
    } else {
      expect(ROUTES[route].asks(body)).toBe(false);
      expect(warnings.some((warning) => expected.test(warning)), warnings.join(' | ')).toBe(true);
    }
  });

  it.each<[keyof typeof ROUTES, string, 'asked' | RegExp]>([
    ['openai-responses', 'gpt-5.6', 'asked'],
    ['openai-responses', 'gpt-4.1', /reasoning summaries not requested from gpt-4\.1: it does not reason/],
    ['gemini', 'gemini-2.5-flash', 'asked'],
    ['anthropic', 'claude-opus-5-5', 'asked'],
  ])('translated from another format, on %s to %s: summaries asked upstream, or the warning names them', (route, model, expected) => {
    const request = userRequest('What is the weather in Paris?', { reasoningDisplay: 'summarized' });
    const body = ROUTES[route].encode(request, model);
    const warnings = request.backendWarnings ?? [];
    if (expected === 'asked') expect(ROUTES[route].asks(body), JSON.stringify(body)).toBe(true);
    else expect(warnings.some((warning) => expected.test(warning)), warnings.join(' | ')).toBe(true);
  });

  it('on Gemini, leaves the thinking to the model: no budget or level it did not ask for', () => {
    expect(encodeGeminiRequest(codexRequest(), 'gemini-2.5-flash', false).generationConfig).toEqual({ thinkingConfig: { includeThoughts: true } });
  });

  it('on a Claude model that always thinks, asks adaptive thinking summarized, and no effort', () => {
    const body = encodeAnthropicRequest(codexRequest(), 'claude-opus-5-5', false) as unknown as Body;
    expect(body.thinking).toEqual({ type: 'adaptive', display: 'summarized' });
    expect(body.output_config?.effort).toBeUndefined();
  });
});
