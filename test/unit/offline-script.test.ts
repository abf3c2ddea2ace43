import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadScript } from '../../src/backends/offline/script.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

describe('an offline script that is not JSON', () => {
  it('is refused with its file, line and column', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-script-'));
    dirs.push(dir);
    const file = path.join(dir, 'turns.json');
    fs.writeFileSync(file, '[\n  "hello",\n  { "text": "bye" ,, }\n]\n');
    expect(() => loadScript(file)).toThrow(`offline script ${file} line 3, column 20: syntax error: property name expected`);
  });
});
