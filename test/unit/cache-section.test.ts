import { describe, expect, it } from 'vitest';
import { CACHE_SECTION_END, CACHE_SECTION_START, cacheSectionOf, renderCacheSection, withCacheSection } from '../../scripts/cache-table.js';
import type { CacheResults } from '../agents/cache-results.js';

/** docs/compatibility.md has two writers: the matrix script and the prompt-cache script each keep the other's part. */

const results: CacheResults = {
  agents: { claude: '9.9.9', codex: '0.0.1' },
  direct: [{ client: 'Codex 0.0.1', session: 'exec_command', route: 'openai-responses', requests: 5, inputTokens: 1000, cachedTokens: 700, share: 0.7, promptCacheKey: 'one key' }],
  cells: [
    { client: 'Codex 0.0.1', session: 'exec_command', route: 'openai-responses', requests: 5, inputTokens: 1000, cachedTokens: 695, share: 0.695, promptCacheKey: 'one key', baseline: 'direct', baselineShare: 0.7, appendOnlyShare: 0.7, outcome: 'pass' },
    {
      client: 'Codex 0.0.1',
      session: 'exec_command',
      route: 'anthropic',
      requests: 5,
      inputTokens: 1000,
      cachedTokens: 0,
      share: 0,
      baseline: 'append-only',
      baselineShare: 0.75,
      appendOnlyShare: 0.75,
      outcome: 'short',
      knownShortfall: 'No breakpoints.',
      firstBreak: 'request 2 read 0 of the 200 tokens appending only would',
    },
  ],
  runMs: 1000,
};

describe('the prompt-cache section of docs/compatibility.md', () => {
  it('renders every cell against its baseline, with the reason a short one is short', () => {
    const section = renderCacheSection(results);
    expect(section.startsWith(CACHE_SECTION_START) && section.endsWith(CACHE_SECTION_END)).toBe(true);
    expect(section).toContain('| Codex 0.0.1 | exec_command | OpenAI Responses | 5 | 1,000 | 69.5% | 70.0% direct | −0.5 pp | one key | ✅ |');
    expect(section).toContain('| Codex 0.0.1 | exec_command | Anthropic | 5 | 1,000 | 0.0% | 75.0% append-only | −75.0 pp | – | ❌ [1](#prompt-cache-note-1) |');
    expect(section).toContain('1. <a id="prompt-cache-note-1"></a>No breakpoints. Measured: request 2 read 0 of the 200 tokens appending only would');
    expect(section).toContain('| Codex 0.0.1 | exec_command | OpenAI Responses | 5 | 1,000 | 70.0% | one key |');
  });

  it('is added at the end once, then replaced in place, the rest of the document untouched', () => {
    const matrix = '# Client library compatibility\n\n| a | b |\n';
    const first = withCacheSection(matrix, renderCacheSection(results));
    expect(first.startsWith(matrix)).toBe(true);
    const again = withCacheSection(`${first}\nafter\n`, renderCacheSection({ ...results, cells: [] }));
    expect(again.split(CACHE_SECTION_START)).toHaveLength(2);
    expect(again).not.toContain('Anthropic | 5');
    expect(again.endsWith('\nafter\n')).toBe(true);
  });

  it('survives the matrix being written anew: the section a document holds is carried over whole', () => {
    const document = withCacheSection('# old matrix\n', renderCacheSection(results));
    const carried = cacheSectionOf(document);
    expect(carried).toBe(renderCacheSection(results));
    expect(withCacheSection('# new matrix\n', carried)).toBe(`# new matrix\n\n${carried}\n`);
    expect(cacheSectionOf('# no section\n')).toBe('');
  });
});
