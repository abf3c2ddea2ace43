import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../fakes/fake-server.js';
import { startGeminiUpstream } from '../fakes/gemini-upstream.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { addBackend, Fakes, metaOf, setRoute, SKU, UPSTREAM_KEY, type UpstreamKind } from './support.js';

/**
 * What Claude Code 2.1.330 sends (tool search results, a deferred placeholder tool, a system
 * message inside `messages`, effort, thinking display, context management, its session header,
 * the /api/hello probe), and what each translating upstream receives for it.
 */

let router: TestRouter;
const fakes = new Fakes();
const extra: FakeUpstream[] = [];

beforeAll(async () => {
  router = await startRouter();
});
afterEach(async () => {
  await fakes.closeAll();
  await Promise.all(extra.splice(0).map((fake) => fake.close()));
});
afterAll(() => router.close());

const SESSION = '14742f6a-42a4-4a73-bce4-35a9672192e8';
/** The cache key derived from the caller and the session (src/routing/session-key.ts): stable, and not the session id itself. */
const DERIVED_CACHE_KEY = /^svc-[\w-]{21}$/;
const ENVIRONMENT = '# Environment\nYou have been invoked in the following environment: \n - Primary working directory: /home/dev/project';

const BASH = { name: 'Bash', description: 'Executes a given bash command.', input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } };
const PLACEHOLDER = {
  name: 'DeferredToolPlaceholder',
  description: 'Reserved placeholder that keeps deferred tool loading active; never call this tool.',
  input_schema: { type: 'object', properties: {} },
  defer_loading: true,
};
/** A deferred tool Claude Code declares once its ToolSearch has loaded it. */
const WEB_FETCH = {
  name: 'WebFetch',
  description: 'Fetches a URL.',
  input_schema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
  defer_loading: true,
};
const LOADED_NOTE = 'Tool loaded: WebFetch. It is in your tool list now; call it directly.';

/** The shape of Claude Code's second request: user, system (environment), assistant tool call, tool result. */
function claudeCodeBody(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: SKU,
    max_tokens: 32000,
    system: [{ type: 'text', text: 'You are Claude Code.' }],
    tools: [BASH, PLACEHOLDER, WEB_FETCH],
    metadata: { user_id: 'user_0123' },
    thinking: { type: 'adaptive', display: 'omitted' },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    output_config: { effort: 'high' },
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Find a web fetch tool.' }] },
      { role: 'system', content: [{ type: 'text', text: ENVIRONMENT }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'ToolSearch', input: { query: 'select:WebFetch' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'tool_reference', tool_name: 'WebFetch' }] }] },
    ],
    ...fields,
  };
}

async function post(body: Record<string, unknown>): Promise<{ status: number; json: any }> {
  const response = await fetch(`${router.origin}/v1/messages?beta=true`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${router.key}`,
      'anthropic-version': '2023-06-01',
      'x-claude-code-session-id': SESSION,
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

/** Routes the SKU to a fresh fake of this kind under this upstream model. */
async function upstream(kind: UpstreamKind | 'gemini', model: string): Promise<FakeUpstream> {
  const script = [{ text: 'ok' }, { text: 'ok' }];
  const fake = kind === 'gemini' ? await startGeminiUpstream(script, { apiKey: UPSTREAM_KEY }) : await fakes.start(kind, script);
  if (kind === 'gemini') extra.push(fake);
  const backend = addBackend(router, `cc-${kind}`, kind, fake.url);
  setRoute(router, SKU, [`${backend}:${model}`]);
  return fake;
}

describe('Claude Code requests over openai-chat', () => {
  it('loads the referenced tool, holds the placeholder back, folds the mid-conversation system message, and carries effort and the session', async () => {
    const fake = await upstream('openai-chat', 'gpt-5-mini');
    const reply = await post(claudeCodeBody());
    expect(reply.status).toBe(200);
    const sent = fake.requests[0]!.body as any;
    expect(sent.messages.map((message: any) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(sent.messages[0].content).toBe(`You are Claude Code.\n\n${ENVIRONMENT}`);
    expect(sent.messages[3]).toEqual({ role: 'tool', tool_call_id: 'toolu_01', content: LOADED_NOTE });
    expect(sent.tools.map((tool: any) => tool.function.name)).toEqual(['Bash', 'WebFetch']);
    expect(sent.reasoning_effort).toBe('high');
    expect(sent.prompt_cache_key).toMatch(DERIVED_CACHE_KEY);
    const meta = metaOf(reply.json);
    expect(meta.dropped_tools).toBeUndefined();
    expect(meta.warnings?.some((warning) => warning.startsWith("reasoning display 'omitted' not applied"))).toBe(true);
    // clear_thinking_20251015 with keep 'all' is applied by the router: it keeps every thinking block, clears nothing, and says so.
    expect((meta.warnings ?? []).some((warning) => warning.startsWith('context_management'))).toBe(false);
    expect(reply.json.context_management).toEqual({ applied_edits: [] });
  });

  it('with no top system prompt, the mid-conversation system text becomes the leading system message', async () => {
    const fake = await upstream('openai-chat', 'model-for-chat');
    const reply = await post(claudeCodeBody({ system: undefined }));
    expect(reply.status).toBe(200);
    const sent = fake.requests[0]!.body as any;
    expect(sent.messages.filter((message: any) => message.role === 'system')).toEqual([{ role: 'system', content: ENVIRONMENT }]);
    expect(sent.messages[0].role).toBe('system');
    // Not an OpenAI model family: no prompt_cache_key, which some compatible servers refuse.
    expect(sent.prompt_cache_key).toBeUndefined();
  });
});

describe('Claude Code requests over openai-responses', () => {
  it('loads the referenced tool, holds the placeholder back, and carries reasoning.effort and the session', async () => {
    const fake = await upstream('openai-responses', 'gpt-5-mini');
    const reply = await post(claudeCodeBody());
    expect(reply.status).toBe(200);
    const sent = fake.requests[0]!.body as any;
    // display 'omitted': no readable summary asked for.
    expect(sent.reasoning).toEqual({ effort: 'high' });
    const output = sent.input.find((item: any) => item.type === 'function_call_output');
    expect(output.output).toBe(LOADED_NOTE);
    expect(sent.tools.map((tool: any) => tool.name)).toEqual(['Bash', 'WebFetch']);
    expect(sent.reasoning).toMatchObject({ effort: 'high' });
    expect(sent.prompt_cache_key).toMatch(DERIVED_CACHE_KEY);
    const meta = metaOf(reply.json);
    expect(meta.dropped_tools).toBeUndefined();
    expect((meta.warnings ?? []).some((warning) => warning.startsWith('context_management'))).toBe(false);
    expect(reply.json.context_management).toEqual({ applied_edits: [] });
    expect((meta.warnings ?? []).some((warning) => warning.includes('thinking.display'))).toBe(false);
  });

  it("asks for reasoning summaries when thinking.display is 'summarized', and names an Anthropic-only display in the warnings", async () => {
    const fake = await upstream('openai-responses', 'gpt-5-mini');
    expect((await post(claudeCodeBody({ thinking: { type: 'adaptive', display: 'summarized' } }))).status).toBe(200);
    expect((fake.requests[0]!.body as any).reasoning).toEqual({ effort: 'high', summary: 'auto' });
    const reply = await post(claudeCodeBody({ thinking: { type: 'adaptive', display: 'updates' } }));
    expect(metaOf(reply.json).warnings?.some((warning) => warning.startsWith("thinking.display: 'updates'"))).toBe(true);
  });
});

describe('Claude Code requests over gemini', () => {
  it('loads the referenced tool, holds the placeholder back, and turns effort into a thinking budget', async () => {
    const fake = await upstream('gemini', 'gemini-2.5-flash');
    const reply = await post(claudeCodeBody());
    expect(reply.status).toBe(200);
    const sent = fake.requests[0]!.body as any;
    expect(JSON.stringify(sent.contents)).toContain(LOADED_NOTE);
    const declared = sent.tools.flatMap((tool: any) => (tool.functionDeclarations ?? []).map((declaration: any) => declaration.name));
    expect(declared).toEqual(['Bash', 'WebFetch']);
    expect(sent.generationConfig.thinkingConfig.thinkingBudget).toBeGreaterThan(0);
    // display 'omitted': no thought summaries.
    expect(sent.generationConfig.thinkingConfig.includeThoughts).toBe(false);
    expect(metaOf(reply.json).dropped_tools).toBeUndefined();
  });
});

describe('Claude Code requests over anthropic (same format)', () => {
  it('forwards the body untouched, deferred tool and tool references included', async () => {
    const fake = await upstream('anthropic', 'claude-sonnet-4-5');
    const body = claudeCodeBody();
    const reply = await post(body);
    expect(reply.status).toBe(200);
    const sent = fake.requests[0]!.body as any;
    expect(sent.tools).toEqual(body.tools);
    expect(sent.messages).toEqual(body.messages);
    expect(sent.context_management).toEqual(body.context_management);
  });
});

describe('the /api/hello probe', () => {
  it('answers HEAD with 200 and no body, without a key', async () => {
    const response = await fetch(`${router.origin}/api/hello`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });

  it('answers GET with a small JSON, without a key', async () => {
    const response = await fetch(`${router.origin}/api/hello`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: 'svc-router', status: 'ok' });
  });
});
