import { closest } from '../core/closest.js';

/**
 * How a field no schema knows is named, in config.json and in a declarative file alike:
 * `unknown field "secret" (did you mean "secrets"?) (known: secrets)`. A misspelt field is
 * otherwise a setting silently left at its default.
 */
export function unknownFieldMessage(key: string, known: readonly string[]): string {
  return `unknown field "${key}"${didYouMean(key, known)}${known.length ? ` (known: ${known.join(', ')})` : ''}`;
}

/** ` (did you mean "NAME"?)` when one of the options is a near miss of the word, else ''. */
export function didYouMean(word: string, options: readonly string[]): string {
  const match = closest(word, options);
  return match ? ` (did you mean "${match}"?)` : '';
}
