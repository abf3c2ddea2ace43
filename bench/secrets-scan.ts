/**
 * `npx tsx bench/secrets-scan.ts`: what the secrets guardrail costs a request, in-process, by the
 * size of its text. The requests are coding-agent shaped (a Messages body: a long system prompt,
 * tool definitions, a conversation whose tool results are source files of this repository), with
 * no credential in them, as most requests have none; then the same with one credential per
 * message, masked. The HTTP bench (`npm run bench -- --guardrail mask`) measures the whole path on
 * its small requests; this measures the scan where it grows, with the text.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withDefaults, type SecretsMode } from '../src/config/settings.js';
import { messagesFormat } from '../src/formats/messages/messages-format.js';
import type { PolicyInput } from '../src/policies/policy.js';
import { secretsGuardrail } from '../src/policies/secrets-guardrail.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sources = fs
  .readdirSync(path.join(ROOT, 'src'), { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
  .map((entry) => fs.readFileSync(path.join(entry.parentPath, entry.name), 'utf8'));

/** A credential assembled here, so this file holds none. */
const KEY = ['ghp_', 'Zq8wX3vB7nM2kL9pR4tY6uI1oE5aS0dF7gH2'].join('');

function body(targetBytes: number, withKey: boolean): Record<string, unknown> {
  const tools = Array.from({ length: 12 }, (_, i) => ({ name: `tool_${i}`, description: sources[i]!.slice(0, 800), input_schema: { type: 'object', properties: { path: { type: 'string', description: 'where' } } } }));
  const messages: unknown[] = [];
  let bytes = 0;
  for (let i = 0; bytes < targetBytes; i++) {
    const file = sources[i % sources.length]!;
    const text = withKey ? `${file}\nGITHUB_TOKEN=${KEY}\n` : file;
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'tool_0', input: { path: `src/file_${i}.ts` } }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: text }] });
    bytes += text.length;
  }
  return { model: 'svc.intelligent-pro', max_tokens: 1024, system: sources.slice(0, 4).join('\n').slice(0, 20_000), tools, messages: [{ role: 'user', content: 'read the code' }, ...messages, { role: 'user', content: 'go on' }] };
}

function measure(mode: SecretsMode, targetBytes: number, withKey: boolean): { microseconds: number; bytes: number } {
  const settings = withDefaults({ guardrails: { secrets: mode } });
  const template = body(targetBytes, withKey);
  const bytes = JSON.stringify(template).length;
  const runs: number[] = [];
  for (let round = 0; round < 7; round++) {
    const iterations = Math.max(5, Math.round(4e6 / bytes));
    // Each request decoded fresh, as the router does, outside the timed part.
    const inputs = Array.from({ length: iterations }, () => ({ request: messagesFormat.decode(structuredClone(template), { secret: 's' }).request, settings, route: undefined }) as unknown as PolicyInput);
    const started = process.cpuUsage();
    for (const input of inputs) secretsGuardrail.admit(input);
    const used = process.cpuUsage(started);
    runs.push((used.user + used.system) / iterations);
  }
  runs.sort((a, b) => a - b);
  return { microseconds: runs[Math.floor(runs.length / 2)]!, bytes };
}

console.log('request body   mode   credentials   CPU µs/request (median of 7)   MB/s');
for (const size of [10_000, 100_000, 400_000]) {
  for (const [mode, withKey] of [['off', false], ['mask', false], ['mask', true]] as const) {
    const { microseconds, bytes } = measure(mode, size, withKey);
    const rate = mode === 'off' ? '' : (bytes / microseconds).toFixed(0);
    console.log(`${`${(bytes / 1000).toFixed(0)} KB`.padStart(12)}   ${mode.padEnd(4)}   ${(withKey ? 'one a message' : 'none').padEnd(11)}   ${microseconds.toFixed(1).padStart(28)}   ${rate.padStart(4)}`);
  }
}
