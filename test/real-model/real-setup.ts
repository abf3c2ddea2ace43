import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BackendType } from '../../src/config/settings.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { clientsFor, type Clients } from './clients.js';
import { ensureLlamaServer, LLAMA_DIR, LLAMA_TEMPLATE_DIR, LLAMA_VOCAB_DIR } from './llama-build.js';
import { startLlamaServer, type LlamaServer, type LlamaServerOptions } from './llama-server.js';
import { DEFAULT_RANDOM_MODEL, ensureRandomModel, type RandomModelOptions } from './random-model.js';
import { startRecordingProxy, type RecordingProxy } from './recording-proxy.js';

/** The three ways a llama.cpp server is registered, each under its own route name. */
export const REGISTRATIONS = ['openai-chat', 'anthropic', 'openai-responses'] as const satisfies readonly BackendType[];
export type Registration = (typeof REGISTRATIONS)[number];

export const ROUTE: Record<Registration, string> = {
  'openai-chat': 'svc.llama-chat',
  anthropic: 'svc.llama-messages',
  'openai-responses': 'svc.llama-responses',
};

/** What `backends add --base-url` gets for each: the server's /v1 for both OpenAI types; the Anthropic type adds /v1/messages itself. */
export const baseUrlFor = (registration: Registration, origin: string): string => (registration === 'anthropic' ? origin : `${origin}/v1`);

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/real-model');
const TRAINED_MODEL = path.join(FIXTURES, 'tiny-chat-tools.gguf');
const TRAINED_SHA256 = 'cf815f5b588e3f5b23e8072410dbaf8be8bb6dc20803e6634447cb4346710491';

/** The trained tool-calling model, checked against the hash its README gives. */
export function trainedModel(): string {
  const digest = createHash('sha256').update(fs.readFileSync(TRAINED_MODEL)).digest('hex');
  if (digest !== TRAINED_SHA256) throw new Error(`${TRAINED_MODEL} has sha256 ${digest}, not ${TRAINED_SHA256}: the fixture changed`);
  return TRAINED_MODEL;
}

/** A random-weights model from the built server's vocabulary and templates, cached beside it. */
export function randomModel(options: Partial<RandomModelOptions> = {}): string {
  return ensureRandomModel({ ...DEFAULT_RANDOM_MODEL, ...options }, { vocabDir: LLAMA_VOCAB_DIR, templateDir: LLAMA_TEMPLATE_DIR, modelDir: path.join(LLAMA_DIR, 'models') });
}

export interface RealSetup {
  server: LlamaServer;
  /** Between the router and the server: what the server answered, as it answered it. */
  proxy: RecordingProxy;
  router: TestRouter;
  clients: Clients;
  close(): Promise<void>;
}

/** Registers the three backends for a server at `origin` and routes a name to each. */
export function registerServer(router: TestRouter, origin: string, prefix = 'llama'): void {
  router.config.update((settings) => {
    for (const registration of REGISTRATIONS) {
      const backend = `${prefix}-${registration}`;
      settings.backends[backend] = { type: registration, baseUrl: baseUrlFor(registration, origin) };
      settings.routes[ROUTE[registration]] = [`${backend}:served-model`];
    }
  });
}

/** A real server with this model, a recording proxy in front of it, a router with the three registrations, and SDK clients of the router. */
export async function startRealSetup(model: string, options: Omit<LlamaServerOptions, 'model'> = {}): Promise<RealSetup> {
  const server = await startLlamaServer(await ensureLlamaServer(), { model, ...options });
  const proxy = await startRecordingProxy(server.origin);
  const router = await startRouter();
  registerServer(router, proxy.origin);
  return {
    server,
    proxy,
    router,
    clients: clientsFor(router.origin, router.key),
    async close() {
      await router.close();
      await proxy.close();
      await server.close();
    },
  };
}
