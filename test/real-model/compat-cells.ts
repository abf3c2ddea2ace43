import fs from 'node:fs';
import path from 'node:path';
import { afterAll } from 'vitest';
import { RESULTS_DIR, type Cell, type ResultsFile } from '../clients/results.js';
import type { ClientFormatName } from './clients.js';
import type { Registration } from './real-setup.js';

/** The family the real-model cells appear under in docs/compatibility.md (scripts/compat-matrix.ts). */
export const REAL_MODEL_FAMILY = 'llama.cpp server';

const CLIENTS: Record<ClientFormatName, string> = {
  chat: 'openai · chat.completions',
  messages: '@anthropic-ai/sdk · messages',
  responses: 'openai · responses',
};

/**
 * Records each case as a cell of the compatibility matrix (client SDK × feature × how the server is
 * registered), written to test/clients/.results/ when the file's cases are done, as the client suites
 * write theirs: pass when the case passed, fail (with the first line of the error) when it did not.
 */
export function compatRecorder(file: string) {
  const cells: Cell[] = [];
  afterAll(() => {
    if (cells.length === 0) return;
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    const results: ResultsFile = { family: REAL_MODEL_FAMILY, cells };
    fs.writeFileSync(path.join(RESULTS_DIR, `real-model-${file}.json`), `${JSON.stringify(results, null, 2)}\n`);
  });
  const note = (format: ClientFormatName, feature: string, registration: Registration, outcome: Cell['outcome'], detail?: string) =>
    cells.push({ family: REAL_MODEL_FAMILY, client: CLIENTS[format], feature, route: registration, outcome, ...(detail ? { note: detail } : {}) });
  return {
    note,
    /** Runs a case that covers these formats, recording a cell for each. */
    async cell<T>(formats: ClientFormatName | ClientFormatName[], feature: string, registration: Registration, body: () => Promise<T>): Promise<T> {
      const each = Array.isArray(formats) ? formats : [formats];
      try {
        const result = await body();
        for (const format of each) note(format, feature, registration, 'pass');
        return result;
      } catch (error) {
        for (const format of each) note(format, feature, registration, 'fail', String((error as Error)?.message ?? error).split('\n')[0]);
        throw error;
      }
    },
  };
}
