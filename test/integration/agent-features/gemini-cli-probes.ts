import { parseSse } from '../../helpers/sse-frames.js';
import { SKU, toolNamesOf, type UpstreamKind } from '../support.js';
import type { Outcome, Route } from './outcomes.js';
import { offeredSearch, type Probe, type ProbeContext } from './probes.js';

/**
 * Gemini CLI's features, sent as Gemini CLI 0.61.0 sends them (test/fixtures/agent-captures/
 * gemini-cli-0.61.0.jsonl): `streamGenerateContent?alt=sse` with the key in `x-goog-api-key`,
 * `parametersJsonSchema` declarations, thinking with `includeThoughts`, and the requests its own
 * tools make (Google Search, code execution, token counting, a JSON answer).
 */

interface GeminiAnswer {
  status: number;
  headers: Headers;
  json: any;
  /** The stream's chunks, parsed (streams only). */
  chunks: any[];
}

async function call(context: ProbeContext, method: 'generateContent' | 'streamGenerateContent' | 'countTokens', body: unknown): Promise<GeminiAnswer> {
  const query = method === 'streamGenerateContent' ? '?alt=sse' : '';
  const response = await fetch(`${context.router.origin}/v1beta/models/${SKU}:${method}${query}`, {
    method: 'POST',
    headers: { 'x-goog-api-key': context.router.key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const streamed = response.headers.get('content-type')?.includes('text/event-stream');
  return {
    status: response.status,
    headers: response.headers,
    json: streamed ? undefined : text ? JSON.parse(text) : undefined,
    chunks: streamed ? parseSse(text).map((frame) => JSON.parse(frame.data)) : [],
  };
}

const warningsOf = (answer: GeminiAnswer): string =>
  decodeURIComponent(answer.headers.get('x-svc-warning') ?? '') + JSON.stringify(answer.json?.svc_meta?.warnings ?? answer.chunks.at(-1)?.svc_meta?.warnings ?? []);

/** Every part of the reply, streamed or not. */
const partsOf = (answer: GeminiAnswer): any[] =>
  answer.json ? (answer.json.candidates?.[0]?.content?.parts ?? []) : answer.chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []);

/** Refused in Google's error shape naming the field, or answered and named in the warnings; else lost. */
function refusedOrWarned(answer: GeminiAnswer, field: RegExp, how: string): Outcome {
  if (answer.status === 400 && answer.json?.error?.status === 'INVALID_ARGUMENT' && field.test(String(answer.json.error.message))) return { by: 'refused', how };
  if (answer.status === 200 && field.test(warningsOf(answer))) return { by: 'warned', how };
  return { by: 'lost', how: `status ${answer.status}` };
}

const user = (text: string) => [{ role: 'user', parts: [{ text }] }];
const shellDeclaration = { name: 'run_shell_command', description: 'Runs a shell command.', parametersJsonSchema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } };
/** Gemini CLI's sampling and thinking, as it sends them for a 2.5 model. */
const GENERATION = { temperature: 1, topP: 0.95, topK: 64, thinkingConfig: { includeThoughts: true, thinkingBudget: 8192 } };

export const GEMINI_CLI: Probe[] = [
  {
    agent: 'Gemini CLI',
    feature: 'thinking (`thinkingConfig` with `includeThoughts`)',
    async run(context) {
      const { route } = context;
      const requests = await context.upstream([{ reasoning: { text: 'Weighing it.' }, text: 'Thought.' }]);
      const answer = await call(context, 'streamGenerateContent', { contents: user('Think.'), generationConfig: GENERATION });
      if (answer.status !== 200) return { by: 'lost', how: `status ${answer.status}` };
      const body = requests[0]?.body ?? {};
      const thoughts = partsOf(answer).some((part) => part.thought === true && part.text);
      switch (route) {
        case 'anthropic':
          return body.thinking?.type === 'enabled' || body.thinking?.type === 'adaptive' ? { by: 'upstream', how: thoughts ? '`thinking`, its summary as thought parts' : '`thinking`' } : { by: 'lost' };
        case 'openai-responses':
          return body.reasoning?.effort ? { by: 'upstream', how: '`reasoning.effort`' } : { by: 'lost' };
        case 'openai-chat':
          // Sent to models the catalog knows take it; otherwise named, not guessed at.
          return body.reasoning_effort ? { by: 'upstream', how: '`reasoning_effort`' } : refusedOrWarned(answer, /effort/, 'only to models known to reason');
        case 'gemini':
          return body.generationConfig?.thinkingConfig?.includeThoughts === true && thoughts ? { by: 'upstream', how: 'thought parts relayed' } : { by: 'lost' };
        case 'offline':
          return { by: 'router', how: 'no model to think' };
      }
    },
  },
  {
    agent: 'Gemini CLI',
    feature: 'tools (`functionDeclarations` with `parametersJsonSchema`)',
    async run(context) {
      const { route } = context;
      const requests = await context.upstream([{ toolCalls: [{ id: 'call_ls', name: 'run_shell_command', arguments: { command: 'ls' } }] }]);
      const answer = await call(context, 'streamGenerateContent', { contents: user('List the files.'), tools: [{ functionDeclarations: [shellDeclaration] }], generationConfig: GENERATION });
      if (answer.status !== 200) return { by: 'lost', how: `status ${answer.status}` };
      const called = partsOf(answer).find((part) => part.functionCall)?.functionCall;
      if (route === 'offline') return { by: 'router', how: 'declared; the offline model answers in text' };
      const declared = toolNamesOf(route as UpstreamKind, requests[0]?.body ?? {});
      return declared.includes('run_shell_command') && called?.name === 'run_shell_command' && called.args?.command === 'ls'
        ? { by: 'upstream', how: route === 'gemini' ? undefined : 'declared in its own form, calls as `functionCall`' }
        : { by: 'lost', how: `${declared.join()} / ${JSON.stringify(called)}` };
    },
  },
  {
    agent: 'Gemini CLI',
    feature: 'web search (`googleSearch`, its `google_web_search` tool)',
    async run(context) {
      const { route } = context;
      const serves = route === 'openai-chat' || route === 'offline';
      const requests = await context.upstream(serves ? [{ text: 'unused' }] : [{ webSearch: {}, text: 'Found.' }]);
      const answer = await call(context, 'generateContent', { contents: user('svc-router news'), tools: [{ googleSearch: {} }] });
      if (serves) return refusedOrWarned(answer, /routes search/, 'names `routes search`');
      return offeredSearch(route, requests[0]?.body) && answer.status === 200 ? { by: 'upstream', how: route === 'gemini' ? undefined : "the provider's own search" } : { by: 'lost', how: `status ${answer.status}` };
    },
  },
  {
    agent: 'Gemini CLI',
    feature: 'code execution (`codeExecution`)',
    async run(context) {
      const { route } = context;
      const requests = await context.upstream([{ text: '4' }]);
      const answer = await call(context, 'generateContent', { contents: user('What is 2+2? Run code.'), tools: [{ codeExecution: {} }] });
      if (route === 'gemini') return answer.status === 200 && (requests[0]?.body?.tools ?? []).some((tool: any) => tool.codeExecution) ? { by: 'upstream' } : { by: 'lost', how: `status ${answer.status}` };
      return refusedOrWarned(answer, /codeExecution/, 'named; answered without it');
    },
  },
  {
    agent: 'Gemini CLI',
    feature: 'token counting (`:countTokens`)',
    async run(context) {
      await context.upstream([{ text: 'unused' }]);
      const answer = await call(context, 'countTokens', { contents: user('How long is this?') });
      if (answer.status !== 200 || typeof answer.json?.totalTokens !== 'number') return { by: 'lost', how: `status ${answer.status}` };
      return answer.headers.get('x-svc-count-source') === 'upstream' ? { by: 'upstream' } : { by: 'router', how: 'estimated' };
    },
  },
  {
    agent: 'Gemini CLI',
    feature: 'structured output (`responseMimeType`, `responseJsonSchema`)',
    async run(context) {
      const { route } = context;
      const requests = await context.upstream([{ text: '{"answer":"yes"}' }]);
      const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
      const answer = await call(context, 'generateContent', { contents: user('Answer in JSON.'), generationConfig: { responseMimeType: 'application/json', responseJsonSchema: schema } });
      if (answer.status !== 200) return { by: 'lost', how: `status ${answer.status}` };
      const body = requests[0]?.body ?? {};
      const sent: unknown = {
        anthropic: body.output_config?.format?.schema,
        'openai-responses': body.text?.format?.schema,
        'openai-chat': body.response_format?.json_schema?.schema,
        gemini: body.generationConfig?.responseJsonSchema ?? body.generationConfig?.responseSchema,
        offline: undefined,
      }[route as Route];
      if (route === 'offline') return { by: 'router', how: 'no model to hold to a schema' };
      return sent ? { by: 'upstream', how: route === 'gemini' ? undefined : 'the schema in its own form' } : refusedOrWarned(answer, /schema|JSON/i, 'named');
    },
  },
];
