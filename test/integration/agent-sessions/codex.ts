import OpenAI from 'openai';
import type { ScriptedTurn } from '../../fakes/scripted-turn.js';
import type { TestRouter } from '../../helpers/router.js';
import { SKU } from '../support.js';

/**
 * A Codex session as `codex exec` builds it (as captured from @openai/codex 0.169): its
 * base instructions and skills as developer messages, the environment context as a user message,
 * function and custom (apply_patch) tools, streamed turns with `store: false` and the encrypted
 * reasoning asked back, one `prompt_cache_key` and `session-id` for the whole session. Each output
 * item comes back as it arrived on the next turn, followed by the outputs of its calls.
 */

/** About 6,000 tokens, as Codex's base instructions are. */
const BASE_INSTRUCTIONS = 'You are a coding agent running in the Codex CLI, a terminal-based coding assistant. Be precise, safe and helpful. '.repeat(210);
const SKILLS = '<skills_instructions>\n## Skills\nA skill is a set of local instructions stored in a SKILL.md file.\n</skills_instructions>';
const ENVIRONMENT = '<environment_context>\n  <cwd>/home/dev/repo</cwd>\n  <shell>bash</shell>\n</environment_context>';

export const CODEX_SESSION_ID = '01a201ac-b94f-76b3-91e0-2aeb3fc5e0c0';

const TOOLS = [
  {
    type: 'function',
    name: 'exec_command',
    description: 'Runs a command in a PTY, returning output or a session ID for ongoing interaction.',
    strict: false,
    parameters: {
      type: 'object',
      properties: { cmd: { type: 'string', description: 'Shell command to execute.' }, workdir: { type: 'string' }, yield_time_ms: { type: 'number' } },
      required: ['cmd'],
      additionalProperties: false,
    },
  },
  { type: 'custom', name: 'apply_patch', description: 'Use the `apply_patch` tool to edit files. This is a FREEFORM tool.' },
  {
    type: 'function',
    name: 'view_image',
    description: 'Attach a local image to the conversation context.',
    strict: false,
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
  },
];

/** What the upstream model does on each turn of the session: a run, parallel reads, a patch, an answer, then a follow-up. */
export const CODEX_TURNS: ScriptedTurn[] = [
  { reasoning: { text: 'I should run the tests first.' }, toolCalls: [{ name: 'exec_command', arguments: { cmd: 'npm test' } }] },
  { reasoning: { text: 'Two files to read.' }, toolCalls: [{ name: 'exec_command', arguments: { cmd: 'cat src/a.ts' } }, { name: 'exec_command', arguments: { cmd: 'cat test/a.test.ts' } }] },
  { reasoning: { text: 'The fix is one line.' }, toolCalls: [{ name: 'apply_patch', arguments: { input: '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-return 1;\n+return 2;\n*** End Patch' } }] },
  { reasoning: { text: 'Done; say so.' }, text: 'Fixed: `a()` returns 2 and the tests pass.' },
  { reasoning: { text: 'Commit it.' }, toolCalls: [{ name: 'exec_command', arguments: { cmd: 'git commit -am "Fix a"' } }] },
  { text: 'Committed.' },
];

export interface CodexSession {
  /** Sends the conversation so far, streamed; appends the output items, then the outputs of its calls (or the user's next words). */
  turn(nextUserText?: string): Promise<void>;
}

export function codexSession(router: TestRouter, options: { cacheKey?: string; retention?: string; effort?: 'low' | 'medium' | 'high' } = {}): CodexSession {
  const client = new OpenAI({ apiKey: router.key, baseURL: router.baseURL, maxRetries: 0 });
  const message = (role: 'developer' | 'user', text: string, id: number) => ({ type: 'message', id: `msg_01a201ac-b98e-${String(id).padStart(4, '0')}`, role, content: [{ type: 'input_text', text }] });
  const input: any[] = [message('developer', BASE_INSTRUCTIONS, 1), message('developer', SKILLS, 2), message('user', ENVIRONMENT, 3), message('user', 'The tests fail; fix them and commit.', 4)];
  let said = 4;
  return {
    async turn(nextUserText) {
      const body: any = {
        model: SKU,
        stream: true,
        input: JSON.parse(JSON.stringify(input)),
        tools: TOOLS,
        tool_choice: 'auto',
        parallel_tool_calls: true,
        reasoning: { ...(options.effort ? { effort: options.effort } : {}), summary: 'auto' },
        store: false,
        include: ['reasoning.encrypted_content'],
        prompt_cache_key: options.cacheKey ?? CODEX_SESSION_ID,
        ...(options.retention ? { prompt_cache_retention: options.retention } : {}),
      };
      const response = await client.responses.stream(body, { headers: { 'session-id': CODEX_SESSION_ID } }).finalResponse();
      const output = JSON.parse(JSON.stringify(response.output)) as any[];
      input.push(...output);
      for (const item of output) {
        if (item.type === 'function_call') input.push({ type: 'function_call_output', call_id: item.call_id, output: `Process exited with code 0\nOutput:\nran ${item.name}` });
        if (item.type === 'custom_tool_call') input.push({ type: 'custom_tool_call_output', call_id: item.call_id, output: 'Success. Updated the following files:\nM src/a.ts' });
      }
      if (nextUserText) input.push(message('user', nextUserText, ++said));
    },
  };
}
