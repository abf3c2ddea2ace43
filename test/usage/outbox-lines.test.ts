import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Outbox } from '../../src/usage/outbox.js';

const dirs: string[] = [];
const outboxes: Outbox[] = [];
afterEach(() => {
  for (const outbox of outboxes.splice(0)) outbox.close(true);
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A process id no process has now: its outbox is an orphan. */
function deadPid(): number {
  for (let pid = 4_000_000; ; pid++) {
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return pid;
    }
  }
}

describe("an outbox taken over from a dead router", () => {
  it('replays its records, and skips each torn or garbage line, naming it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-outbox-'));
    dirs.push(dir);
    const orphan = path.join(dir, `${os.hostname()}-${deadPid()}-abcdef.jsonl`);
    const record = (id: string) => JSON.stringify({ ts: Date.now(), developer: 'alice', inputTokens: 3, outputTokens: 4, requests: 1, requestId: id });
    const torn = record('req_torn').slice(0, 30);
    fs.writeFileSync(orphan, [record('req_1'), torn, '\0\0\0', `{"ts":1e400,"developer":"alice"}`, record('req_2'), ''].join('\n'));
    const reports: string[] = [];
    const outbox = new Outbox(dir, { report: (message) => void reports.push(message) });
    outboxes.push(outbox);

    expect(outbox.claimOrphans().map((taken) => taken.requestId)).toEqual(['req_1', 'req_2']);
    expect(reports).toEqual([
      expect.stringMatching(new RegExp(`^${escape(orphan)} line 2, column \\d+: syntax error: .*; the line is skipped$`)),
      `${orphan} line 3, column 1: syntax error: invalid symbol; the line is skipped`,
      `${orphan} line 4, column 7: ts: expected a time in ms since the epoch; the line is skipped`,
    ]);
    expect(fs.existsSync(orphan)).toBe(false);
  });
});

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
