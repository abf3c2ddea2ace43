import type { Reply } from '../../core/reply.js';
import { isRecord } from './asked-safeguard.js';

export interface ClassifierVerdict {
  outcome: 'flagged' | 'not_flagged';
  reason?: string;
}

/** The explanation Claude Code shows is one line; a longer one is cut here. */
const MAX_REASON = 400;

/**
 * The classifier's answer: the one JSON object it was asked for (in a code fence or not), with
 * `verdict` exactly `flagged` or `not_flagged`. Anything else (prose, two objects, another word, a
 * reply cut short) is no verdict: a verdict the classifier did not clearly give is never made up.
 */
export function readVerdict(reply: Reply): ClassifierVerdict | undefined {
  const text = reply.content
    .flatMap((part) => (part.type === 'text' ? [part.text] : []))
    .join('')
    .trim();
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start === -1 || end < start) return undefined;
  let answer: unknown;
  try {
    answer = JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
  if (!isRecord(answer) || !Object.hasOwn(answer, 'verdict')) return undefined;
  const outcome = answer.verdict;
  if (outcome !== 'flagged' && outcome !== 'not_flagged') return undefined;
  const said = Object.hasOwn(answer, 'reason') && typeof answer.reason === 'string' ? answer.reason.replace(/\s+/g, ' ').trim() : '';
  const reason = said.length <= MAX_REASON ? said : `${said.slice(0, MAX_REASON - 1)}…`;
  return { outcome, ...(reason ? { reason } : {}) };
}
