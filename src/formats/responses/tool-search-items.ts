import type { CanonicalRequest, Message, SameFormatOnly, ToolResultPart, ToolSpec } from '../../core/request.js';
import { loadedToolNames, toolsForUpstream, toolsLoadedNote } from '../../core/tool-search.js';
import { asArray, optionalString, requiredString, type Json } from '../shared/read-fields.js';
import { decodeResponsesTools, TOOL_SEARCH_NAME, type ClientTool, type DecodedTools } from './map-tools.js';

/**
 * Replayed tool search items (https://developers.openai.com/api/docs/guides/tools-tool-search), for
 * an upstream without tool search: a client-executed `tool_search_call` is the model's call of the
 * `tool_search` function, and the client's `tool_search_output` its result, which loads the tools it
 * returns. Items of the hosted search (`execution: "server"`) only an OpenAI Responses upstream can
 * take: refused elsewhere.
 */

/** The tools each decoded tool_search_output returned, by its tool-result part. */
const RETURNED = new WeakMap<ToolResultPart, DecodedTools>();

export function decodeToolSearchCall(item: Json, path: string, kept: SameFormatOnly[]): Message | undefined {
  if (hostedOnly(item, path, kept)) return undefined;
  const callId = requiredString(item, 'call_id', `${path}.call_id`);
  return { role: 'assistant', content: [{ type: 'tool-call', id: callId, name: TOOL_SEARCH_NAME, arguments: JSON.stringify(item.arguments ?? {}) }] };
}

export function decodeToolSearchOutput(item: Json, path: string, kept: SameFormatOnly[]): Message | undefined {
  if (hostedOnly(item, path, kept)) return undefined;
  const callId = requiredString(item, 'call_id', `${path}.call_id`);
  const returned = decodeResponsesTools(item.tools === undefined || item.tools === null ? [] : asArray(item.tools, `${path}.tools`));
  kept.push(...returned.sameFormatOnly.map((entry) => ({ ...entry, param: `${path}.${entry.param}` })));
  const names = returned.specs.map((spec) => spec.name);
  const part: ToolResultPart = {
    type: 'tool-result',
    callId,
    content: [{ type: 'text', text: names.length ? toolsLoadedNote(names) : 'No tools matched.' }],
    ...(names.length ? { loadsTools: names } : {}),
  };
  RETURNED.set(part, returned);
  return { role: 'tool', content: [part] };
}

function hostedOnly(item: Json, path: string, kept: SameFormatOnly[]): boolean {
  if (optionalString(item, 'execution', `${path}.execution`) !== 'server') return false;
  kept.push({
    param: path,
    message: `a replayed '${String(item.type)}' of the hosted tool_search can be passed only to an OpenAI Responses upstream, and this model routes elsewhere.`,
    refuse: true,
  });
  return true;
}

/**
 * Deferred functions wait for a tool_search_output to load them; a tool the output returns that the
 * request does not declare is loaded from the output's own definition, as OpenAI does. Each loaded
 * tool's client shape joins `toolsByName`, so the model's call to it reaches the client as declared.
 */
export function holdBackDeferredTools(request: CanonicalRequest, toolsByName: Map<string, ClientTool>, kept: SameFormatOnly[]): void {
  const declared: ToolSpec[] = [...request.tools];
  const known = new Set(declared.map((tool) => tool.name));
  for (const message of request.messages) {
    for (const part of message.content) {
      const returned = part.type === 'tool-result' ? RETURNED.get(part) : undefined;
      if (!returned) continue;
      for (const spec of returned.specs) {
        if (known.has(spec.name)) continue;
        known.add(spec.name);
        declared.push({ ...spec, deferred: true });
        const client = returned.byCanonicalName.get(spec.name);
        if (client && !toolsByName.has(spec.name)) toolsByName.set(spec.name, client);
      }
    }
  }
  const { tools, held, unresolved } = toolsForUpstream(declared, loadedToolNames(request.messages));
  request.tools = tools;
  if (held.length) request.deferredTools = held;
  // Every name an output loads is declared above, so none is left unresolved; kept as a guard.
  for (const name of unresolved) kept.push({ param: 'input', message: `a tool_search_output loads '${name}', which no tool declares.`, refuse: true });
}
