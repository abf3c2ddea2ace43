import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The docs point only at what exists: every relative link in README.md and docs/*.md names a file
 * of the repository (and a heading or anchor in it, when it has a #fragment), and so does every
 * file name ending in .md that the text mentions.
 */

const root = path.resolve(import.meta.dirname, '../..');
const SCRIPTS = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const DOCS = ['README.md', 'bench/README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');

function anchorsOf(file: string): Set<string> {
  const text = fs.readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(heading!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count ? `${base}-${count}` : base);
  }
  for (const [, id] of text.matchAll(/<a (?:id|name)="([^"]+)"/g)) anchors.add(id!);
  return anchors;
}

/** Markdown links outside code blocks and code spans: [text](target). */
function linksOf(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
}

/** File names ending in .md, in the text or in code spans (not inside URLs). */
function mentionsOf(text: string): string[] {
  const withoutUrls = text.replace(/https?:\/\/\S+/g, '');
  return [...withoutUrls.matchAll(/(?<![\w./-])((?:\.\.\/|[\w-]+\/)*[\w.-]+\.md)\b/g)].map((match) => match[1]!);
}

describe.each(DOCS)('%s', (doc) => {
  const file = path.join(root, doc);
  const text = fs.readFileSync(file, 'utf8');

  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const link of linksOf(text)) {
      if (/^[a-z]+:/i.test(link)) continue; // http:, https:, mailto:
      const [target, fragment] = link.split('#') as [string, string | undefined];
      const resolved = target ? path.resolve(path.dirname(file), decodeURIComponent(target)) : file;
      if (!fs.existsSync(resolved)) broken.push(`${link}: no such file`);
      else if (fragment && resolved.endsWith('.md') && !anchorsOf(resolved).has(fragment)) broken.push(`${link}: no heading #${fragment}`);
    }
    expect(broken).toEqual([]);
  });

  it('mentions only .md files that exist', () => {
    const missing = mentionsOf(text).filter((name) => !fs.existsSync(path.resolve(path.dirname(file), name)) && !fs.existsSync(path.join(root, name)));
    expect(missing).toEqual([]);
  });

  it('shows only npm scripts that package.json has', () => {
    const named = [...text.matchAll(/\bnpm run ([\w:.-]+)/g)].map((match) => match[1]!);
    expect(named.filter((name) => !Object.hasOwn(SCRIPTS, name))).toEqual([]);
  });
});
