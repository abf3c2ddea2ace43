/**
 * A file's bytes given inline (a data URL, or base64 with its media type beside it) as the text a
 * model reads of them: a text file (`text/*`, JSON, XML, YAML, code) is read as text whatever its
 * encoding, and so are bytes that say they are binary but read as text. Only binary (an image, a
 * PDF, audio) is no text. Used to read and rewrite a request's text where files carry it.
 */

/** `data:[<media type>][;<parameter>…][;base64],<data>` (RFC 2397), split into its parts. */
export interface DataUrl {
  /** Everything up to and including the comma: written again unchanged. */
  header: string;
  /** Lower case, parameters left out; RFC 2397's `text/plain` when the URL names none. */
  mediaType: string;
  base64: boolean;
  data: string;
}

const DATA_URL = /^data:([a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+)?((?:;[^;,]+)*?)(;base64)?,/i;

/** The parts of a data URL, or undefined for any other text (`data: AKIA…` is text, not a URL). */
export function readDataUrl(value: string): DataUrl | undefined {
  if (!value.startsWith('data:')) return undefined;
  const match = DATA_URL.exec(value);
  if (!match) return undefined;
  return { header: match[0], mediaType: (match[1] ?? 'text/plain').toLowerCase(), base64: match[3] !== undefined, data: value.slice(match[0].length) };
}

/** Application types whose bytes are text (`x-` left off): data, markup, code, configuration. */
const TEXT_APPLICATION = new Set([
  'json', 'jsonl', 'json5', 'ndjson', 'xml', 'yaml', 'toml', 'ini', 'env', 'properties', 'csv', 'sql', 'graphql',
  'javascript', 'ecmascript', 'typescript', 'sh', 'shellscript', 'python', 'ruby', 'perl', 'php', 'httpd-php',
  'markdown', 'rtf', 'tex', 'latex', 'www-form-urlencoded',
]);

/** Whether a media type names text: `text/*`, a `+json`/`+xml`/`+yaml` type, or an application type of text. */
export function isTextMediaType(mediaType: string | undefined): boolean {
  if (!mediaType) return false;
  const slash = mediaType.indexOf('/');
  const type = mediaType.slice(0, slash).trim().toLowerCase();
  const subtype = mediaType.slice(slash + 1).split(';')[0]!.trim().toLowerCase();
  if (type === 'text' || /\+(?:json|xml|yaml)$/.test(subtype)) return true;
  return type === 'application' && TEXT_APPLICATION.has(subtype.startsWith('x-') ? subtype.slice(2) : subtype);
}

/** How a payload's text was written, to write a changed text the same way. */
export type PayloadEncoding = 'base64' | 'percent' | 'as-is';

/** A payload's text and how it was written; `as-is` when it was not the encoding it claims (raw text in a base64 field). */
export interface PayloadText {
  text: string;
  encoding: PayloadEncoding;
}

/** How many characters of a payload are looked at to tell base64 from text, and text from binary. */
const SNIFF = 64;

/**
 * The text a model reads of a payload, or undefined when it is binary. `base64`: the payload says
 * it is base64; one that is not (it holds characters base64 has not) is text as written.
 */
export function readPayload(data: string, base64: boolean, mediaType: string | undefined): PayloadText | undefined {
  if (!base64) {
    const bytes = percentDecoded(data);
    return isTextMediaType(mediaType) || readsAsText(bytes.subarray(0, SNIFF)) ? { text: bytes.toString('utf8'), encoding: 'percent' } : undefined;
  }
  if (!base64Start(data)) return { text: data, encoding: 'as-is' };
  if (!isTextMediaType(mediaType) && !readsAsText(Buffer.from(data.slice(0, SNIFF), 'base64'))) return undefined;
  return { text: Buffer.from(data, 'base64').toString('utf8'), encoding: 'base64' };
}

/** A payload's text written again as it was (base64, percent-encoded, or as it is). */
export function writePayload(text: string, encoding: PayloadEncoding): string {
  if (encoding === 'base64') return Buffer.from(text, 'utf8').toString('base64');
  return encoding === 'percent' ? encodeURIComponent(text) : text;
}

/** Whether a payload starts as base64 does (either alphabet; a line break as MIME wraps it). */
function base64Start(data: string): boolean {
  const end = Math.min(data.length, SNIFF);
  for (let i = 0; i < end; i++) {
    const code = data.charCodeAt(i);
    const ok = (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || (code >= 47 && code <= 57) || code === 43 || code === 45 || code === 95 || code === 61 || code === 10 || code === 13;
    if (!ok) return false;
  }
  return true;
}

const PDF = Buffer.from('%PDF-');

/**
 * Whether the first bytes of a payload read as text: UTF-8 with no control character but tab and
 * line breaks. Images, audio and archives start with bytes that do not; a PDF is binary however its
 * header reads.
 */
function readsAsText(bytes: Buffer): boolean {
  if (bytes.length === 0 || bytes.subarray(0, PDF.length).equals(PDF)) return false;
  const text = bytes.toString('utf8');
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code < 32 && code !== 9 && code !== 10 && code !== 13) || code === 127) return false;
    // An invalid sequence; at the very end, a character the sniff cut in two.
    if (code === 0xfffd && i < text.length - 1) return false;
  }
  return true;
}

/** RFC 3986 percent-encoding undone, byte for byte (a `%` not followed by two hex digits stays). */
export function percentDecoded(data: string): Buffer {
  if (!data.includes('%')) return Buffer.from(data, 'utf8');
  const pieces: Buffer[] = [];
  let at = 0;
  for (const escape of data.matchAll(/%([0-9a-f]{2})/gi)) {
    pieces.push(Buffer.from(data.slice(at, escape.index), 'utf8'), Buffer.of(parseInt(escape[1]!, 16)));
    at = escape.index + 3;
  }
  pieces.push(Buffer.from(data.slice(at), 'utf8'));
  return Buffer.concat(pieces);
}
