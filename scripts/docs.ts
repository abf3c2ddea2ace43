// Regenerates what is derived from the commander program: the CLI reference (docs/cli-reference.md),
// the completion scripts in completions/, and the declarative config's JSON Schema in schema/.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { SHELLS } from '../src/cli/completion-hints.js';
import { completionData, renderCompletion } from '../src/cli/completion/index.js';
import { renderJsonSchema, SCHEMA_FILE } from '../src/config/declarative/json-schema.js';
import { buildProgram } from '../src/cli/program.js';
import { renderCliReference, withReference } from '../src/cli/reference.js';

const referenceUrl = new URL('../docs/cli-reference.md', import.meta.url);
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
const program = buildProgram(version);
const page = readFileSync(referenceUrl, 'utf8');
writeFileSync(referenceUrl, withReference(page, renderCliReference(program)));
console.log('docs/cli-reference.md: regenerated');
const data = await completionData();
for (const shell of SHELLS) {
  writeFileSync(new URL(`../completions/svc-router.${shell}`, import.meta.url), renderCompletion(shell, program, data));
  console.log(`completions/svc-router.${shell}: regenerated`);
}
mkdirSync(new URL('../schema/', import.meta.url), { recursive: true });
writeFileSync(new URL(`../${SCHEMA_FILE}`, import.meta.url), renderJsonSchema());
console.log(`${SCHEMA_FILE}: regenerated`);
