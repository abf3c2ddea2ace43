import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANTHROPIC_BETAS } from '../../../src/formats/messages/beta-features.js';
import { startAnthropicUpstream } from '../../fakes/anthropic-upstream.js';
import type { FakeUpstream } from '../../fakes/fake-server.js';
import { startOpenAIChatUpstream } from '../../fakes/openai-chat-upstream.js';
import { startRouter, type TestRouter } from '../../helpers/router.js';
import { MESSAGES_FIELDS, OPAQUE_KEYS, OPENAI_BETAS, RESPONSES_FIELDS, type FieldRule } from './field-table.js';

/**
 * Every request the newest agents were captured sending (test/fixtures/agent-captures/, recorded by
 * test/agents/capture-requests.ts) goes through the real router to an OpenAI Chat fake and an
 * Anthropic fake. Each body field and beta must be in the table (field-table.ts, ANTHROPIC_BETAS),
 * and the table must hold: what the agents normally send is answered, what is not honoured is named.
 */

const CAPTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/agent-captures');

interface Capture {
  scenario: string;
  n: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
}

const captures: Array<Capture & { file: string }> = fs
  .readdirSync(CAPTURES)
  .filter((file) => file.endsWith('.jsonl'))
  .flatMap((file) =>
    fs
      .readFileSync(path.join(CAPTURES, file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => ({ ...(JSON.parse(line) as Capture), file })),
  );

const pathname = (capture: Capture): string => capture.path.split('?')[0]!;
const isMessages = (capture: Capture) => capture.method === 'POST' && pathname(capture) === '/v1/messages';
const isResponses = (capture: Capture) => capture.method === 'POST' && pathname(capture) === '/v1/responses';
const label = (capture: Capture & { file: string }) => `${capture.file} ${capture.scenario} #${capture.n}`;

/** The body's field paths, as field-table.ts writes them. */
export function fieldPaths(value: unknown, prefix = '', into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) {
      const type = item && typeof item === 'object' && typeof (item as { type?: unknown }).type === 'string' ? (item as { type: string }).type : '';
      fieldPaths(item, `${prefix}[${type}]`, into);
    }
  } else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      const at = prefix ? `${prefix}.${key}` : key;
      into.add(at);
      if (OPAQUE_KEYS.has(key) || (key === 'input' && prefix.endsWith('[tool_use]'))) continue;
      fieldPaths(inner, at, into);
    }
  }
  return into;
}

const betasOf = (header: string | undefined): string[] => (header ?? '').split(',').map((beta) => beta.trim()).filter(Boolean);

describe('the captured agent request surface', () => {
  it('holds captures of both agents, tool results and follow-up turns included', () => {
    expect(captures.filter(isMessages).length).toBeGreaterThan(2);
    expect(captures.filter(isResponses).length).toBeGreaterThan(2);
    expect(captures.some((capture) => JSON.stringify(capture.body).includes('"tool_result"'))).toBe(true);
    expect(captures.some((capture) => JSON.stringify(capture.body).includes('"function_call_output"'))).toBe(true);
  });

  it('names every captured body field in the table', () => {
    const unknown: string[] = [];
    for (const capture of captures) {
      const table = isMessages(capture) ? MESSAGES_FIELDS : isResponses(capture) ? RESPONSES_FIELDS : undefined;
      if (!table) continue;
      for (const field of fieldPaths(capture.body)) if (!Object.hasOwn(table, field)) unknown.push(`${label(capture)}: ${field}`);
    }
    expect([...new Set(unknown.map((entry) => entry.replace(/^.*: /, '')))], unknown.join('\n')).toEqual([]);
  });

  it('names every captured anthropic-beta, OpenAI-Beta and x-codex-beta-features value', () => {
    const unknown = new Set<string>();
    for (const capture of captures) {
      for (const beta of betasOf(capture.headers['anthropic-beta'])) if (!ANTHROPIC_BETAS.has(beta)) unknown.add(`anthropic-beta ${beta}`);
      for (const name of ['openai-beta', 'x-codex-beta-features']) {
        for (const beta of betasOf(capture.headers[name])) if (!Object.hasOwn(OPENAI_BETAS, beta)) unknown.add(`${name} ${beta}`);
      }
    }
    expect([...unknown]).toEqual([]);
  });

  it('has no machine path or credential in a capture', () => {
    for (const capture of captures) {
      const text = JSON.stringify(capture);
      expect(text, label(capture)).not.toMatch(/\/tmp\/|\/home\/|svc-capture-|sk-capture/);
      for (const name of ['authorization', 'x-api-key']) if (capture.headers[name] !== undefined) expect(capture.headers[name], label(capture)).toMatch(/^\*\*\*/);
    }
  });
});

/** Headers a client of the capture's format sends, with the router's key in place of the masked one. */
function clientHeaders(capture: Capture, key: string): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  for (const name of ['anthropic-version', 'anthropic-beta', 'openai-beta', 'x-codex-beta-features', 'user-agent']) {
    if (capture.headers[name] !== undefined) headers[name] = capture.headers[name]!;
  }
  return headers;
}

/** A Codex run against OpenAI's own provider names an OpenAI model: the router serves its SKUs instead. */
function servedModel(body: unknown): unknown {
  const json = body as Record<string, unknown>;
  return typeof json.model === 'string' && json.model.startsWith('gpt-') ? { ...json, model: 'svc.intelligent-pro' } : body;
}

type RouteKind = 'openai-chat' | 'anthropic';

describe.each<RouteKind>(['openai-chat', 'anthropic'])('captured agent requests through the router to an %s upstream', (kind) => {
  let upstream: FakeUpstream;
  let router: TestRouter;

  beforeAll(async () => {
    upstream = kind === 'anthropic' ? await startAnthropicUpstream(() => ({ text: 'ok' })) : await startOpenAIChatUpstream(() => ({ text: 'ok' }));
    router = await startRouter();
    const target = kind === 'anthropic' ? 'up:claude-sonnet-4-5' : 'up:gpt-4o';
    router.config.update((settings) => {
      settings.backends.up = { type: kind, baseUrl: upstream.url, apiKey: 'k' };
      Object.assign(settings.routes, { 'claude-*': [target], 'svc.intelligent-pro': [target] });
    });
  });
  afterAll(async () => {
    await router?.close();
    await upstream?.close();
  });

  async function send(capture: Capture, route: string, body: unknown) {
    const response = await fetch(`${router.origin}${route}`, { method: 'POST', headers: clientHeaders(capture, router.key), body: JSON.stringify(body) });
    return { status: response.status, warning: response.headers.get('x-svc-warning') ?? '', text: await response.text() };
  }

  const completions = captures.filter((capture) => isMessages(capture) || isResponses(capture));
  it.each(completions.map((capture) => [label(capture), capture] as const))('%s: answered, with every field not honoured named', async (_name, capture) => {
    const messages = isMessages(capture);
    // On an Anthropic route a Messages request is forwarded as it came: nothing is translated.
    const translated = !(messages && kind === 'anthropic');
    const table = messages ? MESSAGES_FIELDS : RESPONSES_FIELDS;
    const fields = [...fieldPaths(capture.body)];
    const refusedField = translated ? fields.find((field) => table[field]?.handling === 'refused') : undefined;
    const reply = await send(capture, pathname(capture), servedModel(capture.body));
    const why = `${reply.status} ${reply.warning}\n${reply.text.slice(0, 1500)}`;

    if (refusedField) {
      expect(reply.status, why).toBe(400);
      expect(reply.text, why).toContain(refusedField.replace(/^input\[(\w+)\].*$/, "'$1'"));
      return;
    }
    expect(reply.status, why).toBe(200);
    // The stream ran to its terminal event.
    expect(reply.text, why).toContain(messages ? 'message_stop' : 'response.completed');
    if (!translated) {
      expect(reply.warning, why).not.toContain('anthropic-beta');
      return;
    }
    for (const field of fields) {
      const rule: FieldRule | undefined = table[field];
      if (rule?.handling === 'warned') expect(reply.warning, `${field}\n${why}`).toContain(rule.warning);
    }
    // Each beta with no counterpart on this route is named; one that is mapped or changes nothing is not.
    for (const beta of betasOf(capture.headers['anthropic-beta'])) {
      const entry = ANTHROPIC_BETAS.get(beta);
      if (entry?.handling === 'named') expect(reply.warning, why).toContain(beta);
      else expect(reply.warning, why).not.toContain(`${beta} is honoured`);
    }
    // Context edits are applied by the router on a translating route, and the reply says what they cleared.
    if (messages && fields.includes('context_management.edits')) {
      expect(reply.warning, why).not.toContain('context_management.edits');
      expect(reply.text, why).toContain('"context_management"');
    }
  });

  const firstMessages = captures.find(isMessages)!;
  const firstResponses = captures.find(isResponses)!;

  it("counts a captured Messages request's tokens (POST /v1/messages/count_tokens)", async () => {
    const { stream: _stream, max_tokens: _max, ...body } = firstMessages.body as Record<string, unknown>;
    const reply = await send(firstMessages, '/v1/messages/count_tokens', body);
    expect(reply.status, reply.text).toBe(200);
    expect(JSON.parse(reply.text).input_tokens).toBeGreaterThan(0);
  });

  it("counts a captured Responses request's tokens (POST /v1/responses/input_tokens)", async () => {
    const reply = await send(firstResponses, '/v1/responses/input_tokens', firstResponses.body);
    expect(reply.status, reply.text).toBe(200);
    const counted = JSON.parse(reply.text);
    expect(counted.object).toBe('response.input_tokens');
    expect(counted.input_tokens).toBeGreaterThan(0);
  });

  it('compacts a captured Codex conversation (POST /v1/responses/compact) with the route model', async () => {
    const before = upstream.requests.length;
    const withResults = captures.filter(isResponses).find((capture) => JSON.stringify(capture.body).includes('function_call_output'))!;
    const { input, instructions, model } = withResults.body as Record<string, unknown>;
    const reply = await send(withResults, '/v1/responses/compact', { model, input, instructions });
    expect(reply.status, reply.text).toBe(200);
    const compacted = JSON.parse(reply.text);
    expect(compacted.object).toBe('response.compaction');
    const last = compacted.output.at(-1);
    expect(last).toMatchObject({ type: 'message', role: 'user' });
    expect(last.content[0].text).toContain('ok');
    // The user's own messages stay; the tool calls are summarised away.
    expect(compacted.output.every((item: any) => item.type === 'message' && item.role === 'user')).toBe(true);
    expect(upstream.requests.length).toBe(before + 1);
    // The route's model was asked for the summary, without the conversation's tools.
    const asked = upstream.requests.at(-1)!.body as Record<string, any>;
    expect(asked.tools ?? []).toEqual([]);
    expect(JSON.stringify(asked)).toContain('Summarise the conversation so far');
  });
});
