/**
 * The credential shapes the router knows, in one table: redaction (redact.ts) removes every one of
 * them from what a client or a log sees, and the secret scanner (secret-scan.ts) reports the ones it
 * can tell from ordinary text by kind and position. Each pattern carries its own boundary.
 *
 * `minLength` is what the scanner asks of a match before calling it a credential: providers' keys
 * are long (an Anthropic key is 108 characters, an OpenAI project key over 150), while redaction
 * takes shorter runs too (a key cut short in an error message is still a leak). A shape without a
 * kind is too loose to call anything a credential (it catches every `sk-…` with a digit) and serves
 * redaction only.
 */
export interface CredentialShape {
  /** Named in findings and placeholders: `aws-access-key`. */
  readonly kind?: string;
  /** Regular-expression source, no flags; it must not capture. */
  readonly pattern: string;
  readonly minLength?: number;
}

/** In redaction's order: the first that matches at a place decides how much is removed. */
export const CREDENTIAL_SHAPES: readonly CredentialShape[] = [
  // This router's own keys, as issued (`svc_<slug>_` and 32 characters of base64url), whatever the random part holds.
  { kind: 'svc-key', pattern: '\\bsvc_[a-z0-9-]+_[A-Za-z0-9_-]{32,}', minLength: 38 },
  // Anything `sk-`, `svc-`, `pk_`, `rk-` with a digit: keys of many providers, and of none. Not after a
  // hyphen (below, and for JSON Web Tokens): each prefix of `sk-sk-sk-…` would read the rest of the run.
  { pattern: '(?<![\\w-])(?:sk|svc|pk|rk)[-_](?=[A-Za-z0-9_-]*\\d)[A-Za-z0-9_*-]{8,}' },
  { kind: 'anthropic-key', pattern: '\\bsk-ant-[A-Za-z0-9_-]{8,}', minLength: 90 },
  { kind: 'openai-key', pattern: '\\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{8,}', minLength: 60 },
  { kind: 'google-api-key', pattern: '\\bAIza[0-9A-Za-z_-]{30,}', minLength: 39 },
  { kind: 'aws-access-key', pattern: '\\b(?:AKIA|ASIA)[0-9A-Z]{16}', minLength: 20 },
  { kind: 'github-token', pattern: '\\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}', minLength: 40 },
  { kind: 'github-token', pattern: '\\bgithub_pat_[A-Za-z0-9_]{20,}', minLength: 60 },
  { kind: 'slack-token', pattern: '\\bxox[abprs]-[A-Za-z0-9-]{10,}', minLength: 24 },
  { kind: 'huggingface-token', pattern: '\\bhf_[A-Za-z0-9]{20,}', minLength: 34 },
  { kind: 'groq-key', pattern: '\\bgsk_[A-Za-z0-9]{20,}', minLength: 50 },
  { kind: 'xai-key', pattern: '\\bxai-[A-Za-z0-9]{20,}', minLength: 50 },
  { kind: 'perplexity-key', pattern: '\\bpplx-[A-Za-z0-9]{20,}', minLength: 50 },
  { kind: 'replicate-token', pattern: '\\br8_[A-Za-z0-9]{20,}', minLength: 40 },
  { kind: 'jwt', pattern: '(?<![\\w-])eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]*', minLength: 60 },
  // OpenAI's keys before project keys: `sk-` and 48 letters and digits.
  { kind: 'openai-key', pattern: '\\bsk-[A-Za-z0-9]{40,}', minLength: 43 },
  { kind: 'stripe-key', pattern: '\\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}', minLength: 30 },
  // A PEM private key: its header, then base64 (and an encrypted key's header lines) up to its
  // footer, or to the first character no PEM body holds (a key pasted cut short). Newlines may be
  // JSON escapes (`\n`), as in a tool call's arguments. Bounded runs keep the search linear.
  {
    kind: 'private-key',
    pattern: '-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----[A-Za-z0-9+/=\\s\\\\:,.-]{40,}?(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?![A-Za-z0-9+/=\\s\\\\:,.-]))',
    minLength: 70,
  },
];
