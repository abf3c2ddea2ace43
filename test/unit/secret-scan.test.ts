import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findSecrets, secretIdentity } from '../../src/core/secret-scan.js';
import { generateKey } from '../../src/core/router-keys.js';

/**
 * The secret scanner: every shape of credential it knows is found, by kind and exact position,
 * wherever it sits in ordinary text; and what people write that is not a credential (made-up test
 * keys, code that passes a variable, placeholders) is not. The repository's own sources are the
 * large test of the second half (test/server/secrets-guardrail.test.ts).
 */

/** A deterministic stand-in for a key generator: `length` characters of `alphabet` from a seed. */
function randomRun(alphabet: string, length: number, seed: number): string {
  let state = (seed * 2654435761) >>> 0 || 1;
  let out = '';
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    out += alphabet[state % alphabet.length];
  }
  return out;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const URLSAFE = `${ALNUM}-_`;
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0234567';
const BASE64 = `${ALNUM}+/`;

/** Each kind, as its provider issues it (lengths as documented or as seen in real keys). */
const KEYS: Record<string, (seed: number) => string> = {
  'anthropic-key': (seed) => `sk-ant-api03-${randomRun(URLSAFE, 93, seed)}AA`,
  'openai-key': (seed) => (seed % 2 ? `sk-proj-${randomRun(URLSAFE, 156, seed)}` : `sk-${randomRun(ALNUM, 20, seed)}T3BlbkFJ${randomRun(ALNUM, 20, seed + 1)}`),
  'google-api-key': (seed) => `AIza${randomRun(URLSAFE, 35, seed)}`,
  'aws-access-key': (seed) => `AKIA${randomRun(UPPER, 16, seed)}`,
  'github-token': (seed) => (seed % 2 ? `ghp_${randomRun(ALNUM, 36, seed)}` : `github_pat_${randomRun(ALNUM, 22, seed)}_${randomRun(ALNUM, 59, seed + 1)}`),
  'slack-token': (seed) => `xoxb-${randomRun('0123456789', 12, seed)}-${randomRun('0123456789', 13, seed + 1)}-${randomRun(ALNUM, 24, seed + 2)}`,
  'stripe-key': (seed) => `sk_live_${randomRun(ALNUM, 99, seed)}`,
  'huggingface-token': (seed) => `hf_${randomRun(ALNUM, 34, seed)}`,
  jwt: (seed) => `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ${randomRun(URLSAFE, 60, seed)}.${randomRun(URLSAFE, 43, seed + 1)}`,
  'private-key': (seed) => `-----BEGIN RSA PRIVATE KEY-----\n${Array.from({ length: 6 }, (_, line) => randomRun(BASE64, 64, seed + line)).join('\n')}\n-----END RSA PRIVATE KEY-----`,
  'svc-key': () => generateKey('alice'),
};

const prose = fc.lorem({ maxCount: 12 });
const separator = fc.constantFrom(' ', '\n', ': ', '="', "'", ' (', '`', '\t');

describe('findSecrets', () => {
  it('finds each kind of key, exactly where it is, among ordinary words', () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(KEYS)), fc.integer({ min: 1, max: 1_000_000 }), prose, separator, prose, (kind, seed, before, gap, after) => {
        const key = KEYS[kind]!(seed);
        const text = `${before}${gap}${key}${gap === '="' ? '"' : ' '}${after}`;
        const found = findSecrets(text);
        expect(found).toEqual([{ kind, start: text.indexOf(key), end: text.indexOf(key) + key.length }]);
      }),
      { numRuns: 500 },
    );
  });

  it('finds a private key whose line breaks are JSON escapes, as in tool arguments, as the same key', () => {
    const key = KEYS['private-key']!(7);
    const escaped = JSON.stringify({ content: key });
    const found = findSecrets(escaped)!;
    expect(found.map((finding) => finding.kind)).toEqual(['private-key']);
    const value = escaped.slice(found[0]!.start, found[0]!.end);
    expect(secretIdentity('private-key', value)).toBe(secretIdentity('private-key', key));
  });

  // Each value is assembled when the test runs, so this file holds no credential for a scan of the sources to find.
  const value = (...parts: string[]) => parts.join('');
  const PW = value('Tr0ub4dor', '&3xyz');
  const AWS_SECRET = value('wJalrXUtnFEMI/K7MDENG', '/bPxRfiCYq3Lw9Tz');
  const AWS_ID = value('AKIA', 'Z7Q2LW4MBN3XT5RY');
  const AWS_KEY = value('9dRk2LmPq7ZsXw4VbNc8', 'TyHg3JfUa6EoIl1QeWr0');
  const YAML_PW = value('q8Z!mv2', 'Lx_r');
  const DB_PW = value('q8Zmv2', 'Lx_r9');
  const API = value('Kq3vTz8WmN2p', 'Lx7RbY4sJd6H');
  const TOKEN = value('gLq3vTz8WmN2', 'pLx7RbY4sJd');

  it.each([
    ['an .env file', `NODE_ENV=production\nDB_PASSWORD=${PW}\nPORT=8080\n`, 'password', PW],
    ['a shell history', `ls -la\nexport AWS_SECRET_ACCESS_KEY=${AWS_SECRET}\ncd ..`, 'secret', AWS_SECRET],
    ['an aws credentials file', `[default]\naws_access_key_id = ${AWS_ID}\naws_secret_access_key = ${AWS_KEY}\n`, 'secret', AWS_KEY],
    ['a YAML file', `database:\n  user: app\n  password: "${YAML_PW}"\n`, 'password', YAML_PW],
    ['a JSON config', `{"host": "db", "password": "${DB_PW}"}`, 'password', DB_PW],
    ['a command line', `mysql -u root --password=${DB_PW} shop`, 'password', DB_PW],
    ['a URL', `DATABASE_URL=postgres://app:${DB_PW}@db.internal:5432/shop`, 'password', DB_PW],
    ['an API key with no known prefix', `SENDGRID_API_KEY=${API}\n`, 'api-key', API],
    ['a token with no known prefix', `GITLAB_TOKEN=${TOKEN}\n`, 'token', TOKEN],
  ])('finds the value of %s', (_, text, kind, secret) => {
    const found = findSecrets(text)!;
    const hit = found.find((finding) => finding.kind === kind);
    expect(hit, JSON.stringify(found)).toBeDefined();
    expect(text.slice(hit!.start, hit!.end)).toBe(secret);
  });

  it('finds the exact values it is told of, whatever their shape', () => {
    const text = 'the gateway said: token q9-internal-gateway-value was refused';
    const at = text.indexOf('q9-internal');
    expect(findSecrets(text, { known: ['q9-internal-gateway-value', 'short'] })).toEqual([{ kind: 'configured-secret', start: at, end: at + 'q9-internal-gateway-value'.length }]);
  });

  it("finds the router's own keys whatever their random part holds, when told which were issued", () => {
    const key = 'svc_alice_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh';
    expect(findSecrets(key)).toBeUndefined();
    expect(findSecrets(key, { issued: (candidate) => candidate === key })).toEqual([{ kind: 'svc-key', start: 0, end: key.length }]);
  });

  it.each([
    ['made-up keys in tests', "const key = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH'; const other = 'AIzaSyD-0123456789abcdefghijklmnopqrstu';"],
    ['a key said twice', 'svc_alice_notTheRightKeyAtAllNotTheRightKeyAtAll'],
    ["AWS's documented example", 'aws_access_key_id = AKIAIOSFODNN7EXAMPLE'],
    ['code that passes a variable', 'const client = connect({ password: options.password, secret: process.env.SECRET });\nsecret: string;\n  password?: string,'],
    ['a statement assigning a literal', "  const secret = 'team-value-that-must-not-be-echoed';"],
    ['placeholders', 'DB_PASSWORD=${DB_PASSWORD}\nAPI_SECRET=<your-secret-here>\nPOSTGRES_PASSWORD=mysecretpassword\nredis://:changeme@localhost:6379'],
    ['our own placeholders', 'DB_PASSWORD=[secret:password:1]\nkey [secret:aws-access-key:2]'],
    ['prose about credentials', 'Set the password with --password=VALUE, or keep the secret in an environment variable; a token expires.'],
    ['a PEM header in code', "if (text.includes('-----BEGIN PRIVATE KEY-----')) throw new Error('a private key');"],
  ])('finds nothing in %s', (_, text) => {
    expect(findSecrets(text)).toBeUndefined();
  });
});

describe('findSecrets on shell assignments', () => {
  // Values assembled when the test runs (the repository's sources must hold no credential).
  const PW = ['Tr0ub4dor', '_3xyz'].join('');
  const TOKEN = ['gLq3vTz8WmN2', 'pLx7RbY4sJd9'].join('');
  const NAMES = { DB_PASSWORD: 'password', PGPASSWORD: 'password', STRIPE_TOKEN: 'token', MY_API_KEY: 'api-key', AWS_SECRET_ACCESS_KEY: 'secret', GH_TOKEN: 'token' } as const;
  /** Where an assignment stands before a command, as agents and people write one. */
  const BEFORE = ['', 'env ', 'cd app && ', 'NODE_ENV=production ', 'sudo -E ', '(', 'set -e; ', 'time ', 'export '];
  const AFTER = [' npm start', ' ./deploy.sh --prod', ' node app.js', '', '; npm test', ' && make release', ' | tee log'];
  const QUOTES = ['', '"', "'"];
  /** How the command reaches the scanner: as typed, in a tool call's JSON arguments, as a heredoc's line (JSON-encoded too). */
  const WRAP: Array<(command: string) => string> = [
    (command) => command,
    (command) => JSON.stringify({ command, description: 'Start the app' }),
    (command) => `cat > run.sh <<'EOF'\n${command}\nEOF\nsh run.sh`,
    (command) => JSON.stringify({ command: `cat > run.sh <<'EOF'\n${command}\nEOF\nsh run.sh` }),
  ];

  it('finds the value of an assignment before a command, wherever the command stands and however it is sent', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...(Object.keys(NAMES) as Array<keyof typeof NAMES>)),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.constantFrom(...BEFORE),
        fc.constantFrom(...QUOTES),
        fc.constantFrom(...AFTER),
        fc.integer({ min: 0, max: WRAP.length - 1 }),
        (name, seed, before, quote, after, wrap) => {
          const secret = NAMES[name] === 'password' || NAMES[name] === 'secret' ? `${randomRun(ALNUM, 10, seed)}9q` : `${randomRun(ALNUM, 22, seed)}7Q`;
          const text = WRAP[wrap]!(`${before}${name}=${quote}${secret}${quote}${after}`);
          const found = findSecrets(text) ?? [];
          const at = text.indexOf(secret);
          expect(found, text).toContainEqual({ kind: NAMES[name], start: at, end: at + secret.length });
        },
      ),
      { numRuns: 500 },
    );
  });

  it.each([
    ['several on one line', `NODE_ENV=production DB_PASSWORD=${PW} STRIPE_TOKEN=${TOKEN} npm start`, [PW, TOKEN]],
    ['env with options', `env -i DB_PASSWORD=${PW} node app.js`, [PW]],
    ['a JSON-encoded quoted value', JSON.stringify({ command: `DB_PASSWORD="${PW}" npm start` }), [PW]],
    ['a YAML heredoc in a JSON string', JSON.stringify({ command: `cat > config.yml <<EOF\ndb:\n  password: ${PW}\nEOF` }), [PW]],
    ['an .env file written by a tool call', JSON.stringify({ file_path: '.env', content: `PORT=3000\nSTRIPE_TOKEN=${TOKEN}\n` }), [TOKEN]],
    ['a connection string', `Server=db;User Id=app;Password=${PW};`, [PW]],
    ['a YAML line in a program string, its quotes escaped', `const config = 'db:\\n  password: \\'${PW}\\'\\n';`, [PW]],
  ])('finds the values in %s', (_, text, secrets) => {
    const values = (findSecrets(text) ?? []).map((finding) => text.slice(finding.start, finding.end));
    expect(values).toEqual(secrets);
  });

  it.each([
    ['a keyword argument', `db = connect(host="db", password="${PW}")\nclient = Client(api_key=key_from_vault, token=TOKEN_VALUE)`],
    ['a variable passed on', 'DB_PASSWORD=$DB_PASSWORD npm start\nSTRIPE_TOKEN="${STRIPE_TOKEN}" ./deploy.sh\nTOKEN=$(cat token.txt) make'],
    ['placeholders', 'MY_API_KEY=YOUR_API_KEY node app.js\nDB_PASSWORD=<password> npm start\nDB_PASSWORD=changeme npm start'],
    ['a member set in code', `config.password=${PW} && run()`],
    ['a short or plain token', 'GH_TOKEN=abc123 gh pr list\nSESSION_TOKEN=development npm start'],
    ['a comparison', `if [ "$DB_PASSWORD" == "${PW}" ]; then echo same; fi`],
    ['an escaped backslash before n in a JSON string', JSON.stringify({ content: 'printf "a\\nDB_PASSWORD"' })],
    ['settings whose choice is a lowercase word', '{"guardrails": {"secret": "refuse"}}\nsecret: \'sealing\'\nPASSWORD_MODE=read-only npm start\n--secret-store=on_demand'],
  ])('finds nothing in %s', (_, text) => {
    expect(findSecrets(text)).toBeUndefined();
  });
});

describe('findSecrets on hostile text', () => {
  // Each would take hours if every prefix, or every word, made the scanner read the rest of its run or line.
  it.each([
    ['shape prefixes strung together', 'eyJ-'.repeat(250_000)],
    ['key prefixes on one long line', 'sk-ant-x svc_a_ ghp_ '.repeat(50_000)],
    ['credential words on one long line', 'token secret password '.repeat(50_000)],
    ['URLs without end', 'a://'.repeat(250_000)],
    ['private key headers without bodies', '-----BEGIN PRIVATE KEY-----'.repeat(40_000)],
    ['assignments without values', 'DB_PASSWORD=\n'.repeat(80_000)],
    ['lines ended by JSON escapes', 'token \\n'.repeat(100_000)],
    ['escaped backslashes before n', 'token \\\\n'.repeat(100_000)],
    ['one long run of escapes', `${'\\n'.repeat(500_000)}token`],
    ['a name without end', 'password'.repeat(100_000)],
    ['a comment to the end of a long line', 'password=$abcdef1 # x\\n'.repeat(50_000)],
    ['shell assignments without commands', 'DB_PASSWORD="'.repeat(50_000)],
  ])('returns on %s', (_, text) => {
    const found = findSecrets(text) ?? [];
    for (const finding of found) expect(finding.end).toBeLessThanOrEqual(text.length);
  });

  it('finds every one of many values, in order, each once', () => {
    // A finding is placed among the others by a search, not compared with each of them.
    const lines = Array.from({ length: 20_000 }, (_, i) => `DB_PASSWORD=Qz7${i.toString(36).padStart(4, '0')}Lm npm start`);
    const found = findSecrets(lines.join('\n'))!;
    expect(found).toHaveLength(lines.length);
    expect(found.every((finding, i) => i === 0 || finding.start >= found[i - 1]!.end)).toBe(true);
  });
});
