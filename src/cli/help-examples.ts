import type { Command } from 'commander';

/**
 * Examples shown under each command's --help (and in the generated reference), keyed by the
 * command's path. Each is a line to run as is, with a comment saying what it shows.
 */
export const HELP_EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  serve: ['svc-router serve                         # 127.0.0.1:8787, offline backend until you add one', 'svc-router serve --port 9123 --quiet     # other commands find 9123 through the state file', 'svc-router serve --usage-store redis://127.0.0.1:6379'],
  status: ['svc-router status --json | jq -r .url    # the running address, for scripts', 'svc-router status || svc-router serve   # exit 3 when not running'],
  stop: ['svc-router stop'],
  init: ['svc-router init --developer alice --cap 200000000', 'svc-router init --force                  # a new key: keys in client configs stop working'],
  'keys issue': ['svc-router keys issue --developer bob --tier pro --json'],
  'keys cap': ['svc-router keys cap alice 500000000      # raise a cap; the key stays the same'],
  'backends add': ['svc-router backends add openai --type openai-chat --base-url https://api.openai.com/v1 --api-key-env OPENAI_API_KEY'],
  'routes set': [
    "svc-router routes set svc.intelligent-pro openai:gpt-5 anthropic:claude-sonnet-4-5",
    "svc-router routes set 'claude-*' anthropic",
    'svc-router routes set svc.team-search openai:gpt-5-mini --new   # a SKU of your own',
  ],
  'routes search': ['svc-router routes search svc.intelligent-lite gem:gemini-2.5-flash   # a local model searches the web through Gemini'],
  'routes guard': ["svc-router routes guard 'claude-*' mask   # credentials in Claude Code's requests become placeholders", 'svc-router config set guardrails.secrets warn   # every other route: named in x-svc-warning'],
  whoami: ['svc-router whoami                        # in-process, from the config', 'svc-router whoami --base-url http://127.0.0.1:8787 --json   # asks the running server'],
  chat: ['svc-router chat "say hi"', 'echo "summarise this" | svc-router chat -m svc.intelligent-lite', 'svc-router chat --stream --json "count to 3" | jq -c .choices[0].delta   # NDJSON, one chunk a line'],
  sessions: ['svc-router sessions                      # each session of the running serve, and why its cache dropped', "svc-router logs --session ID             # that session's requests, one line each"],
  env: ['eval "$(svc-router env)"                 # point this shell\'s OpenAI and Anthropic clients at the router'],
  doctor: ['svc-router doctor', 'svc-router doctor --live                 # also a one-token request per routed model', 'svc-router doctor --client claude        # also Claude Code\'s settings and variables', 'svc-router doctor --json | jq \'.checks[] | select(.status == "fail")\''],
  connect: ['svc-router connect codex --write         # merge into ~/.codex/config.toml (backup kept)', 'svc-router connect claude --undo          # put back the settings file as it was', 'svc-router connect openai-sdk > example.mjs && node example.mjs'],
  completion: ['svc-router completion bash > ~/.local/share/bash-completion/completions/svc-router'],
};

/** The command's path below the program: `keys issue`, `serve`. */
export function helpPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current?.parent; current = current.parent) names.unshift(current.name());
  return names.join(' ');
}

/** Adds an Examples section to every command that has examples. */
export function addExamples(program: Command): void {
  const visit = (command: Command): void => {
    const examples = Object.hasOwn(HELP_EXAMPLES, helpPath(command)) ? HELP_EXAMPLES[helpPath(command)] : undefined;
    if (examples?.length) command.addHelpText('after', `\nExamples:\n${examples.map((line) => `  $ ${line}`).join('\n')}\n`);
    command.commands.forEach(visit);
  };
  visit(program);
}
