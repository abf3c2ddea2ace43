import { formatCount } from '../../core/format-numbers.js';
import { refusedError, usageError } from '../cli-error.js';
import { chalk, printJson, printLine } from '../output.js';
import { parsePositiveInteger } from '../parse-options.js';
import { errorCode, errorMessage, openClient } from '../router-client.js';
import { startSpinner } from '../spinner.js';
import { ensureOk, type QuickCheckOptions } from './quick-checks.js';

export interface ChatOptions extends QuickCheckOptions {
  model: string;
  system?: string;
  maxTokens?: string;
  stream?: boolean;
}

/** One chat completion from a prompt (argument or stdin), printed whole or as tokens arrive. */
export async function runChat(promptWords: string[], options: ChatOptions): Promise<void> {
  const prompt = promptWords.length ? promptWords.join(' ') : await readStdin();
  if (!prompt.trim()) throw usageError('no prompt: pass it as an argument or on standard input');
  const body: Record<string, unknown> = {
    model: options.model,
    messages: [...(options.system ? [{ role: 'system', content: options.system }] : []), { role: 'user', content: prompt }],
  };
  if (options.maxTokens !== undefined) body.max_tokens = parsePositiveInteger(options.maxTokens, '--max-tokens');
  if (options.stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });

  const client = await openClient(options);
  const spinner = await startSpinner(`asking ${options.model}`);
  try {
    const response = await client.call('POST', '/v1/chat/completions', body);
    if (!response.frames) {
      spinner.stop();
      const reply = ensureOk(response, client.sent) as ChatReply;
      if (options.json) return printJson(reply);
      printLine(reply.choices[0]?.message.content ?? '');
      printMeta(reply.svc_meta);
      return;
    }
    let meta: ChatReply['svc_meta'];
    for await (const frame of response.frames) {
      // The spinner goes before the first byte of the answer and only then: ora's stop() returns
      // the cursor to column 1, so a stop between chunks would overwrite the text before it.
      // (Later calls are no-ops.)
      spinner.stop();
      const data = frame.startsWith('data: ') ? frame.slice(6).trim() : '';
      if (!data || data === '[DONE]') continue;
      const chunk = JSON.parse(data) as ChatChunk;
      if (chunk.error) {
        const serverCode = errorCode(chunk);
        throw refusedError(errorMessage(chunk, 500), { stream: true, ...(serverCode ? { server_code: serverCode } : {}) });
      }
      // --json streams NDJSON: each chunk on its own line as it arrives, for `jq` or a line reader.
      if (options.json) process.stdout.write(`${JSON.stringify(chunk)}\n`);
      else process.stdout.write(chunk.choices?.[0]?.delta?.content ?? '');
      meta = chunk.svc_meta ?? meta;
    }
    if (options.json) return;
    printLine();
    printMeta(meta);
  } finally {
    spinner.stop();
    await client.close();
  }
}

interface ChatReply {
  choices: Array<{ message: { content: string | null } }>;
  svc_meta?: { backend: string; upstream_model: string; latency_ms: number; usage: { total_tokens: number }; remaining_tokens: number };
}

interface ChatChunk {
  error?: unknown;
  choices?: Array<{ delta?: { content?: string } }>;
  svc_meta?: ChatReply['svc_meta'];
}

function printMeta(meta: ChatReply['svc_meta']): void {
  if (!meta || !process.stderr.isTTY) return;
  const model = meta.upstream_model ? `${meta.backend}:${meta.upstream_model}` : meta.backend;
  process.stderr.write(chalk.dim(`— ${model} · ${formatCount(meta.usage.total_tokens)} tokens · ${formatCount(meta.latency_ms)} ms · ${formatCount(meta.remaining_tokens)} left\n`));
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}
