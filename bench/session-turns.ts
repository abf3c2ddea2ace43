/**
 * `npx tsx bench/session-turns.ts`: what the sessions view costs a request of a session, in-process,
 * by the size of its prompt: one turn's fingerprint (a hash of each part of the prompt), its
 * comparison with the previous turn, and the session's totals. Requests that name no session pay
 * nothing of it. The requests are coding-agent shaped (a Messages body: a long system prompt, tool
 * definitions, a conversation whose tool results are source files of this repository), each turn
 * the previous one's history and one exchange more, as an agent sends them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { messagesFormat } from '../src/formats/messages/messages-format.js';
import { SessionBook, type SessionTurn } from '../src/sessions/session-book.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sources = fs
  .readdirSync(path.join(ROOT, 'src'), { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
  .map((entry) => fs.readFileSync(path.join(entry.parentPath, entry.name), 'utf8'));

/** A conversation of about `targetBytes`, as the body of its next turn. */
function body(targetBytes: number): Record<string, unknown> {
  const tools = Array.from({ length: 12 }, (_, i) => ({ name: `tool_${i}`, description: sources[i]!.slice(0, 800), input_schema: { type: 'object', properties: { path: { type: 'string', description: 'where' } } } }));
  const messages: unknown[] = [{ role: 'user', content: 'read the code' }];
  let bytes = 0;
  for (let i = 0; bytes < targetBytes; i++) {
    const file = sources[i % sources.length]!;
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'tool_0', input: { path: `src/file_${i}.ts` } }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: file }] });
    bytes += file.length;
  }
  return { model: 'svc.intelligent-pro', max_tokens: 1024, system: sources.slice(0, 4).join('\n').slice(0, 20_000), tools, messages, cache_control: { type: 'ephemeral' } };
}

function measure(targetBytes: number): { microseconds: number; bytes: number; items: number; decodeMicroseconds: number } {
  const template = body(targetBytes);
  const bytes = JSON.stringify(template).length;
  const items = (template.messages as unknown[]).length;
  const runs: number[] = [];
  for (let round = 0; round < 7; round++) {
    const iterations = Math.max(5, Math.round(4e6 / bytes));
    const book = new SessionBook();
    // Each turn decoded fresh, as the router does, outside the timed part.
    const turns: SessionTurn[] = Array.from({ length: iterations }, (_, i) => ({
      session: 'bench-session',
      caller: 'alice',
      format: 'messages',
      model: 'svc.intelligent-pro',
      route: 'svc.intelligent-pro',
      target: 'anthropic:claude-sonnet-4-5',
      backendType: 'anthropic',
      startedAt: 1_000 * i,
      endedAt: 1_000 * i + 500,
      usage: { inputTokens: bytes / 4, outputTokens: 100, cachedInputTokens: bytes / 4 - 50, cacheWriteInputTokens: 50 },
      costNanoUsd: 1_000,
      request: messagesFormat.decode(structuredClone(template), { secret: 's' }).request,
    }));
    const started = process.cpuUsage();
    for (const turn of turns) book.record(turn);
    book.flush();
    const used = process.cpuUsage(started);
    runs.push((used.user + used.system) / iterations);
  }
  runs.sort((a, b) => a - b);
  return { microseconds: runs[Math.floor(runs.length / 2)]!, bytes, items, decodeMicroseconds: decodeCost(template) };
}

/** For scale: what reading the same body costs every request already (JSON.parse, then the Messages decoder). */
function decodeCost(template: Record<string, unknown>): number {
  const text = JSON.stringify(template);
  const runs: number[] = [];
  for (let round = 0; round < 7; round++) {
    const iterations = Math.max(5, Math.round(4e6 / text.length));
    const started = process.cpuUsage();
    for (let i = 0; i < iterations; i++) messagesFormat.decode(JSON.parse(text), { secret: 's' });
    const used = process.cpuUsage(started);
    runs.push((used.user + used.system) / iterations);
  }
  runs.sort((a, b) => a - b);
  return runs[Math.floor(runs.length / 2)]!;
}

console.log('request body   conversation items   CPU µs/turn (median of 7)   MB/s   decoding the body, µs (for scale)');
for (const size of [10_000, 100_000, 400_000]) {
  const { microseconds, bytes, items, decodeMicroseconds } = measure(size);
  console.log(
    `${`${(bytes / 1000).toFixed(0)} KB`.padStart(12)}   ${String(items).padStart(18)}   ${microseconds.toFixed(1).padStart(25)}   ${(bytes / microseconds).toFixed(0).padStart(4)}   ${decodeMicroseconds.toFixed(1).padStart(33)}`,
  );
}
