/**
 * The clients `svc-router connect` configures. The command's choices, its help, the CLI reference and the
 * completion scripts read this list; src/cli/commands/connect.ts says what each one prints.
 */
export const CONNECT_CLIENTS = [
  { name: 'codex', title: 'Codex CLI', configFile: true },
  { name: 'claude', title: 'Claude Code', configFile: true },
  { name: 'gemini', title: 'Gemini CLI', configFile: true },
  { name: 'openai-sdk', title: 'OpenAI SDK (chat and responses)', configFile: false },
  { name: 'anthropic-sdk', title: 'Anthropic SDK (messages)', configFile: false },
] as const;

export type Client = (typeof CONNECT_CLIENTS)[number]['name'];

export const CLIENTS: readonly Client[] = CONNECT_CLIENTS.map((client) => client.name);
