import { closest } from '../core/closest.js';

/** ` (did you mean 'NAME'?)` when one of the names is a near miss of the word, else ''. */
export function didYouMean(word: string, names: Iterable<string>): string {
  const match = closest(word, [...names]);
  return match !== undefined && match !== word ? ` (did you mean '${match}'?)` : '';
}
