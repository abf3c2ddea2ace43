import { CREDENTIAL_SHAPES } from './credential-shapes.js';
import { escaped, LineCursor } from './scan-lines.js';

/**
 * Finds credentials in text and says which kind and where, without judging what to do about them:
 * the well-known key shapes redaction removes (credential-shapes.ts, the one table of them), the
 * values of `password=` / `secret=` assignments as config files, shells and URLs write them, and
 * any exact value the caller names (the secrets the router's settings hold).
 *
 * Built to stay quiet on ordinary code: a shape must be as long as the provider's real keys and
 * look random (made-up test keys, `0123456789abcdef` or a phrase said twice, are not), and an
 * assignment counts only where it is the whole line of an env, ini or YAML file, a shell's
 * assignment before a command (`DB_PASSWORD=… npm start`), a JSON member, a `--flag=value` or a
 * URL's password, with a value that is not a placeholder. Code that passes a variable
 * (`password: options.password,`) or an argument (`connect(password="…")`) is never a finding.
 * Text inside a JSON string (a tool call's arguments) is read as the string says: its `\n`
 * escapes end lines, its quotes end values.
 */

export interface SecretFinding {
  /** `aws-access-key`, `password`, …: the shape or rule that found it. */
  kind: string;
  /** Where the value starts and ends in the text (an assignment's value only, not its name). */
  start: number;
  end: number;
}

export interface ScanOptions {
  /** Exact values to find whatever their shape (kind `configured-secret`); shorter than 8 characters are ignored. */
  known?: readonly string[];
  /** Whether an `svc_` key is one this router issued: found then whatever its random part looks like. */
  issued?: (key: string) => boolean;
}

const SCANNED = CREDENTIAL_SHAPES.filter((shape) => shape.kind !== undefined);
/** Every scanned shape, one group each, tried where a shape may start. */
const SHAPES_AT = new RegExp(SCANNED.map((shape) => `(${shape.pattern})`).join('|'), 'y');
/**
 * Where a scanned shape may start: its prefix. One pass over the text finds these, and the shapes
 * are tried only there (an alternation of every shape, tried at every character, is slower).
 */
const SHAPE_START = /svc_|gsk_|sk[-_]|rk_|AIza|A[KS]IA|gh[pousr]_|github_pat_|xox[abprs]-|hf_|xai-|pplx-|r8_|eyJ|-----BEGIN /g;
/** The characters a key's run is made of (JSON Web Tokens have dots). */
const TOKEN_RUN = /[\w*.-]*/y;
const ALNUM = /[A-Za-z0-9]/;
/** A word an assignment's name holds; the rules are tried only on lines, members and flags that have one. */
const NAME_WORD = /pass(?:word|wd|phrase)|secret|api[_.-]?key|access[_.-]?key|token/gi;
const CREDENTIAL_NAME = /pass(?:word|wd|phrase)|secret|api[_.-]?key|access[_.-]?key|token$/i;
/** Names that say a value is a password or a secret whatever it looks like (but a setting's lowercase words); a key or token must also look random. */
const SAID_SECRET = /pass(?:word|wd|phrase)|secret/i;

/**
 * A whole line `NAME=value`, `NAME: value`, `export NAME="value"` (env, ini, YAML, shell), a comment
 * after it allowed; a bare value ending in `;` or `,` is a statement of code, not a setting. Tried
 * from the start of a line; inside a JSON or program string a line also ends at a `\n` escape or the
 * closing quote, and a quote may be escaped (`\"`, `\'`).
 */
const ASSIGNMENT_LINE =
  /[ \t]*(?:export[ \t]+)?([A-Za-z_][\w.-]{0,60})[ \t]*[=:][ \t]*(?:\\?"([^"\s]{6,200}?)\\?"|\\?'([^'\s]{6,200}?)\\?'|((?:[^\s'"#;,\\]|\\[^\snr"]){6,200}))[ \t\r]*(?:#(?:[^\n\\]|\\[^nr])*)?(?=\n|$|\\[nr]|")/y;
/**
 * A shell's assignment where a command may start, before it or alone: `DB_PASSWORD=… npm start`,
 * `env A=1 API_KEY=… node app.js`, `cd app && TOKEN='…' ./deploy.sh`. No blank around `=` and a
 * blank, separator or the text's end after the value: a program's keyword argument
 * (`connect(password="…")`) is followed by `,` or `)`. Tried where the name starts.
 */
const SHELL_ASSIGNMENT = /([A-Za-z_]\w{0,60})=(?:\\?"([^"\s]{6,200}?)\\?"|'([^'\s]{6,200})'|([^\s'"`;&|()<>\\]{6,200}))(?=[\s;&|'"]|\\[nrt"]|$)/y;
/** A JSON member `"NAME": "value"`. */
const JSON_MEMBER = /"([A-Za-z_][\w.-]{0,60})"[ \t]*:[ \t]*"([^"\s\\]{6,200})"/g;
/** A command-line flag `--NAME=value`. */
const FLAG = /(?:^|[\s'"`])--([A-Za-z][\w-]{0,60})=(?:"([^"\s]{6,200})"|'([^'\s]{6,200})'|([^\s'"`,;)]{6,200}))/g;
const PAIR_RULES = [JSON_MEMBER, FLAG];
/** A URL's password, after its `://`: `user:PASSWORD@host`. */
const URL_USERINFO = /[^\s:/@'"`]{0,100}:([^\s:/@'"`]{6,200})@/y;

/** Every credential in the text, in order of position; undefined when there is none (the usual case costs nothing). */
export function findSecrets(text: string, options: ScanOptions = {}): SecretFinding[] | undefined {
  let found: SecretFinding[] | undefined;
  SHAPE_START.lastIndex = 0;
  for (let start = SHAPE_START.exec(text); start; start = SHAPE_START.exec(text)) {
    SHAPES_AT.lastIndex = start.index;
    const match = SHAPES_AT.exec(text);
    if (!match) {
      // Nothing starts here, nor at another prefix in the same run of key characters: trying each
      // (`eyJ-eyJ-eyJ-…`) would read the rest of the run once per prefix.
      TOKEN_RUN.lastIndex = start.index;
      TOKEN_RUN.exec(text);
      SHAPE_START.lastIndex = Math.max(SHAPE_START.lastIndex, TOKEN_RUN.lastIndex);
      continue;
    }
    const shape = SCANNED[match.findIndex((group, i) => i > 0 && group !== undefined) - 1]!;
    const end = match.index + match[0].length;
    SHAPE_START.lastIndex = end;
    // A shape of fixed length (an AWS key id) inside a longer run of letters and digits is part of something else.
    if (ALNUM.test(text[end] ?? '') || !credible(shape.kind!, match[0], shape.minLength ?? 0, options)) continue;
    found = added(found, shape.kind!, match.index, end);
  }
  NAME_WORD.lastIndex = 0;
  let lines: LineCursor | undefined;
  // The line of each word, once: a word on the line already tried is skipped, so a long line full
  // of them is read once. So is a name: each word of `DB_PASSWORD_TOKEN` is not tried again.
  for (let word = NAME_WORD.exec(text), lineEnd = -1, nameEnd = -1; word; word = NAME_WORD.exec(text)) {
    lines ??= new LineCursor(text);
    // The whole line first: its value may hold what a shell would read as an operator (`pa&ss`).
    if (word.index >= lineEnd) {
      ASSIGNMENT_LINE.lastIndex = lines.startOf(word.index);
      lineEnd = lines.end;
      found = assignment(ASSIGNMENT_LINE.exec(text), found);
    }
    if (word.index >= nameEnd) {
      nameEnd = nameEndAfter(text, word.index + word[0].length);
      const start = text.charCodeAt(nameEnd) === EQUALS ? nameStart(text, word.index) : -1;
      if (start !== -1 && commandMayStart(text, start)) {
        SHELL_ASSIGNMENT.lastIndex = start;
        found = assignment(SHELL_ASSIGNMENT.exec(text), found);
      }
    }
  }
  if (lines) {
    for (const rule of PAIR_RULES) {
      rule.lastIndex = 0;
      for (let match = rule.exec(text); match; match = rule.exec(text)) found = assignment(match, found);
    }
  }
  for (let at = text.indexOf('://'); at !== -1; at = text.indexOf('://', at + 3)) {
    if (!ALNUM.test(text[at - 1] ?? '')) continue;
    URL_USERINFO.lastIndex = at + 3;
    const match = URL_USERINFO.exec(text);
    const value = match?.[1];
    if (value === undefined || isPlaceholder(value)) continue;
    const start = at + 3 + match![0].length - 1 - value.length;
    found = added(found, 'password', start, start + value.length);
  }
  for (const secret of options.known ?? []) {
    if (secret.length < 8) continue;
    for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + secret.length)) found = added(found, 'configured-secret', at, at + secret.length);
  }
  return found;
}

/** A letter, digit or `_`: a shell name's characters. */
function isWordChar(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

const EQUALS = 61;
/** The longest name an assignment rule takes. */
const NAME_LENGTH = 61;

/** Where the run of word characters from `at` ends (later words inside it are not tried again), at most a name's length on. */
function nameEndAfter(text: string, at: number): number {
  let end = at;
  while (end < text.length && end - at < NAME_LENGTH && isWordChar(text, end)) end++;
  return end;
}

/**
 * Where the shell name holding the word at `at` starts (after a `\n` escape's `n`, which is no
 * part of it); -1 when the run is longer than a name may be.
 */
function nameStart(text: string, at: number): number {
  let start = at;
  while (start > 0 && at - start < NAME_LENGTH && isWordChar(text, start - 1) && !escapeLetter(text, start - 1)) start--;
  return start > 0 && isWordChar(text, start - 1) && !escapeLetter(text, start - 1) ? -1 : start;
}

/** Whether the letter at `at` is a `\n`, `\t` or `\r` escape's. */
const escapeLetter = (text: string, at: number): boolean => (text[at] === 'n' || text[at] === 't' || text[at] === 'r') && escaped(text, at);

/**
 * Whether a command may start at `at`: at the text's start, after a blank, a separator (`;`, `&`,
 * `|`, `(`, a backquote), a quote (a JSON string: a tool call's `"command"`; `sh -c '…'`), or a
 * `\n` or `\t` escape (a heredoc's line inside a JSON string).
 */
function commandMayStart(text: string, at: number): boolean {
  if (at === 0) return true;
  const before = text[at - 1]!;
  if (/[\s;&|(`"']/.test(before)) return true;
  return escapeLetter(text, at - 1);
}

/** An assignment rule's match as a finding: its value, when the name says credential and the value is not a placeholder. */
function assignment(match: RegExpExecArray | null, found: SecretFinding[] | undefined): SecretFinding[] | undefined {
  if (!match) return found;
  const name = match[1]!;
  const value = match[2] ?? match[3] ?? match[4];
  if (value === undefined || !CREDENTIAL_NAME.test(name) || isPlaceholder(value)) return found;
  if (!looksRandom(value) && (!SAID_SECRET.test(name) || SETTING_WORD.test(value))) return found;
  const start = match.index + match[0].lastIndexOf(value);
  return added(found, assignmentKind(name), start, start + value.length);
}

/**
 * The findings, in order of position, with one more unless it overlaps one found before (a shape
 * wins over a rule that saw the same value). They do not overlap, so its neighbours are the only
 * ones to check; and each rule finds in order, so it usually goes at the end.
 */
function added(found: SecretFinding[] | undefined, kind: string, start: number, end: number): SecretFinding[] {
  if (!found) return [{ kind, start, end }];
  let low = 0;
  let high = found.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (found[middle]!.start < start) low = middle + 1;
    else high = middle;
  }
  if ((low > 0 && found[low - 1]!.end > start) || (low < found.length && found[low]!.start < end)) return found;
  if (low === found.length) found.push({ kind, start, end });
  else found.splice(low, 0, { kind, start, end });
  return found;
}

/**
 * The same credential however it was written: a private key's line breaks may be real or JSON
 * escapes (a tool call's arguments), so they do not count.
 */
export function secretIdentity(kind: string, value: string): string {
  return kind === 'private-key' ? value.replace(/\\[nr]|\s/g, '') : value;
}

/** `password`, `secret`, `api-key` or `token`, from the name a value was assigned to. */
function assignmentKind(name: string): string {
  if (/pass/i.test(name)) return 'password';
  if (/secret/i.test(name)) return 'secret';
  return /token$/i.test(name) ? 'token' : 'api-key';
}

/** Twenty characters or more (API keys are longer) of two kinds (letters of both cases, digits) that no person typed. */
function looksRandom(value: string): boolean {
  const classes = Number(/[a-z]/.test(value)) + Number(/[A-Z]/.test(value)) + Number(/\d/.test(value));
  return value.length >= 20 && classes >= 2 && !madeUp(value);
}

/** A match of a key shape that is long enough, and random enough, to be a real key. */
function credible(kind: string, value: string, minLength: number, options: ScanOptions): boolean {
  if (value.length < minLength) return false;
  if (kind === 'private-key') return true;
  if (kind === 'svc-key' && options.issued?.(value)) return true;
  // Sixteen of A–Z and 2–7 after a fixed prefix: precise as it is, and a real one has no digit one time in thirty.
  if (kind === 'aws-access-key') return !value.endsWith('EXAMPLE') && !madeUp(value.slice(4));
  if (kind === 'jwt') return value.slice(value.lastIndexOf('.') + 1).length >= 16 && !madeUp(value.slice(value.lastIndexOf('.') + 1));
  // The random part: after the prefix (`sk-ant-api03-`, `svc_alice_`, `ghp_`).
  const random = value.slice(Math.max(value.lastIndexOf('_'), value.lastIndexOf('-')) + 1 || 0);
  const body = random.length >= 16 ? random : value;
  const classes = Number(/[a-z]/.test(body)) + Number(/[A-Z]/.test(body)) + Number(/\d/.test(body));
  return classes >= 2 && !madeUp(body);
}

/**
 * What a person types for a key, not what a generator makes: six of one character, six in
 * sequence (`abcdef`, `012345`, either case), or eight characters said twice. A real key has any
 * of them with a chance far below one in a million.
 */
function madeUp(value: string): boolean {
  const lower = value.toLowerCase();
  let same = 1;
  let ascending = 1;
  for (let i = 1; i < lower.length; i++) {
    same = lower[i] === lower[i - 1] ? same + 1 : 1;
    ascending = lower.charCodeAt(i) === lower.charCodeAt(i - 1) + 1 ? ascending + 1 : 1;
    if (same >= 6 || ascending >= 6) return true;
  }
  const windows = new Set<string>();
  for (let i = 0; i + 8 <= value.length; i++) {
    const window = value.slice(i, i + 8);
    if (windows.has(window)) return true;
    windows.add(window);
  }
  return false;
}

/**
 * A value that is lowercase words (`refuse`, `read-only`, `on_demand`) is a setting's choice, as
 * settings files and code name them (`"secret": "refuse"`), not a password: a password people
 * choose has a capital, a digit or a symbol in it, and a generated one looks random.
 */
const SETTING_WORD = /^[a-z]+(?:[-_][a-z]+)*$/;

/** Words and forms that stand for a value rather than being one. */
const PLACEHOLDER_WORDS = new Set(['password', 'passwd', 'passphrase', 'secret', 'changeme', 'string', 'required', 'optional', 'undefined', 'example', 'placeholder', 'redacted', 'hunter2', 's3cret', 'passw0rd']);
const PLACEHOLDER_FORM = /^[$%<{[(*]|\$\{|\{\{|your|example|placeholder|changeme|dummy|xxxx|\*\*\*|redacted|s[e3]cret|passw[o0]rd/i;

/** A metavariable, as usage text writes one: `VALUE`, `YOUR_KEY`. */
const METAVARIABLE = /^[A-Z][A-Z_]*$/;

function isPlaceholder(value: string): boolean {
  return PLACEHOLDER_WORDS.has(value.toLowerCase()) || PLACEHOLDER_FORM.test(value) || METAVARIABLE.test(value);
}
