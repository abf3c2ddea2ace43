// The generated sections of a document that one writer owns and the others keep: each lies between
// `<!-- NAME:start -->` and `<!-- NAME:end -->`, so a writer of the rest carries it over whole.

export const sectionStart = (name: string): string => `<!-- ${name}:start -->`;
export const sectionEnd = (name: string): string => `<!-- ${name}:end -->`;

/** The document with its `name` section replaced by `section`, or `section` added at the end. */
export function withSection(document: string, name: string, section: string): string {
  const start = document.indexOf(sectionStart(name));
  const end = document.indexOf(sectionEnd(name));
  if (start >= 0 && end > start) return `${document.slice(0, start)}${section}${document.slice(end + sectionEnd(name).length)}`;
  return `${document.replace(/\n*$/, '\n\n')}${section}\n`;
}

/** The `name` section a document holds, markers included, to carry over when the rest is regenerated; '' when none. */
export function sectionOf(document: string, name: string): string {
  const start = document.indexOf(sectionStart(name));
  const end = document.indexOf(sectionEnd(name));
  return start >= 0 && end > start ? document.slice(start, end + sectionEnd(name).length) : '';
}

/** The sections docs/compatibility.md holds beyond the client matrix, each from its own suite, in page order. */
export const KEPT_COMPATIBILITY_SECTIONS = ['prompt-cache', 'providers'] as const;

/** `rest` with each kept section `previous` held, in page order. */
export function keepingSections(rest: string, previous: string, names: readonly string[] = KEPT_COMPATIBILITY_SECTIONS): string {
  let document = rest;
  for (const name of names) {
    const section = sectionOf(previous, name);
    if (section) document = withSection(document, name, section);
  }
  return document;
}
