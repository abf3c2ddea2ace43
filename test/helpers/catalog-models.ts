import fc from 'fast-check';
import { capabilitiesOf, CAPABILITY_ROWS } from '../../src/catalog/index.js';

type CapabilityRow = (typeof CAPABILITY_ROWS)[number];

/**
 * A model name each catalog row reads as its own (the first row matching wins, so a name the
 * pattern matches may belong to an earlier row): drawn from the row's pattern, so a test over
 * "every row" covers a new row without a line of its own. fast-check draws from a pattern without
 * `\b`, which the name is then checked against in full.
 */
export function modelNameOf(row: CapabilityRow): string {
  const drawable = new RegExp(row.family.source.replace(/\\b/g, ''), row.family.flags);
  const names = fc.sample(fc.stringMatching(drawable, { size: 'xsmall' }), { seed: 38, numRuns: 2000 });
  const name = [...names].sort((a, b) => a.length - b.length).find((candidate) => row.types.some((type) => capabilitiesOf(type, candidate) === row.capabilities));
  if (!name) throw new Error(`no model name drawn from ${row.family} reads as its own row`);
  return name;
}
