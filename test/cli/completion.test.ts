import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTING_KEYS } from '../../src/cli/commands/config.js';
import { SHELLS } from '../../src/cli/completion-hints.js';
import { completionData, renderCompletion } from '../../src/cli/completion/index.js';
import { CLIENTS } from '../../src/cli/connect-clients.js';
import { buildProgram } from '../../src/cli/program.js';
import { BACKEND_TYPES } from '../../src/core/backend-types.js';
import { SKUS } from '../../src/core/model-names.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = path.join(root, 'bin', 'svc-router.js');
const script = (shell: string) => path.join(root, 'completions', `svc-router.${shell}`);

const available = (shell: string): boolean => spawnSync(shell, ['--version'], { stdio: 'ignore' }).status === 0;

/**
 * Loads the bash script into a fresh `bash --norc --noprofile` (no bash-completion), finds the
 * function `complete -p svc-router` registered, and calls it the way readline would for `line`
 * with the cursor at its end. Words are split at spaces; a trailing space starts an empty word.
 */
function completeBash(line: string, env: NodeJS.ProcessEnv = {}): string[] {
  const words = line.split(' ');
  const driver = `
    source "$SCRIPT" || exit 90
    spec=$(complete -p svc-router) || exit 91
    [[ $spec =~ -F\\ ([^ ]+) ]] || exit 92
    fn=\${BASH_REMATCH[1]}
    COMP_WORDS=("$@")
    COMP_CWORD=$((\${#COMP_WORDS[@]} - 1))
    COMP_LINE=$LINE
    COMP_POINT=\${#LINE}
    COMP_TYPE=9
    COMP_KEY=9
    COMPREPLY=()
    "$fn" "\${COMP_WORDS[0]}" "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD - 1]}"
    (( \${#COMPREPLY[@]} )) && printf '%s\\n' "\${COMPREPLY[@]}"
    exit 0
  `;
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', driver, 'bash', ...words], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, SCRIPT: script('bash'), LINE: line, ...env },
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout.split('\n').filter(Boolean);
}

const sorted = (list: readonly string[]) => [...list].sort();
const longOptions = (command: Command) => command.options.map((option) => option.long).filter((long): long is string => !!long);

describe('completions/ is generated from the command tree', () => {
  it.each(SHELLS)('completions/svc-router.%s is what `npm run docs` writes', async (shell) => {
    const generated = renderCompletion(shell, buildProgram('0.0.0'), await completionData());
    expect(fs.readFileSync(script(shell), 'utf8'), 'run `npm run docs` to regenerate the completion scripts').toBe(generated);
  });
});

describe('bash completion (plain bash, no bash-completion)', () => {
  it('completes `svc-router ro` to routes', () => {
    expect(completeBash('svc-router ro')).toEqual(['routes']);
  });

  it('lists the three SKUs for `svc-router routes set svc.`', () => {
    expect(sorted(completeBash('svc-router routes set svc.'))).toEqual(sorted(SKUS));
  });

  it("offers the SKUs and an escaped 'claude-*' for a route's model", () => {
    expect(sorted(completeBash('svc-router routes set '))).toEqual(sorted([...SKUS, 'claude-\\*']));
    expect(completeBash('svc-router routes unset cl')).toEqual(['claude-\\*']);
  });

  it('lists every routes subcommand (and help) for `svc-router routes `', () => {
    expect(sorted(completeBash('svc-router routes '))).toEqual(['guard', 'help', 'list', 'rule', 'rule-remove', 'search', 'set', 'unset', 'weights', 'window']);
  });

  it('lists the backend types after --type, also as --type=', () => {
    expect(sorted(completeBash('svc-router backends add x --type '))).toEqual(sorted(BACKEND_TYPES));
    // readline splits `--type=op` at '=' into "--type" "=" "op".
    const words = ['svc-router', 'backends', 'add', 'x', '--type', '=', 'openai-'];
    expect(sorted(completeBash(words.join(' ')))).toEqual(sorted(BACKEND_TYPES.filter((type) => type.startsWith('openai-'))));
  });

  it('lists bash, zsh and fish for `svc-router completion `', () => {
    expect(completeBash('svc-router completion ')).toEqual(['bash', 'zsh', 'fish']);
  });

  it('lists the config keys after `config get` and `config set`', () => {
    expect(sorted(completeBash('svc-router config get '))).toEqual(sorted(Object.keys(SETTING_KEYS)));
    expect(sorted(completeBash('svc-router config set '))).toEqual(sorted(Object.keys(SETTING_KEYS)));
  });

  it('offers the clients after `connect`, the log formats after --log-format, and true/false for server.metrics', () => {
    expect(sorted(completeBash('svc-router connect '))).toEqual(sorted(CLIENTS));
    expect(completeBash('svc-router connect co')).toEqual(['codex']);
    expect(sorted(completeBash('svc-router serve --log-format '))).toEqual(['json', 'text']);
    expect(sorted(completeBash('svc-router config set server.metrics '))).toEqual(['false', 'true']);
  });

  it('completes files after --offline-script', () => {
    expect(sorted(completeBash('svc-router serve --offline-script package'))).toEqual(['package-lock.json', 'package.json']);
  });

  it('lists every command and subcommand the program defines', () => {
    const program = buildProgram('0.0.0');
    expect(sorted(completeBash('svc-router '))).toEqual(sorted([...program.commands.map((c) => c.name()), 'help']));
    for (const group of program.commands.filter((c) => c.commands.length > 0)) {
      expect(sorted(completeBash(`svc-router ${group.name()} `)), group.name()).toEqual(sorted([...group.commands.map((c) => c.name()), 'help']));
    }
  });

  it("offers each command's long options after --", () => {
    const program = buildProgram('0.0.0');
    for (const command of program.commands) {
      const paths = command.commands.length ? command.commands.map((sub) => [command, sub] as const) : [[command] as const];
      for (const chain of paths) {
        const leaf = chain[chain.length - 1]!;
        const line = `svc-router ${chain.map((c) => c.name()).join(' ')} --`;
        expect(sorted(completeBash(line)), line).toEqual(sorted([...longOptions(leaf), '--help']));
      }
    }
  });

  describe('backend names from `svc-router backends list --json`', () => {
    let home: string;
    let pathDir: string;

    beforeAll(() => {
      home = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-router-completion-'));
      pathDir = path.join(home, 'bin');
      fs.mkdirSync(pathDir);
      fs.symlinkSync(bin, path.join(pathDir, 'svc-router'));
      for (const name of ['openai-main', 'claude_2']) {
        const added = spawnSync(process.execPath, [bin, 'backends', 'add', name, '--type', 'anthropic', '--base-url', 'https://example.test/v1'], {
          encoding: 'utf8',
          env: { ...process.env, SVC_ROUTER_HOME: home },
        });
        expect(added.status, added.stderr).toBe(0);
      }
    });
    afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

    const env = () => ({ SVC_ROUTER_HOME: home, PATH: `${pathDir}${path.delimiter}${process.env.PATH ?? ''}` });

    it('offers configured backends for `backends remove`', () => {
      expect(sorted(completeBash('svc-router backends remove ', env()))).toEqual(['claude_2', 'openai-main']);
    });

    it('offers configured backends and offline as route targets', () => {
      expect(sorted(completeBash('svc-router routes set svc.intelligent-pro ', env()))).toEqual(['claude_2', 'offline', 'openai-main']);
      expect(sorted(completeBash('svc-router routes set svc.intelligent-pro offline o', env()))).toEqual(['offline', 'openai-main']);
    });
  });
});

describe('svc-router completion', () => {
  beforeAll(() => {
    if (!fs.existsSync(path.join(root, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  });

  it.each(['bash', 'zsh', 'fish'])('prints completions/svc-router.%s exactly', (shell) => {
    const result = spawnSync(process.execPath, [bin, 'completion', shell], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(fs.readFileSync(script(shell), 'utf8'));
  });

  it('exits 2 for an unknown shell', () => {
    const result = spawnSync(process.execPath, [bin, 'completion', 'nope'], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain("unknown shell 'nope'");
  });
});

describe('zsh and fish scripts', () => {
  it.skipIf(!available('zsh'))('zsh -n parses completions/svc-router.zsh', () => {
    const result = spawnSync('zsh', ['-n', script('zsh')], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it.skipIf(!available('fish'))('fish -n parses completions/svc-router.fish', () => {
    const result = spawnSync('fish', ['--no-config', '-n', script('fish')], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it.skipIf(!available('fish'))('fish completes the SKUs after `routes set svc.`', () => {
    const result = spawnSync('fish', ['--no-config', '-c', `source ${JSON.stringify(script('fish'))}; complete -C 'svc-router routes set svc.'`], {
      encoding: 'utf8',
      env: { ...process.env, PATH: '/usr/bin:/bin' },
    });
    expect(result.status).toBe(0);
    expect(sorted(result.stdout.split('\n').filter(Boolean).map((row) => row.split('\t')[0]!))).toEqual(sorted(SKUS));
  });
});
