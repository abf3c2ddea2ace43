import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeAnthropicRequest } from '../../../src/backends/anthropic/encode-request.js';
import { capabilitiesOf, CAPABILITY_ROWS } from '../../../src/catalog/index.js';
import { RouterError } from '../../../src/core/errors.js';
import { REASONING_EFFORTS, type CanonicalRequest, type Message, type ReasoningEffort, type ToolChoice } from '../../../src/core/request.js';
import { decodeMessagesRequest } from '../../../src/formats/messages/decode-request.js';
import { modelNameOf } from '../../helpers/catalog-models.js';
import { userRequest } from './support.js';

/**
 * Whatever a client asks, the Anthropic translator sends each model only what its catalog row
 * says it takes (a forced tool choice, thinking off, a thinking budget, sampling), the nearest form
 * otherwise, named in the warnings; and a request no form of which the model takes (a prefill
 * where refused) is a 400 naming the rule. The client's own forwarded Messages body obeys the same
 * rows. The models are the catalog's own: a new row is covered without a line here.
 */

/** One model name per Anthropic row, drawn from the row's own pattern, and one no row names. */
const MODELS = [...CAPABILITY_ROWS.filter((row) => row.types.includes('anthropic')).map(modelNameOf), 'claude-unknown-9'];
const VERSIONS = [undefined, '2023-06-01', '2026-10-21'] as const;

const TOOL = { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } };

const choiceArb = fc.constantFrom<ToolChoice | undefined>(undefined, 'auto', 'none', 'required', { name: 'get_weather' });

const requestArb = fc.record(
  {
    toolChoice: choiceArb,
    temperature: fc.double({ min: 0, max: 1, noNaN: true }),
    topP: fc.double({ min: 0.01, max: 1, noNaN: true }),
    topK: fc.integer({ min: 1, max: 100 }),
    reasoningEffort: fc.constantFrom<ReasoningEffort>(...REASONING_EFFORTS),
    reasoningBudget: fc.integer({ min: 1024, max: 16_000 }),
  },
  { requiredKeys: [] },
);

type Body = Record<string, any>;

/** The rules a body obeys for its model, and that each change is named. */
function expectObeys(body: Body, model: string, asked: Partial<CanonicalRequest>, warnings: string, version: string | undefined, forwarded = false): void {
  const capabilities = capabilitiesOf('anthropic', model);
  const reasoning = capabilities?.reasoning;
  if (capabilities?.forcedToolChoice === false) {
    expect(['auto', 'none', undefined]).toContain(body.tool_choice?.type);
    if (asked.toolChoice === 'required' || typeof asked.toolChoice === 'object') expect(warnings).toContain("sent as 'auto'");
  }
  if (reasoning && !reasoning.canTurnOff) {
    expect(body.thinking?.type, `${model} thinking`).not.toBe('disabled');
    expect(body.thinking?.type, `${model} thinking`).not.toBe('enabled');
    if (asked.reasoningEffort === 'none' && asked.reasoningBudget === undefined) {
      expect(body.thinking).toEqual({ type: 'adaptive', display: 'omitted' });
      expect(body.output_config?.effort).toBe(reasoning.efforts[0]);
      expect(warnings).toContain('always thinks');
    }
  }
  if (body.thinking?.type === 'enabled') expect(reasoning?.budget ?? true).toBe(true);
  const sampling = ['temperature', 'top_p', 'top_k'].filter((field) => body[field] !== undefined);
  // A version the router pins refuses sampling for every model; a client's own version, for the models whose row says so (a server that only speaks the format takes it).
  const refusedFrom = capabilities?.samplingRefusedFrom ?? (forwarded ? undefined : '2026-10-21');
  if (version !== undefined && refusedFrom !== undefined && version >= refusedFrom) expect(sampling).toEqual([]);
  for (const setting of capabilities?.refusesSampling ?? []) expect(body[{ temperature: 'temperature', topP: 'top_p', topK: 'top_k' }[setting]]).toBeUndefined();
}

describe('the Anthropic translator and each model row', () => {
  it('sends a translated request only in a form the model takes, naming every change', () => {
    fc.assert(
      fc.property(fc.constantFrom(...MODELS), fc.constantFrom(...VERSIONS), requestArb, (model, version, extra) => {
        const request = userRequest('weather?', { tools: [TOOL], ...extra });
        const body = encodeAnthropicRequest(request, model, false, { ...(version ? { version } : {}) }) as unknown as Body;
        expectObeys(body, model, extra, (request.backendWarnings ?? []).join('\n'), version);
      }),
      { numRuns: 800 },
    );
  });

  it("forwards a client's own Messages body in a form the model takes, and untouched when it already is one", () => {
    const bodyArb = fc.record(
      {
        tool_choice: fc.constantFrom({ type: 'auto' }, { type: 'any' }, { type: 'tool', name: 'get_weather' }, { type: 'none' }, { type: 'any', disable_parallel_tool_use: true }),
        thinking: fc.constantFrom({ type: 'disabled' }, { type: 'enabled', budget_tokens: 2048 }, { type: 'adaptive' }),
        temperature: fc.double({ min: 0, max: 1, noNaN: true }),
        top_k: fc.integer({ min: 1, max: 50 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.constantFrom(...MODELS), fc.constantFrom(...VERSIONS), bodyArb, (model, version, fields) => {
        const client = { model: 'claude-opus-5', max_tokens: 1000, tools: [{ name: 'get_weather', input_schema: TOOL.parameters }], messages: [{ role: 'user', content: 'weather?' }], ...fields };
        const { request } = decodeMessagesRequest(client);
        request.forwardBody!.headers = { 'anthropic-version': version ?? '2023-06-01' };
        const body = encodeAnthropicRequest(request, model, false) as unknown as Body;
        const warnings = (request.backendWarnings ?? []).join('\n');
        const asked: Partial<CanonicalRequest> = { ...(request.toolChoice ? { toolChoice: request.toolChoice } : {}), ...(fields.thinking?.type === 'disabled' ? {} : {}) };
        expectObeys(body, model, asked, warnings, version, true);
        if (capabilitiesOf('anthropic', model)?.reasoning?.canTurnOff === false && fields.thinking?.type === 'disabled') expect(body.thinking).toEqual({ type: 'adaptive', display: 'omitted' });
        // Nothing changed is nothing named: a body the model takes as written goes as written.
        if (!warnings) expect({ ...body, model: client.model, stream: undefined }).toEqual({ ...client, stream: undefined });
      }),
      { numRuns: 600 },
    );
  });

  it('refuses a prefill where the model does, in words that name the rule and what to change, and nowhere else', () => {
    const prefilled = (): CanonicalRequest => {
      const messages: Message[] = [
        { role: 'user', content: [{ type: 'text', text: 'Write a haiku' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Autumn' }] },
      ];
      return userRequest('', { messages });
    };
    for (const row of CAPABILITY_ROWS.filter((candidate) => candidate.types.includes('anthropic'))) {
      const model = modelNameOf(row);
      if (row.capabilities.prefill === false) {
        const refused = (() => {
          try {
            encodeAnthropicRequest(prefilled(), model, false);
          } catch (error) {
            return error;
          }
          return undefined;
        })();
        expect(refused, model).toBeInstanceOf(RouterError);
        expect((refused as RouterError).status).toBe(400);
        expect((refused as RouterError).message).toContain(`${model} does not continue a reply from an assistant message (a prefill)`);
        expect((refused as RouterError).message).toContain('End the conversation with a user message');
      } else {
        expect(() => encodeAnthropicRequest(prefilled(), model, false), model).not.toThrow();
      }
    }
  });

  it("turns a Chat client's 'required' into auto on Opus 5.5, with thinking on as the model must think", () => {
    const request = userRequest('weather?', { tools: [TOOL], toolChoice: 'required', reasoningEffort: 'high' });
    const body = encodeAnthropicRequest(request, 'claude-opus-5-5', false) as unknown as Body;
    expect(body.tool_choice).toEqual({ type: 'auto' });
    expect(body.tools).toHaveLength(1);
    expect(body.thinking).toEqual({ type: 'adaptive' });
    expect(body.output_config).toEqual({ effort: 'high' });
    expect(request.backendWarnings).toContain("tool_choice 'required' sent as 'auto', the tools still offered: claude-opus-5-5 refuses a forced tool choice, so it may answer without calling one.");
    // The same request to a model that takes it is sent as asked.
    const older = userRequest('weather?', { tools: [TOOL], toolChoice: 'required' });
    expect((encodeAnthropicRequest(older, 'claude-opus-5', false) as unknown as Body).tool_choice).toEqual({ type: 'any' });
  });
});
