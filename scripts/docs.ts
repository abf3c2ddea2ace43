// Regenerates the CLI reference section of README.md from the commander program.
import { readFileSync, writeFileSync } from 'node:fs';
import { buildProgram } from '../src/cli/program.js';
import { renderCliReference, withReference } from '../src/cli/reference.js';

const readmeUrl = new URL('../README.md', import.meta.url);
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
const readme = readFileSync(readmeUrl, 'utf8');
writeFileSync(readmeUrl, withReference(readme, renderCliReference(buildProgram(version))));
console.log('README.md: CLI reference regenerated');
