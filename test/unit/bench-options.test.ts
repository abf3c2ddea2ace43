import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../bench/options.js';

describe('bench options', () => {
  it('--write-docs takes only a full run, so the page never shows a narrowed one', () => {
    expect(parseOptions(['--peers', '--write-docs']).writeDocs).toBe(true);
    expect(parseOptions(['--peers']).writeDocs).toBe(false);
    for (const narrowed of [['--quick'], ['--only', 'chat->openai-chat'], ['--memory-only']]) {
      expect(() => parseOptions([...narrowed, '--write-docs'])).toThrow(/--write-docs puts a full run/);
    }
  });

  it('knows the forwarded Responses path', () => {
    expect(parseOptions(['--only', 'responses->openai-responses,chat->openai-chat']).only).toEqual(['responses->openai-responses', 'chat->openai-chat']);
  });
});
