import { describe, expect, it } from 'vitest';
import { parseStoredSettings } from '../../src/config/stored-settings.js';
import { BrokenFileError } from '../../src/files/broken-file.js';

const FILE = '/home/me/config.json';
const record = { developer: 'alice', organisation: 'acme', tier: 'pro', capTokens: 1000, hash: 'a'.repeat(64), hint: 'svc_alice_abcd…', createdAt: '2026-01-01T00:00:00.000Z' };

/** The first problem of a text, as `line:column message`. */
function problem(text: string): string {
  const reading = parseStoredSettings(FILE, text);
  if (!('error' in reading)) throw new Error('read as valid');
  expect(reading.error).toBeInstanceOf(BrokenFileError);
  const first = (reading.error as BrokenFileError).problems[0];
  return `${first.line}:${first.column} ${first.message}`;
}

describe("config.json's values, by type", () => {
  it('reads a file the CLI writes, and leaves fields it does not know alone', () => {
    const reading = parseStoredSettings(FILE, JSON.stringify({ keys: { alice: record }, routes: { 'svc.x': ['offline'] }, future: { anything: 1 } }, null, '\t'));
    expect('value' in reading && reading.value.routes['svc.x']).toEqual(['offline']);
  });

  it('refuses a key record without what an identity is made of, at the record', () => {
    const { developer: _left, ...withoutDeveloper } = record;
    expect(problem(JSON.stringify({ keys: { alice: withoutDeveloper } }, null, 2))).toBe('3:14 keys.alice: "developer" is required');
  });

  it('refuses a value of the wrong type at its own line and column, quoting nothing of it', () => {
    const secret = 'sk-live-0123456789abcdefghij';
    expect(problem(JSON.stringify({ backends: { up: { type: 'openai-chat', baseUrl: 'http://x', apiKey: 42 } }, localKey: secret, routes: { 'svc.x': 'offline' } }, null, 2)))
      .toBe('6:17 backends.up.apiKey: expected text, got a number');
    const reading = parseStoredSettings(FILE, `{"localKey": ${JSON.stringify(secret)}, "server": {"port": "80"}}`);
    expect('error' in reading && reading.error.message).toBe(`${FILE} line 1, column 65: server.port: expected a number, got text`);
    expect(problem('{"limits": {"outputReserveTokens": 1e400}}')).toBe('1:36 limits.outputReserveTokens: expected a number, got a number too large');
    expect(problem('[]')).toBe('1:1 the file: expected an object of settings ({ "keys": …, "backends": …, "routes": … }), got a list');
  });

  it('says where the syntax breaks, and that an empty file is empty', () => {
    expect(problem('{\n  "routes": {,,}\n}')).toBe('2:14 syntax error: value expected');
    expect(problem('')).toBe('1:1 the file is empty');
  });
});
