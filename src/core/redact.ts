import { CREDENTIAL_SHAPES } from './credential-shapes.js';
import { RouterError } from './errors.js';

/** What replaces a credential in text a client or a log line may see. */
export const REDACTED = '[redacted]';

/** Upstream text in an error message is cut to this many characters, after it has been redacted. */
export const MAX_UPSTREAM_TEXT = 500;

/** Configured secrets shorter than this are not searched for: replacing them would mangle text. */
const MIN_SECRET_CHARS = 8;
/**
 * Keys remembered for every log line must look like real keys: placeholder keys that local servers
 * accept (`ollama`, `lm-studio`, `sk-no-key-required`) would otherwise vanish from every prompt logged.
 */
const MIN_REMEMBERED_CHARS = 20;

/**
 * Well-known key shapes, whatever the words around them (src/core/credential-shapes.ts): this
 * router's own (`svc_<slug>_…`, as issued, whatever its random part holds; and anything
 * `svc_`/`svc-` with a digit), OpenAI and Anthropic (`sk-…`, `sk-ant-…`, `sk-proj-…`), Google
 * (`AIza…`), AWS access key ids, GitHub, Slack, Hugging Face, Groq, xAI, Perplexity, Replicate,
 * Stripe, JSON Web Tokens and PEM private keys.
 */
const KEY_SHAPES = new RegExp(CREDENTIAL_SHAPES.map((shape) => shape.pattern).join('|'), 'g');

/** An auth scheme and its credential: `Bearer abc…`, `Basic dXNl…`. */
const AUTH_SCHEME = /\b(Bearer|Basic|Token)(\s+)([A-Za-z0-9._~+/-]{6,}=*)/gi;

/** A credential header or parameter and its value: `x-api-key: …`, `api_key=…`, `"authorization": "…"`. */
const CREDENTIAL_FIELD =
  /\b(x-api-key|x-goog-api-key|api[-_]?key|apikey|access[-_]?token|auth[-_]?token|refresh[-_]?token|client[-_]?secret|authorization|password|passwd)(["']?\s*[:=]\s*["']?)(?!Bearer\b|Basic\b|Token\b)([^\s"',;&)]{4,})/gi;

/** A random-looking value after a word that names a credential: `key 0f3a…`, `token: AbC…`. */
const NAMED_CREDENTIAL = /\b(keys?|tokens?|secrets?|credentials?)(\s*[:=]?\s*["'`]?)([A-Za-z0-9+/_.~-]{12,}=*)/gi;

/**
 * A word every pattern above needs somewhere in its match (matched without case, so it may find
 * more than they do): text without any of them has nothing for them to replace. Most upstream
 * text (ids, model names) has none, and is passed by one test instead of four replacements.
 */
const CREDENTIAL_HINT = /sk|svc[-_]|pk|rk|aiza|akia|asia|gh[pousr]_|github_pat_|xox|hf_|r8_|xai-|pplx-|eyj|bearer|basic|token|key|authorization|passw|secret|credential/i;

/** Letters and digits mixed, or a long run of hex or base64: a credential, not a word. */
function looksRandom(value: string): boolean {
  if (value.length >= 8 && /\d/.test(value) && /[A-Za-z]/.test(value)) return true;
  return value.length >= 32 && /^[A-Za-z0-9+/_=-]+$/.test(value);
}

/**
 * Removes credentials from text that came from an upstream (or that carries upstream text)
 * before a client, a log line or `svc_meta` sees it: the backend's own secrets wherever they
 * appear, any `Bearer …`, `x-api-key: …`-style value, well-known key shapes, and random-looking
 * values after words such as "key" or "token". Ordinary words are left alone.
 *
 * `limit` cuts the result, and only the result: cutting first could leave part of a key behind.
 */
export function redactText(text: string, secrets: Iterable<string> = [], limit?: number): string {
  let clean = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_CHARS && clean.includes(secret)) clean = clean.split(secret).join(REDACTED);
  }
  if (CREDENTIAL_HINT.test(clean)) clean = redactPatterns(clean);
  return limit !== undefined && clean.length > limit ? `${clean.slice(0, limit)}…` : clean;
}

/** The credential patterns alone, on any text (redactText runs them only where CREDENTIAL_HINT finds a word they need). */
export function redactPatterns(text: string): string {
  return text
    .replace(KEY_SHAPES, REDACTED)
    .replace(AUTH_SCHEME, (match, scheme: string, space: string, value: string) => (/^[a-z]+$/.test(value) ? match : `${scheme}${space}${REDACTED}`))
    .replace(CREDENTIAL_FIELD, (match, name: string, separator: string, value: string) =>
      value.startsWith(REDACTED) || !(looksRandom(value) || value.length >= 16) ? match : `${name}${separator}${REDACTED}`,
    )
    .replace(NAMED_CREDENTIAL, (match, name: string, separator: string, value: string) => (looksRandom(value) ? `${name}${separator}${REDACTED}` : match));
}

/**
 * Upstream text for an error message, bounded for memory but not yet for display: enough beyond
 * MAX_UPSTREAM_TEXT that a credential straddling the cut is past where redaction will cut it.
 */
export function upstreamText(value: unknown): string {
  return String(value).slice(0, 16 * 1024);
}

/** The same error with its message (and any upstream-provided param or code) redacted and bounded. */
export function redactError(error: RouterError, secrets: Iterable<string> = []): RouterError {
  const list = [...secrets];
  const message = redactText(error.message, list, MAX_UPSTREAM_TEXT + 200);
  const param = error.param === undefined ? undefined : redactText(error.param, list, 200);
  const code = error.code === undefined ? undefined : redactText(error.code, list, 200);
  if (message === error.message && param === error.param && code === error.code) return error;
  return new RouterError(error.status, error.kind, message, param, code, error.retryAfterMs, { cause: error.cause, retryable: error.retryable });
}

/**
 * A JSON value with every string in it redacted (object keys included), for logging bodies.
 * Values without anything to redact come back as they are.
 */
export function redactValue(value: unknown, secrets: Iterable<string> = []): unknown {
  const list = [...secrets];
  const walk = (node: unknown, depth: number): unknown => {
    if (typeof node === 'string') return redactText(node, list);
    if (node === null || typeof node !== 'object' || depth > 100) return node;
    if (Array.isArray(node)) {
      let changed = false;
      const out = node.map((item) => {
        const next = walk(item, depth + 1);
        if (next !== item) changed = true;
        return next;
      });
      return changed ? out : node;
    }
    let changed = false;
    const entries = Object.entries(node).map(([key, item]): [string, unknown] => {
      const cleanKey = redactText(key, list);
      const next = walk(item, depth + 1);
      if (next !== item || cleanKey !== key) changed = true;
      return [cleanKey, next];
    });
    // fromEntries defines own properties: a client's `__proto__` key stays a key.
    return changed ? Object.fromEntries(entries) : node;
  };
  return walk(value, 0);
}

/** Header names whose values are credentials (`x-api-key`, `x-gateway-token`, `authorization`, `cookie`). */
export const CREDENTIAL_HEADER_NAME = /key|token|auth|secret|password|cookie/i;

/**
 * The upstream keys this process has sent, so a log can scrub them even where it cannot tell
 * which backend a text came from. Bounded: keys are few, but a config could rotate many in.
 */
const usedSecrets = new Set<string>();
const MAX_REMEMBERED = 256;

/** Where the secrets the settings in force hold come from (one per open app), used yet or not. */
const secretSources = new Set<() => Iterable<string>>();

export function rememberSecret(secret: string): void {
  if (secret.length < MIN_REMEMBERED_CHARS || usedSecrets.has(secret)) return;
  if (usedSecrets.size >= MAX_REMEMBERED) usedSecrets.delete(usedSecrets.values().next().value as string);
  usedSecrets.add(secret);
}

/**
 * Adds the secrets a source holds (read each time: the settings change) to what every log and
 * upstream error is scrubbed of, so a key never sent yet (a spare pooled key, a gateway header)
 * is scrubbed too. Returns how to take the source away again.
 */
export function addSecretSource(source: () => Iterable<string>): () => void {
  secretSources.add(source);
  return () => void secretSources.delete(source);
}

/** The keys sent upstream so far and those the settings hold, as a fresh list. */
export function rememberedSecrets(): string[] {
  const secrets = [...usedSecrets];
  for (const source of secretSources) {
    for (const secret of source()) if (secret.length >= MIN_REMEMBERED_CHARS && !usedSecrets.has(secret)) secrets.push(secret);
  }
  return secrets;
}
