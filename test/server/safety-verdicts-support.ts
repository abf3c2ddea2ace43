import { startOpenAIChatUpstream, type OpenAIChatUpstream } from '../fakes/openai-chat-upstream.js';
import type { ScriptedTurn } from '../fakes/scripted-turn.js';
import type { TestRouter } from '../helpers/router.js';
import { parseSse } from '../helpers/sse-frames.js';
import { addBackend, setRoute } from '../integration/support.js';

/**
 * What the safety-verdict tests share: Claude Code's auto-mode request shape, a scripted classifier
 * (a Chat upstream answering per a label table), and reading verdicts back from the client's side.
 */

/** The classifier route the tests configure. */
export const CLASSIFIER = 'svc.intelligent-lite';

/** `classifier_context` as Claude Code 2.1.330 sent it in an interactive auto-mode session (captures/claude-code-2.1.330.jsonl). */
export const CLASSIFIER_CONTEXT = {
  v: 1,
  permission_mode: 'auto',
  platform: 'linux',
  live_cwd: '/home/dev/project',
  home_dir: '/home/dev',
  rule_roots: { userSettings: '/home/dev/.claude', projectSettings: '/home/dev/project' },
  trusted_directories: { primary: { path: '/home/dev/project', resolved: ['/home/dev/project'] }, additional: [], network: [], block_reads_outside_working_directories: false },
  rules: { allow: [], deny: [{ rule: 'Bash(sudo:*)', source: 'userSettings' }], ask: [] },
  auto_mode: { allow: [], soft_deny: [], hard_deny: [], environment: [] },
  artifact_consent_holdback: false,
  case_insensitive_paths: false,
  restricted: false,
  is_remote_mode: false,
  classify_all_shell: false,
  user_identity: null,
  git_state: {
    cwd: '/home/dev/project',
    root: '/home/dev/project',
    branch: 'feature/login',
    default_branch: 'main',
    status: { clean: true, counts: null, porcelain: null, truncated: false },
    visibility: { origin: { host: 'github.com', remote: 'github.com/acme/project', visibility: 'private' }, push_remote: null, remotes: [], visibility_cache: [] },
  },
  classifier_facts: { bashPrescreenRetry: 'true' },
};

export const SAFEGUARDS = [{ type: 'dangerous_tool_use', classifier_context: CLASSIFIER_CONTEXT }];

/** What the user asked, beside the reminder Claude Code adds to the same message. */
export const USER_ASK = 'Tidy up the build and run the tests.';

/** A Messages request as Claude Code sends it in auto mode, offering Bash and Read. */
export function autoModeRequest(model: string, stream: boolean): Record<string, unknown> {
  return {
    model,
    max_tokens: 1024,
    stream,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: '<system-reminder>\nAttribution for git commits: end them with a trailer.\n</system-reminder>\n' },
          { type: 'text', text: USER_ASK },
        ],
      },
    ],
    tools: [
      { name: 'Bash', description: 'Run a shell command', input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } },
      { name: 'Read', description: 'Read a file', input_schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] } },
    ],
    safeguards: SAFEGUARDS,
  };
}

export type Label = 'flagged' | 'not_flagged';

/** A classifier's answer to one call: a label, or a way of failing. */
export type ClassifierAnswer = Label | 'unparseable' | 'error' | 'hang';

/** The tool call the classifier was asked about, read back from its request as the router wrote it. */
export function askedCall(body: any): { tool: string; input: any } | undefined {
  const text = body?.messages?.findLast?.((message: any) => message.role === 'user')?.content;
  const question = typeof text === 'string' ? text : Array.isArray(text) ? text.map((part: any) => part.text ?? '').join('') : '';
  const found = /<tool_call>\nTool: (.*)\nInput: (.*)\n<\/tool_call>/s.exec(question);
  if (!found) return undefined;
  return { tool: found[1]!, input: JSON.parse(found[2]!) };
}

/** The text of the classifier request's question (its last user message). */
export function questionOf(body: any): string {
  const content = body?.messages?.findLast?.((message: any) => message.role === 'user')?.content;
  return typeof content === 'string' ? content : Array.isArray(content) ? content.map((part: any) => part.text ?? '').join('') : '';
}

export const CLASSIFIER_USAGE = { input: 900, output: 12 };

/**
 * A scripted classifier: an OpenAI Chat upstream that answers each question by the label its
 * table gives the asked call's input (its `command`, else its `file_path`), as one JSON line.
 * `hang` never answers until the test ends; `error` is a 500.
 */
export async function startScriptedClassifier(answerFor: (input: any) => ClassifierAnswer, options: ClassifierOptions = {}): Promise<OpenAIChatUpstream> {
  return startOpenAIChatUpstream(async (body): Promise<ScriptedTurn> => {
    const call = askedCall(body);
    const answer = call ? answerFor(call.input) : 'unparseable';
    options.onAsk?.();
    if (options.hold) await options.hold;
    switch (answer) {
      case 'flagged':
        return { text: `{"verdict":"flagged","reason":"${call!.tool} ${describe(call!.input)} is dangerous."}`, usage: CLASSIFIER_USAGE };
      case 'not_flagged':
        return { text: '{"verdict":"not_flagged","reason":"Ordinary development work."}', usage: CLASSIFIER_USAGE };
      case 'unparseable':
        return { text: 'It looks fine to me, go ahead.', usage: CLASSIFIER_USAGE };
      case 'error':
        return { status: 500 };
      case 'hang':
        await new Promise(() => undefined);
        throw new Error('unreachable');
    }
  });
}

export interface ClassifierOptions {
  /** Answers wait for this. */
  hold?: Promise<void>;
  /** Told of each question as it arrives. */
  onAsk?: () => void;
}

const describe = (input: any): string => String(input?.command ?? input?.file_path ?? '').replace(/["\\]/g, '');

/** Routes the classifier SKU to the scripted classifier and names it in safeguards.classifier. */
export function useClassifier(router: TestRouter, classifier: OpenAIChatUpstream, timeoutMs?: number): void {
  addBackend(router, 'judge', 'openai-chat', classifier.url);
  setRoute(router, CLASSIFIER, ['judge:judge-model']);
  router.config.update((settings) => {
    settings.safeguards = { ...settings.safeguards, classifier: CLASSIFIER, ...(timeoutMs ? { timeoutMs } : {}) };
  });
}

export async function postMessages(router: TestRouter, body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
  return fetch(`${router.origin}/v1/messages`, {
    method: 'POST',
    ...(signal ? { signal } : {}),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${router.key}`, 'anthropic-version': '2023-06-01', 'anthropic-beta': 'dangerous-tool-use-2026-09-03' },
    body: JSON.stringify(body),
  });
}

export interface ReadBack {
  /** The verdicts as the client got them: `message_delta.delta.safeguard_results`, or a JSON reply's top-level field. */
  results: unknown;
  /** The ids of the reply's tool_use blocks, in order. */
  toolUseIds: string[];
  /** The stream's event names in order (streams only). */
  events: string[];
  svcWarnings: string[];
}

/** Sends one auto-mode request and reads the verdicts back, streamed or not. */
export async function verdictsFor(router: TestRouter, model: string, stream: boolean): Promise<ReadBack> {
  const res = await postMessages(router, autoModeRequest(model, stream));
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  if (!stream) {
    const message = (await res.json()) as any;
    return {
      results: message.safeguard_results,
      toolUseIds: message.content.filter((block: any) => block.type === 'tool_use').map((block: any) => block.id),
      events: [],
      svcWarnings: message.svc_meta?.warnings ?? [],
    };
  }
  const frames = parseSse(await res.text());
  const data = frames.map((frame) => JSON.parse(frame.data));
  const delta = data.find((event) => event.type === 'message_delta');
  return {
    results: delta?.delta?.safeguard_results,
    toolUseIds: data.filter((event) => event.type === 'content_block_start' && event.content_block.type === 'tool_use').map((event) => event.content_block.id),
    events: frames.map((frame) => frame.event ?? ''),
    svcWarnings: delta?.svc_meta?.warnings ?? [],
  };
}

/** Anthropic's shape for a verdict on every call, as Claude Code reads it. */
export const available = (verdicts: Record<string, { outcome: Label; explanation?: string }>) => [
  {
    type: 'dangerous_tool_use',
    status: {
      type: 'available',
      tool_uses: Object.fromEntries(Object.entries(verdicts).map(([id, verdict]) => [id, { type: 'evaluated', ...verdict }])),
    },
  },
];

/** The answer that has Claude Code ask the user about each call. */
export const UNAVAILABLE = [{ type: 'dangerous_tool_use', status: { type: 'unavailable', reason: 'disabled' } }];
