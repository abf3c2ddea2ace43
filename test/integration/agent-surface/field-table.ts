/**
 * What the router does with every body field the agents were captured sending
 * (test/fixtures/agent-captures/), on a route that translates the request to another upstream
 * type. A same-format upstream is sent the client's body as it came, so there every field is its own.
 *
 * Field paths: object keys joined by dots; an array element is `[]`, or `[type]` when it has a
 * string `type` (so `input[function_call].call_id`). Opaque subtrees (schemas, tool arguments,
 * client metadata maps) are not walked.
 *
 * - `mapped`: translated to the upstream's counterpart.
 * - `no-effect`: nothing the answer depends on (ids, the client's own bookkeeping, what a route
 *   fills in itself).
 * - `warned`: no counterpart: `warning` is named in svc_meta.warnings / x-svc-warning.
 * - `own-feature`: handled by another feature of its own; `what` says how it behaves today.
 * - `refused`: a 400 in the client's format naming the field.
 */
export type Handling = 'mapped' | 'no-effect' | 'warned' | 'own-feature' | 'refused';

export interface FieldRule {
  handling: Handling;
  what: string;
  /** For `warned`: words the warning holds, on every translating route. */
  warning?: string;
}

const m = (what: string): FieldRule => ({ handling: 'mapped', what });
const none = (what: string): FieldRule => ({ handling: 'no-effect', what });
const own = (what: string): FieldRule => ({ handling: 'own-feature', what });
const refused = (what: string): FieldRule => ({ handling: 'refused', what });

/** Keys never walked into: free-form values the router passes on or reads as a whole. */
export const OPAQUE_KEYS = new Set(['input_schema', 'parameters', 'schema', 'classifier_context', 'client_metadata', 'internal_chat_message_metadata_passthrough']);

/** Anthropic Messages (Claude Code) on openai-chat, openai-responses and gemini routes. */
export const MESSAGES_FIELDS: Readonly<Record<string, FieldRule>> = {
  model: m('routed; the upstream model is the route target'),
  max_tokens: m('max_tokens / max_output_tokens'),
  stream: m('streamed in the client format'),
  system: m('system / instructions'),
  'system[text].type': m('text part'),
  'system[text].text': m('text part'),
  'system[text].cache_control': m('breakpoint kept for upstreams that take cache_control; others cache automatically'),
  'system[text].cache_control.type': m('as cache_control'),
  'system[text].cache_control.ttl': m('as cache_control'),
  messages: m('messages'),
  'messages[].role': m('role (a "system" role stays a system message in place)'),
  'messages[].content': m('content parts'),
  'messages[].content[text].type': m('text part'),
  'messages[].content[text].text': m('text part'),
  'messages[].content[text].cache_control': m('as system cache_control'),
  'messages[].content[text].cache_control.type': m('as cache_control'),
  'messages[].content[text].cache_control.ttl': m('as cache_control'),
  'messages[].content[tool_use].type': m('tool call'),
  'messages[].content[tool_use].id': m('tool call id'),
  'messages[].content[tool_use].name': m('tool call name'),
  'messages[].content[tool_use].input': m('tool call arguments (JSON)'),
  'messages[].content[tool_use].cache_control': m('as system cache_control'),
  'messages[].content[tool_use].cache_control.type': m('as cache_control'),
  'messages[].content[tool_use].cache_control.ttl': m('as cache_control'),
  'messages[].content[tool_use].caller': m('"direct" is every upstream\'s own call; other callers are named in warnings'),
  'messages[].content[tool_use].caller.type': m('as caller'),
  'messages[].content[tool_result].type': m('tool result'),
  'messages[].content[tool_result].tool_use_id': m('tool result call id'),
  'messages[].content[tool_result].content': m('tool result content (text, images)'),
  'messages[].content[tool_result].is_error': m('error flag where the upstream has one, else said in the result'),
  'messages[].content[tool_result].cache_control': m('as cache_control'),
  'messages[].content[tool_result].cache_control.type': m('as cache_control'),
  'messages[].content[tool_result].cache_control.ttl': m('as cache_control'),
  'messages[].content[thinking].type': m('reasoning part'),
  'messages[].content[thinking].thinking': m('reasoning text'),
  'messages[].content[thinking].signature': m('Anthropic signature, kept for an Anthropic upstream'),
  tools: m('function tools'),
  'tools[].name': m('function name'),
  'tools[].description': m('function description'),
  'tools[].input_schema': m('function parameters'),
  'tools[].defer_loading': own('tool search: a deferred tool is left out and listed in svc_meta.dropped_tools'),
  thinking: m('reasoning effort'),
  'thinking.type': m('enabled/adaptive become reasoning effort'),
  'thinking.budget_tokens': m('reasoning budget where the upstream takes one, else effort'),
  'thinking.display': m('summarized/omitted become the reasoning display setting; other values named in warnings'),
  output_config: m('output settings'),
  'output_config.effort': m('reasoning effort'),
  'output_config.format': m('JSON schema output'),
  context_management: own('context editing: applied by the router on translating routes, by the upstream on Anthropic'),
  'context_management.edits': own('context editing'),
  'context_management.edits[clear_thinking_20251015].type': own('context editing'),
  'context_management.edits[clear_thinking_20251015].keep': own('context editing'),
  'context_management.edits[clear_tool_uses_20250919].type': own('context editing'),
  metadata: m('metadata'),
  'metadata.user_id': m('user id (OpenAI `user`, where the upstream takes one)'),
  safeguards: own('auto mode: the safety verdicts policy answers safeguard_results on every route'),
  'safeguards[dangerous_tool_use].type': own('auto mode'),
  'safeguards[dangerous_tool_use].classifier_context': own('auto mode'),
};

/** OpenAI Responses (Codex) on openai-chat and anthropic routes. */
export const RESPONSES_FIELDS: Readonly<Record<string, FieldRule>> = {
  model: m('routed; the upstream model is the route target'),
  stream: m('streamed in the client format'),
  instructions: m('system prompt'),
  input: m('messages'),
  'input[message].type': m('message'),
  'input[message].id': none('an item id; nothing stored'),
  'input[message].internal_chat_message_metadata_passthrough': none("Codex's own turn bookkeeping on a message"),
  'input[message].role': m('role (developer/system join the system prompt when leading)'),
  'input[message].content': m('content parts'),
  'input[message].content[input_text].type': m('text part'),
  'input[message].content[input_text].text': m('text part'),
  'input[message].content[output_text].type': m('text part'),
  'input[message].content[output_text].text': m('text part'),
  'input[message].content[output_text].annotations': none('annotations of a replayed answer'),
  'input[function_call].type': m('tool call'),
  'input[function_call].id': none('an item id; nothing stored'),
  'input[function_call].status': none('a replayed call is complete'),
  'input[function_call].internal_chat_message_metadata_passthrough': none("Codex's own turn bookkeeping"),
  'input[function_call_output].internal_chat_message_metadata_passthrough': none("Codex's own turn bookkeeping"),
  'input[reasoning].internal_chat_message_metadata_passthrough': none("Codex's own turn bookkeeping"),
  'input[compaction].internal_chat_message_metadata_passthrough': refused('as compaction'),
  'input[function_call].call_id': m('tool call id'),
  'input[function_call].name': m('tool call name'),
  'input[function_call].arguments': m('tool call arguments'),
  'input[function_call_output].type': m('tool result'),
  'input[function_call_output].id': none('an item id; nothing stored'),
  'input[function_call_output].call_id': m('tool result call id'),
  'input[function_call_output].output': m('tool result content'),
  'input[reasoning].type': m('reasoning part'),
  'input[reasoning].id': none('an item id'),
  'input[reasoning].summary': m('reasoning text'),
  'input[reasoning].content': m('reasoning text'),
  'input[reasoning].encrypted_content': m('sealed reasoning the router issued is restored for its upstream'),
  'input[compaction_trigger].type': refused('remote compaction (v2): an OpenAI Responses upstream only; elsewhere a 400 naming POST /v1/responses/compact'),
  'input[compaction].type': refused('an opaque compaction item: an OpenAI Responses upstream only; elsewhere a 400'),
  'input[compaction].id': refused('as compaction'),
  'input[compaction].encrypted_content': refused('as compaction'),
  tools: m('function tools'),
  'tools[function].type': m('function tool'),
  'tools[function].name': m('function name'),
  'tools[function].description': m('function description'),
  'tools[function].parameters': m('function parameters'),
  'tools[function].strict': m('strict schema where the upstream takes it'),
  'tools[custom].type': m('custom tool: a function taking one string'),
  'tools[custom].name': m('custom tool name'),
  'tools[custom].description': m('custom tool description'),
  'tools[custom].format': m('grammar described to the model in the tool description'),
  'tools[custom].format.type': m('as format'),
  'tools[custom].format.syntax': m('as format'),
  'tools[custom].format.definition': m('as format'),
  'tools[namespace].type': m('namespace: its tools flattened with the namespace in their names'),
  'tools[namespace].name': m('as namespace'),
  'tools[namespace].description': m('as namespace'),
  'tools[namespace].tools': m('as namespace'),
  'tools[namespace].tools[function].type': m('function tool'),
  'tools[namespace].tools[function].name': m('function name'),
  'tools[namespace].tools[function].description': m('function description'),
  'tools[namespace].tools[function].parameters': m('function parameters'),
  'tools[namespace].tools[function].strict': m('strict schema where the upstream takes it'),
  'tools[web_search].type': own('web search: left out and listed in svc_meta.dropped_tools on a translating route'),
  'tools[web_search].external_web_access': own('web search'),
  tool_choice: m('tool choice'),
  parallel_tool_calls: m('parallel tool calls'),
  reasoning: m('reasoning settings'),
  'reasoning.effort': m('reasoning effort'),
  'reasoning.summary': m('reasoning the upstream returns comes back as summary items'),
  store: none('nothing is stored; the reply says store: false unless asked'),
  include: m('reasoning.encrypted_content: reasoning comes back sealed for replay'),
  prompt_cache_key: m("the upstream's cache key where it has one"),
  client_metadata: none("Codex's own ids (installation, thread, turn); no upstream answer depends on them"),
  text: m('text format / verbosity'),
  'text.verbosity': m('verbosity where the upstream has it'),
  'text.format': m('JSON schema output'),
};

/** OpenAI-Beta and x-codex-beta-features values the agents send, and what the router does with each. */
export const OPENAI_BETAS: Readonly<Record<string, FieldRule>> = {
  remote_compaction_v2: {
    handling: 'own-feature',
    what: 'Codex may compact remotely: compaction_trigger/compaction items go to an OpenAI Responses upstream; elsewhere a 400 (see input[compaction_trigger])',
  },
  'responses_websockets=2026-02-06': own('Responses over WebSocket: its own feature (GET /v1/responses upgrade)'),
};
