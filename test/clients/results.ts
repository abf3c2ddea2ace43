// The shape of the compatibility results the client suites write and scripts/compat-matrix.ts reads.
import { fileURLToPath } from 'node:url';

export type RouteKind = 'openai-chat' | 'anthropic' | 'openai-responses' | 'gemini' | 'offline';

/**
 * pass: the client got the right answer and the upstream the right request; refused: the router
 * answered a documented 400; limitation: a documented gap, `note` says which; fail: a defect.
 */
export type Outcome = 'pass' | 'refused' | 'limitation' | 'fail';

export interface Cell {
  /** Library family: 'Vercel AI SDK', 'LangChain', 'OpenAI Agents SDK', 'Google GenAI SDK'. */
  family: string;
  /** One way of using it, e.g. '@ai-sdk/openai · openai.chat()'. */
  client: string;
  feature: string;
  route: RouteKind;
  outcome: Outcome;
  note?: string;
}

export interface ResultsFile {
  family: string;
  cells: Cell[];
}

/** test/clients/.results/, one JSON file per suite file (git-ignored). */
export const RESULTS_DIR = fileURLToPath(new URL('./.results/', import.meta.url));
