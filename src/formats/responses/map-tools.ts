import type { SameFormatOnly, ToolSpec } from '../../core/request.js';
import { CUSTOM_TOOL_INPUT as CUSTOM_INPUT, canonicalToolName } from '../../core/tool-conventions.js';
import { asObject, optionalString, requiredString, type Json } from '../shared/read-fields.js';
import type { WebSearchSpec } from '../../core/web-search.js';
import { readContextSize, readDomains, readUserLocation, searchSpec, unmodelledSearchFields } from '../shared/web-search-options.js';

/** How a canonical tool name maps back to what the client declared. */
export interface ClientTool {
  kind: 'function' | 'custom' | 'tool_search';
  name: string;
  namespace?: string;
}

export interface DecodedTools {
  specs: ToolSpec[];
  /** Canonical (flattened) name → the client's tool. */
  byCanonicalName: Map<string, ClientTool>;
  /** Built-in tool types no backend here can run. */
  dropped: string[];
  /** Tools only an OpenAI Responses upstream can take, refused elsewhere (hosted tool search). */
  sameFormatOnly: SameFormatOnly[];
  /** The hosted web search tool, which every route runs (core/web-search.ts). */
  webSearch?: WebSearchSpec;
  /** Its fields no other upstream takes, for the warnings of a translating route. */
  webSearchUnsent?: { param: string; fields: string[] };
}

/** The canonical name of a client-executed `tool_search` tool, offered to other upstreams as a function. */
export const TOOL_SEARCH_NAME = 'tool_search';

/** The hosted web search tool's types, current and preview: https://platform.openai.com/docs/guides/tools-web-search */
const WEB_SEARCH_TOOL = /^web_search(?:_preview)?(?:_\d{4}_\d{2}_\d{2})?$/;

/**
 * Responses tools in canonical form: functions as they are, namespaces flattened, custom
 * (free-form) tools as a function taking one string, and built-in types (web_search, local_shell,
 * file_search, …) left out and listed, since the client or the upstream runs those, not a backend here.
 */
export function decodeResponsesTools(raw: unknown[]): DecodedTools {
  const tools: DecodedTools = { specs: [], byCanonicalName: new Map(), dropped: [], sameFormatOnly: [] };
  raw.forEach((item, index) => addTool(tools, asObject(item, `tools[${index}]`), `tools[${index}]`));
  return tools;
}

function addTool(tools: DecodedTools, tool: Json, path: string, namespace?: string): void {
  const type = optionalString(tool, 'type', `${path}.type`) ?? 'function';
  if (type === 'function') {
    const name = requiredString(tool, 'name', `${path}.name`);
    const parameters = tool.parameters === undefined || tool.parameters === null ? { type: 'object', properties: {} } : asObject(tool.parameters, `${path}.parameters`);
    register(tools, { kind: 'function', name, ...(namespace ? { namespace } : {}) }, describe(tool, path), parameters, tool.defer_loading === true);
  } else if (type === 'custom') {
    const name = requiredString(tool, 'name', `${path}.name`);
    const grammar = (tool.format as Json | undefined)?.definition;
    const description = [
      describe(tool, path) ?? '',
      `Free-form tool: put the whole raw input in the "${CUSTOM_INPUT}" string, not JSON-encoded.`,
      typeof grammar === 'string' ? `The input must match this grammar:\n${grammar}` : '',
    ]
      .filter(Boolean)
      .join('\n\n');
    register(tools, { kind: 'custom', name, ...(namespace ? { namespace } : {}) }, description, {
      type: 'object',
      properties: { [CUSTOM_INPUT]: { type: 'string', description: 'The raw input for the tool.' } },
      required: [CUSTOM_INPUT],
    }, tool.defer_loading === true);
  } else if (type === 'tool_search' && !namespace) {
    addToolSearch(tools, tool, path);
  } else if (WEB_SEARCH_TOOL.test(type) && !namespace) {
    const filters = tool.filters === undefined || tool.filters === null ? {} : asObject(tool.filters, `${path}.filters`);
    tools.webSearch = searchSpec(type, path, {
      allowedDomains: readDomains(filters, 'allowed_domains', `${path}.filters.allowed_domains`),
      blockedDomains: readDomains(filters, 'blocked_domains', `${path}.filters.blocked_domains`),
      userLocation: readUserLocation(tool.user_location, `${path}.user_location`),
      contextSize: readContextSize(tool, 'search_context_size', `${path}.search_context_size`),
    });
    const unsent = unmodelledSearchFields(tool, ['type', 'filters', 'user_location', 'search_context_size']);
    if (unsent.length) tools.webSearchUnsent = { param: path, fields: unsent };
  } else if (type === 'namespace' && !namespace) {
    const name = requiredString(tool, 'name', `${path}.name`);
    const inner = Array.isArray(tool.tools) ? tool.tools : [];
    inner.forEach((nested, index) => addTool(tools, asObject(nested, `${path}.tools[${index}]`), `${path}.tools[${index}]`, name));
  } else {
    tools.dropped.push(type);
  }
}

function register(tools: DecodedTools, client: ClientTool, description: string | undefined, parameters: Record<string, unknown>, deferred = false): void {
  const name = canonicalToolName(client.name, client.namespace);
  tools.byCanonicalName.set(name, client);
  // A deferred function (defer_loading) waits for a tool_search_output to load it (core/tool-search.ts).
  tools.specs.push({ name, ...(description ? { description } : {}), parameters, ...(deferred ? { deferred: true as const } : {}) });
}

/**
 * Tool search (https://developers.openai.com/api/docs/guides/tools-tool-search). Run by the client
 * (`execution: "client"`, as Codex declares it), it is a function like any other to an upstream
 * without tool search: the model's call reaches the client as a `tool_search_call`, and the
 * client's `tool_search_output` loads the tools it returns. Run by OpenAI (hosted, the default), no
 * other upstream can run it, so a translating route refuses the request rather than leave the
 * deferred tools unreachable.
 */
function addToolSearch(tools: DecodedTools, tool: Json, path: string): void {
  if (optionalString(tool, 'execution', `${path}.execution`) !== 'client') {
    tools.sameFormatOnly.push({
      param: path,
      message: "the hosted tool_search runs only on an OpenAI Responses upstream, and this model routes elsewhere; declare it with execution: 'client' and answer the model's tool_search_call with a tool_search_output, or route the model to an openai-responses backend.",
      refuse: true,
    });
    return;
  }
  const parameters =
    tool.parameters === undefined || tool.parameters === null
      ? { type: 'object', properties: { query: { type: 'string', description: 'What to search the deferred tools for.' } }, required: ['query'] }
      : asObject(tool.parameters, `${path}.parameters`);
  register(tools, { kind: 'tool_search', name: TOOL_SEARCH_NAME }, describe(tool, path) ?? 'Searches the deferred tools and loads the ones that match, for the next call.', parameters);
}

const describe = (tool: Json, path: string): string | undefined => optionalString(tool, 'description', `${path}.description`);

/**
 * The tools as the response object lists them: each function tool with every field the Open
 * Responses FunctionTool requires, `null` for a description, parameters or `strict` the client
 * left out (what it asked, not a default the upstream may or may not apply); any other tool as it came.
 */
export function echoResponsesTools(raw: readonly unknown[] = []): unknown[] {
  return raw.map((item) => {
    const tool = item as Json;
    if ((tool.type ?? 'function') !== 'function') return tool;
    return {
      ...tool,
      type: 'function',
      description: tool.description ?? null,
      parameters: tool.parameters ?? null,
      strict: typeof tool.strict === 'boolean' ? tool.strict : null,
    };
  });
}
