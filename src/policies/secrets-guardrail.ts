import { configuredSecrets } from '../config/secrets.js';
import type { SecretsMode, Settings } from '../config/settings.js';
import { RouterError } from '../core/errors.js';
import { forEachRequestText, rewriteRequestText } from '../core/request-text.js';
import { findSecrets, secretIdentity, type ScanOptions, type SecretFinding } from '../core/secret-scan.js';
import { warn } from '../core/warnings.js';
import { hashKey } from '../core/router-keys.js';
import type { Policy } from './policy.js';

/**
 * The secrets guardrail. Coding agents read `.env` files, shell histories and cloud configs, and
 * send what they read to a third-party model. With `guardrails.secrets` set (globally, or per route
 * with `routes guard`), every text the model will read (core/request-text.ts: messages, system
 * prompt, tool definitions, tool calls and results, documents and text files however they are
 * encoded; the forwarded body as much as the translated request) is scanned for credentials
 * (core/secret-scan.ts), and:
 *
 * - `warn` sends it on, naming the kinds found and where in `x-svc-warning` and svc_meta.warnings;
 * - `mask` replaces each value with a placeholder (`[secret:aws-access-key:1]`) before any upstream
 *   sees it. The same value gets the same placeholder everywhere in the request, and numbers follow
 *   first occurrence with the conversation walked last, so a later turn, which resends the earlier
 *   ones, gives their secrets the same placeholders and the upstream's prompt cache still matches;
 * - `refuse` answers 400 `guardrail_refused`, naming the kinds and where.
 *
 * Never the value: findings name a kind and a place (`messages[2]`), in warnings, errors and the
 * request record alike. Off (the default) costs one lookup and allocates nothing.
 */
export const secretsGuardrail: Policy = {
  name: 'secrets',
  // A token count's request reaches an Anthropic upstream too (Claude Code sends one before most turns).
  onCounts: true,
  admit(input) {
    const mode = modeFor(input.settings, input.route);
    if (mode === 'off') return undefined;
    const options = scanOptions(input.settings);
    const scan = scanRequest(input.request, options);
    if (!scan) return undefined;
    const where = placesOf(scan.found);
    if (mode === 'refuse') {
      throw new RouterError(
        400,
        'invalid_request',
        `The request holds what look like credentials (${where}); this router does not send credentials upstream. Remove them and send it again.`,
        undefined,
        'guardrail_refused',
      );
    }
    if (mode === 'mask') {
      const placeholders = new Placeholders(scan);
      rewriteRequestText(input.request, (text) => placeholders.mask(text, options));
      warn(input.request, `Credentials were replaced by placeholders before the upstream saw them: ${where}.`);
      return { note: `masked ${where}` };
    }
    warn(input.request, `The request holds what look like credentials, sent on as they are: ${where}. Remove them, or have them masked (guardrails.secrets mask).`);
    return { note: `warned ${where}` };
  },
};

const MODES: ReadonlySet<string> = new Set<SecretsMode>(['warn', 'mask', 'refuse']);

/** The route's own mode when it sets one, else the router's; anything but warn, mask or refuse is off. */
function modeFor(settings: Settings, route: string | undefined): SecretsMode {
  const policies = settings.routePolicies;
  const own = route !== undefined && Object.hasOwn(policies, route) ? policies[route]!.guardrails?.secrets : undefined;
  const mode = own ?? settings.guardrails?.secrets;
  return mode !== undefined && MODES.has(mode) ? mode : 'off';
}

/** What the scanner is told of this router: the secrets its settings hold, and the keys it issued (by hash). */
function scanOptions(settings: Settings): ScanOptions {
  let options = optionsBySettings.get(settings);
  if (!options) {
    const issued = new Set(Object.values(settings.keys).map((record) => record.hash));
    options = { known: configuredSecrets(settings), issued: (key) => issued.has(hashKey(key)) };
    optionsBySettings.set(settings, options);
  }
  return options;
}

const optionsBySettings = new WeakMap<Settings, ScanOptions>();

/** One credential found: its kind, where, and the value (never written anywhere: it is what is masked). */
interface Found {
  kind: string;
  where: string;
  value: string;
}

/** What the scan found, and in which texts (so masking them needs no second scan). */
interface Scan {
  found: Found[];
  byText: Map<string, SecretFinding[]>;
}

function scanRequest(request: Parameters<typeof forEachRequestText>[0], options: ScanOptions): Scan | undefined {
  let scan: Scan | undefined;
  forEachRequestText(request, (text, where) => {
    const findings = findSecrets(text, options);
    if (!findings) return;
    scan ??= { found: [], byText: new Map() };
    scan.byText.set(text, findings);
    for (const finding of findings) scan.found.push({ kind: finding.kind, where, value: text.slice(finding.start, finding.end) });
  });
  return scan;
}

/** Places named per kind, at most this many each: a message is named once however many it holds. */
const MAX_PLACES = 8;

/** `aws-access-key in messages[2], messages[5]; password in system[0]`. */
function placesOf(found: Found[]): string {
  const byKind = new Map<string, string[]>();
  for (const { kind, where } of found) {
    const places = byKind.get(kind) ?? [];
    if (!places.includes(where)) places.push(where);
    byKind.set(kind, places);
  }
  return [...byKind]
    .map(([kind, places]) => `${kind} in ${places.slice(0, MAX_PLACES).join(', ')}${places.length > MAX_PLACES ? ` and ${places.length - MAX_PLACES} more places` : ''}`)
    .join('; ');
}

/** Each credential's placeholder: numbered per kind in the order they were first found. */
class Placeholders {
  private readonly byIdentity = new Map<string, string>();
  private readonly counts = new Map<string, number>();
  /** Values worth replacing wherever they stand alone, beyond where the scanner saw them. */
  private readonly values = new Map<string, string>();
  /** Every value found, as written and as a JSON string writes it (a tool call's arguments). */
  private readonly forms = new Set<string>();

  constructor(private readonly scan: Scan) {
    for (const { kind, value } of scan.found) {
      const placeholder = this.placeholder(kind, secretIdentity(kind, value));
      const escaped = JSON.stringify(value).slice(1, -1);
      this.forms.add(value).add(escaped);
      if (value.length >= 8) this.values.set(value, placeholder).set(escaped, placeholder);
    }
  }

  mask(text: string, options: ScanOptions): string {
    // A text the scan found something in is not scanned again, nor is one that holds none of it.
    let findings = this.scan.byText.get(text);
    if (!findings) {
      if (!this.mentions(text)) return text;
      findings = findSecrets(text, options);
    }
    let masked = text;
    if (findings) {
      masked = '';
      let at = 0;
      for (const finding of findings) {
        const value = text.slice(finding.start, finding.end);
        const placeholder = this.placeholder(finding.kind, secretIdentity(finding.kind, value));
        masked += text.slice(at, finding.start) + placeholder;
        at = finding.end;
      }
      masked += text.slice(at);
    }
    // A password found in one place may stand alone in another (echoed by a command, quoted in a reply).
    for (const [value, placeholder] of this.values) if (masked.includes(value)) masked = replaceStandalone(masked, value, placeholder);
    return masked === text ? text : masked;
  }

  private mentions(text: string): boolean {
    for (const form of this.forms) if (text.includes(form)) return true;
    return false;
  }

  private placeholder(kind: string, identity: string): string {
    const key = `${kind}\u0000${identity}`;
    let placeholder = this.byIdentity.get(key);
    if (placeholder === undefined) {
      const number = (this.counts.get(kind) ?? 0) + 1;
      this.counts.set(kind, number);
      placeholder = `[secret:${kind}:${number}]`;
      this.byIdentity.set(key, placeholder);
    }
    return placeholder;
  }
}

const WORD = /[A-Za-z0-9]/;

/** `value` replaced where no letter or digit touches it (inside a longer word it is another word). */
function replaceStandalone(text: string, value: string, placeholder: string): string {
  let out = '';
  let at = 0;
  for (let found = text.indexOf(value); found !== -1; found = text.indexOf(value, found + value.length)) {
    const before = found > 0 ? text[found - 1]! : '';
    const after = text[found + value.length] ?? '';
    if (WORD.test(before) || WORD.test(after)) continue;
    out += text.slice(at, found) + placeholder;
    at = found + value.length;
  }
  return at === 0 ? text : out + text.slice(at);
}
