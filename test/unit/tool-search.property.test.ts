import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeChatRequest } from '../../src/backends/openai-chat/encode-request.js';
import { encodeGeminiRequest } from '../../src/backends/gemini/encode-request.js';
import { encodeResponsesRequest } from '../../src/backends/openai-responses/encode-request.js';
import { decodeMessagesRequest } from '../../src/formats/messages/decode-request.js';

/**
 * Tool search over translating upstreams, across random conversations: each turn the upstream's
 * tools are exactly the tools not deferred (declared order) followed by the deferred tools some
 * tool_reference loaded (order first loaded), and turn over turn the list only grows at its end.
 */

interface Catalogue {
  names: string[];
  deferred: boolean[];
}

/** Distinct tool names, each deferred or not. */
const catalogue = fc
  .uniqueArray(fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,11}$/), { minLength: 1, maxLength: 12 })
  .chain((names) => fc.record({ names: fc.constant(names), deferred: fc.array(fc.boolean(), { minLength: names.length, maxLength: names.length }) }));

/** Each turn: the tool names one ToolSearch result references (possibly none, possibly repeats, possibly tools not deferred). */
const searches = (names: string[]) => fc.array(fc.array(fc.constantFrom(...names), { maxLength: 4 }), { minLength: 1, maxLength: 8 });

function body(tools: Catalogue, turns: string[][]): Record<string, unknown> {
  const messages: unknown[] = [{ role: 'user', content: 'Begin.' }];
  turns.forEach((references, index) => {
    const id = `toolu_${index}`;
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'ToolSearch', input: { query: references.join(',') } }] });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: id, content: references.length ? references.map((name) => ({ type: 'tool_reference', tool_name: name })) : 'No match.' }],
    });
  });
  return {
    model: 'svc.intelligent-basic',
    max_tokens: 256,
    tools: tools.names.map((name, index) => ({ name, description: `tool ${name}`, input_schema: { type: 'object', properties: {} }, ...(tools.deferred[index] ? { defer_loading: true } : {}) })),
    messages,
  };
}

/** What the upstream should get: not deferred in declared order, then deferred ones in load order. */
function expectedTools(tools: Catalogue, turns: string[][]): string[] {
  const isDeferred = new Map(tools.names.map((name, index) => [name, tools.deferred[index]!]));
  const loaded: string[] = [];
  for (const name of turns.flat()) if (isDeferred.get(name) && !loaded.includes(name)) loaded.push(name);
  return [...tools.names.filter((name) => !isDeferred.get(name)), ...loaded];
}

/** The function names each translating upstream is sent for one request body. */
function upstreamToolNames(raw: Record<string, unknown>): Record<string, string[]> {
  const encode = () => decodeMessagesRequest(raw).request;
  const chat = encodeChatRequest(encode(), 'm', false);
  const responses = encodeResponsesRequest({ ...encode(), forwardBody: undefined }, 'm', false);
  const gemini = encodeGeminiRequest(encode(), 'm', false);
  return {
    'openai-chat': (chat.tools ?? []).map((tool) => (tool as { function: { name: string } }).function.name),
    'openai-responses': (responses.tools ?? []).map((tool) => (tool as { name: string }).name),
    gemini: (gemini.tools ?? []).flatMap((tool) => ((tool as { functionDeclarations?: Array<{ name: string }> }).functionDeclarations ?? []).map((declaration) => declaration.name)),
  };
}

describe('tool search across random conversations', () => {
  it('sends exactly the tools not deferred plus the loaded ones, in stable order, growing only at the end', () => {
    fc.assert(
      fc.property(
        catalogue.chain((tools) => fc.tuple(fc.constant(tools), searches(tools.names))),
        ([tools, turns]) => {
          let previous: string[] = [];
          for (let turn = 0; turn <= turns.length; turn += 1) {
            const sofar = turns.slice(0, turn);
            const want = expectedTools(tools, sofar);
            const decoded = decodeMessagesRequest(body(tools, sofar));
            expect(decoded.request.tools.map((tool) => tool.name)).toEqual(want);
            // Every deferred tool not loaded is held back, none lost, none dropped.
            expect(decoded.request.deferredTools?.map((tool) => tool.name) ?? []).toEqual(tools.names.filter((name, index) => tools.deferred[index] && !want.includes(name)));
            expect(decoded.droppedTools).toBeUndefined();
            for (const names of Object.values(upstreamToolNames(body(tools, sofar)))) expect(names).toEqual(want);
            // Monotone: last turn's list is a prefix of this turn's.
            expect(want.slice(0, previous.length)).toEqual(previous);
            previous = want;
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
