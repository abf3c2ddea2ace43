import { ConfigStore } from '../../config/store.js';
import { usageError } from '../cli-error.js';
import { printLine } from '../output.js';
import { routerAddress } from '../router-address.js';

/** The export lines that point OpenAI- and Anthropic-style clients at this router. */
export function envLines(origin: string, key: string): string[] {
  return [
    `export OPENAI_BASE_URL=${origin}/v1`,
    `export OPENAI_API_KEY=${key}`,
    `export ANTHROPIC_BASE_URL=${origin}`,
    `export ANTHROPIC_API_KEY=${key}`,
  ];
}

export function runEnv(options: { baseUrl?: string; key?: string }): void {
  const config = new ConfigStore();
  const settings = config.read();
  const key = options.key ?? settings.localKey;
  if (!key) throw usageError('no local key yet: run svc-router init (or svc-router serve, which creates one)');
  const { origin } = routerAddress(settings, { flag: options.baseUrl });
  for (const line of envLines(origin, key)) printLine(line);
}

/** An address clients can dial: a wildcard bind is reached on loopback, IPv6 goes in brackets. */
export function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
