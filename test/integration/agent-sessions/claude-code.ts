import Anthropic from '@anthropic-ai/sdk';
import type { ScriptedTurn } from '../../fakes/scripted-turn.js';
import type { TestRouter } from '../../helpers/router.js';
import { SKU } from '../support.js';

/**
 * A Claude Code session as it builds it (as captured from @anthropic-ai/claude-code 2.1.330): a
 * billing header and two system blocks, the second-to-last marked; a reminder and the task as
 * the first user message; the environment as a `role: "system"` message after it; after each
 * tool result, a PostToolUse hook's output as another system message. The newest block carries
 * the conversation's cache_control breakpoint, which moves on each turn (a string content
 * becoming a one-block list to carry it, and a string again once it has moved on).
 */

const RULES = '\nYou are an agent working with the user toward their goals, using your own judgment along the way. Follow the repository rules. '.repeat(190);
const ENVIRONMENT = '# Environment\nYou have been invoked in the following environment: \n - Primary working directory: /home/dev/project\n - Is a git repository: true';
export const CLAUDE_SESSION_ID = '14742f6a-42a4-4a73-bce4-35a9672192e8';
const MARKER = { type: 'ephemeral' } as const;

const TOOLS = [
  { name: 'Bash', description: 'Executes a given bash command.', input_schema: { type: 'object', properties: { command: { type: 'string' }, description: { type: 'string' } }, required: ['command'] } },
  { name: 'Read', description: 'Reads a file from the local filesystem.', input_schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] } },
  {
    name: 'Edit',
    description: 'Performs exact string replacements in files.',
    input_schema: { type: 'object', properties: { file_path: { type: 'string' }, old_string: { type: 'string' }, new_string: { type: 'string' } }, required: ['file_path', 'old_string', 'new_string'] },
  },
];

/** What the upstream model does on each turn: a command, two parallel reads, an edit, an answer, then a follow-up command and its answer. */
export const CLAUDE_CODE_TURNS: ScriptedTurn[] = [
  { toolCalls: [{ name: 'Bash', arguments: { command: 'npm test', description: 'Run the tests' } }] },
  { reasoning: { text: 'Read both files.' }, toolCalls: [{ name: 'Read', arguments: { file_path: '/home/dev/project/src/a.ts' } }, { name: 'Read', arguments: { file_path: '/home/dev/project/test/a.test.ts' } }] },
  { text: 'The fix is one line.', toolCalls: [{ name: 'Edit', arguments: { file_path: '/home/dev/project/src/a.ts', old_string: 'return 1;', new_string: 'return 2;' } }] },
  { text: 'Fixed: `a()` returns 2 and the tests pass.' },
  { toolCalls: [{ name: 'Bash', arguments: { command: 'npm run lint', description: 'Lint' } }] },
  { text: 'Lint is clean.' },
];

export interface ClaudeCodeSession {
  /** Sends the conversation so far, streamed; appends the answer, then its results and the hook's output (or the user's next words). */
  turn(nextUserText?: string): Promise<void>;
}

/** `systemTtl`: the lifetime Claude Code asks for its system prompt when the account allows the longer one. */
export function claudeCodeSession(router: TestRouter, options: { systemTtl?: '1h' } = {}): ClaudeCodeSession {
  const client = new Anthropic({ apiKey: router.key, baseURL: router.origin, maxRetries: 0 });
  const system = [
    { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1.330.dfb; cc_entrypoint=sdk-cli;' },
    { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { ...MARKER, ...(options.systemTtl ? { ttl: options.systemTtl } : {}) } },
    { type: 'text', text: RULES },
  ];
  const messages: any[] = [
    {
      role: 'user',
      content: [
        { type: 'text', text: '<system-reminder>\nAs you answer the user, use the context below.\n</system-reminder>' },
        { type: 'text', text: 'The tests fail; fix them.' },
      ],
    },
    { role: 'system', content: ENVIRONMENT },
  ];
  /** The conversation with its newest block marked, as Claude Code sends it. */
  const marked = (): any[] => {
    const sent = JSON.parse(JSON.stringify(messages)) as any[];
    const last = sent.at(-1);
    if (typeof last.content === 'string') last.content = [{ type: 'text', text: last.content, cache_control: MARKER }];
    else last.content.at(-1).cache_control = MARKER;
    return sent;
  };
  return {
    async turn(nextUserText) {
      const body: any = {
        model: SKU,
        max_tokens: 32000,
        system,
        tools: TOOLS,
        messages: marked(),
        metadata: { user_id: JSON.stringify({ device_id: '56b287d0', account_uuid: '', session_id: CLAUDE_SESSION_ID }) },
        thinking: { type: 'adaptive', display: 'omitted' },
        output_config: { effort: 'high' },
        stream: true,
      };
      const reply = await client.messages.stream(body, { headers: { 'x-claude-code-session-id': CLAUDE_SESSION_ID } }).finalMessage();
      const content = JSON.parse(JSON.stringify(reply.content)) as any[];
      messages.push({ role: 'assistant', content });
      const calls = content.filter((block) => block.type === 'tool_use');
      if (calls.length) {
        messages.push({ role: 'user', content: calls.map((call) => ({ tool_use_id: call.id, type: 'tool_result', content: `ran ${call.name}`, is_error: false })) });
        messages.push({ role: 'system', content: `PostToolUse:${calls[0].name} hook additional context: lint and types clean after ${calls.length} call(s)` });
      }
      if (nextUserText) messages.push({ role: 'user', content: nextUserText });
    },
  };
}
