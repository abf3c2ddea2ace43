/** Compiled once per pattern; patterns come from the config (routes, task rules), never from a client. */
const compiled = new Map<string, RegExp>();

/** Whether a model name matches a route's or a task rule's `*` pattern, ignoring case (`claude-*`). */
export function globMatches(pattern: string, name: string): boolean {
  let regExp = compiled.get(pattern);
  if (!regExp) {
    regExp = new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 'i');
    compiled.set(pattern, regExp);
  }
  return regExp.test(name);
}

const escapeRegExp = (text: string): string => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
