import { describe, expect, it } from 'vitest';
import { keepingSections, sectionEnd, sectionOf, sectionStart, withSection } from '../../scripts/doc-sections.js';

/** docs/compatibility.md has three writers: the client matrix, the providers suite and the prompt-cache suite each keep the others' parts. */

const section = (name: string, body: string): string => `${sectionStart(name)}\n## ${name}\n${body}\n${sectionEnd(name)}`;

describe('the generated sections of a document', () => {
  it('are added at the end once, then replaced in place, the rest untouched', () => {
    const added = withSection('# matrix\n', 'providers', section('providers', 'one'));
    expect(added).toBe(`# matrix\n\n${section('providers', 'one')}\n`);
    const replaced = withSection(`${added}after\n`, 'providers', section('providers', 'two'));
    expect(replaced).toBe(`# matrix\n\n${section('providers', 'two')}\nafter\n`);
  });

  it('each writer leaves the other sections as they were', () => {
    const both = withSection(withSection('# matrix\n', 'providers', section('providers', 'one')), 'prompt-cache', section('prompt-cache', 'cache'));
    const providersAgain = withSection(both, 'providers', section('providers', 'two'));
    expect(sectionOf(providersAgain, 'prompt-cache')).toBe(section('prompt-cache', 'cache'));
    expect(sectionOf(providersAgain, 'providers')).toBe(section('providers', 'two'));
  });

  it('survive the matrix being written anew, whole and in page order, whichever the old page held', () => {
    const old = `# old matrix\n\n${section('prompt-cache', 'c')}\n\n${section('providers', 'p')}\n`;
    expect(keepingSections('# new matrix\n', old)).toBe(`# new matrix\n\n${section('prompt-cache', 'c')}\n\n${section('providers', 'p')}\n`);
    expect(keepingSections('# new matrix\n', `# old\n\n${section('prompt-cache', 'c')}\n`)).toBe(`# new matrix\n\n${section('prompt-cache', 'c')}\n`);
    expect(keepingSections('# new matrix\n', '# old, no sections\n')).toBe('# new matrix\n');
  });

  it('are found only between their own markers, a start without its end being none', () => {
    expect(sectionOf(`${sectionStart('providers')}\nno end\n`, 'providers')).toBe('');
    expect(sectionOf(section('prompt-cache', 'c'), 'providers')).toBe('');
  });
});
