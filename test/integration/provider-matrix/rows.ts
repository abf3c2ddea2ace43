import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startAnthropicUpstream } from '../../fakes/anthropic-upstream.js';
import { startBedrockUpstream } from '../../fakes/bedrock-upstream.js';
import { startGeminiUpstream } from '../../fakes/gemini-upstream.js';
import { startGoogleTokenEndpoint } from '../../fakes/google-auth.js';
import { startChatProvider, type ProviderRules } from '../../fakes/providers/chat-provider-server.js';
import { deepseekRules } from '../../fakes/providers/deepseek.js';
import { groqRules } from '../../fakes/providers/groq.js';
import { startLocalAnthropic } from '../../fakes/providers/local-anthropic.js';
import { mistralRules } from '../../fakes/providers/mistral.js';
import { openrouterRules } from '../../fakes/providers/openrouter.js';
import { vllmRules } from '../../fakes/providers/vllm.js';
import { xaiRules } from '../../fakes/providers/xai.js';
import type { Script } from '../../fakes/scripted-turn.js';
import { startVertexUpstream } from '../../fakes/vertex-upstream.js';
import { startUpstream, toolExchangeOf, UPSTREAM_KEY, type UpstreamKind } from '../support.js';

/**
 * Every provider users route to: the `backends add` line a user types for it (its base URL, and
 * for Vertex and Bedrock its credentials, swapped for the fake's when measured), the model routed
 * to, the fake that behaves as the provider's documentation says, and the rules of the provider
 * the router follows for it (from src/backends/openai-chat/profiles/ and each backend type's code).
 */
export interface ProviderRow {
  provider: string;
  /** The arguments after `svc-router`: `backends add NAME --type TYPE …`, with the provider's real base URL. */
  add: string[];
  upstreamModel: string;
  /** The fake that plays the provider: its file (and any beside it). */
  fake: string;
  quirks: string[];
  start(): Promise<StartedUpstream>;
}

export interface StartedUpstream {
  /** Options of the add line replaced or added for the fake: its base URL, a credentials file. */
  options: Record<string, string>;
  /** Environment the router reads credentials from while the row runs. */
  env?: Record<string, string>;
  /** Requests that reached the provider so far, refused ones included. */
  received(): number;
  /** Of those, the model requests it answered. */
  answered(): number;
  close(): Promise<void>;
}

/** The backend name an add line gives. */
export const backendOf = (row: ProviderRow): string => row.add[2]!;

/** The add line as a user types it. */
export const addLine = (row: ProviderRow): string => `svc-router ${row.add.map((arg) => (/^[\w./:@=-]+$/.test(arg) ? arg : `'${arg}'`)).join(' ')}`;

/** A generic fake that runs the tool loop: a call to get_weather, then, once a result came back, `done: RESULT`. */
export const toolLoop =
  (kind: UpstreamKind): Script =>
  (body) => {
    const result = toolExchangeOf(kind, body).results.at(-1);
    return result ? { text: `done: ${result.output}` } : { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] };
  };

function generic(kind: UpstreamKind, keyed = true): () => Promise<StartedUpstream> {
  return async () => {
    const fake = await startUpstream(kind, toolLoop(kind), { apiKey: keyed ? UPSTREAM_KEY : undefined });
    return {
      options: { '--base-url': fake.url },
      received: () => fake.requests.length,
      // They refuse nothing but a wrong key, which the cell sees as a 401.
      answered: () => fake.requests.length,
      close: fake.close,
    };
  };
}

function chatProvider(rules: ProviderRules): () => Promise<StartedUpstream> {
  return async () => {
    const fake = await startChatProvider(rules);
    return { options: { '--base-url': fake.url }, received: () => fake.requests.length, answered: () => fake.answered.length, close: fake.close };
  };
}

const VERTEX = { project: 'my-project', region: 'us-east5', clientEmail: 'router@my-project.iam.gserviceaccount.com', publisherKey: 'publisher-fake-key-0123' };

/** A Google token endpoint that checks the service account's signature, a Vertex AI in front of both publishers, and the key file. */
async function vertex(): Promise<StartedUpstream> {
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const source = await startGoogleTokenEndpoint({ clientEmail: VERTEX.clientEmail, publicKey: keys.publicKey });
  const claude = await startAnthropicUpstream(toolLoop('anthropic'), { apiKey: VERTEX.publisherKey });
  const gemini = await startGeminiUpstream(toolLoop('gemini'), { apiKey: VERTEX.publisherKey, callIds: true });
  const fake = await startVertexUpstream({
    project: VERTEX.project,
    region: VERTEX.region,
    tokens: () => source.issued,
    anthropic: { url: claude.url, apiKey: VERTEX.publisherKey },
    gemini: { url: gemini.url, apiKey: VERTEX.publisherKey },
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-router-vertex-'));
  const credentials = path.join(dir, 'service-account.json');
  const privateKey = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  fs.writeFileSync(credentials, JSON.stringify({ type: 'service_account', project_id: VERTEX.project, private_key_id: 'kid-1', private_key: privateKey, client_email: VERTEX.clientEmail, token_uri: `${source.url}/token` }));
  return {
    options: { '--base-url': fake.url, '--credentials': credentials },
    received: () => fake.requests.length,
    answered: () => claude.requests.length + gemini.requests.length,
    async close() {
      await Promise.all([fake, claude, gemini, source].map((server) => server.close()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** AWS's documentation example keys: fakes, never real. */
const AWS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'FQoGZXIvYXdzEXAMPLESESSIONTOKEN0123456789abcdef', region: 'us-west-2' };

async function bedrock(): Promise<StartedUpstream> {
  const fake = await startBedrockUpstream(toolLoop('anthropic'), AWS);
  return {
    options: { '--base-url': fake.url },
    env: { AWS_ACCESS_KEY_ID: AWS.accessKeyId, AWS_SECRET_ACCESS_KEY: AWS.secretAccessKey, AWS_SESSION_TOKEN: AWS.sessionToken },
    received: () => fake.requests.length,
    answered: () => fake.requests.length - fake.refused,
    close: fake.close,
  };
}

async function localAnthropic(): Promise<StartedUpstream> {
  const fake = await startLocalAnthropic();
  return { options: { '--base-url': fake.url }, received: () => fake.requests.length, answered: () => fake.answered.length, close: fake.close };
}

const chat = (name: string, baseUrl: string, keyVariable: string | undefined, profile?: string): string[] => [
  'backends',
  'add',
  name,
  '--type',
  'openai-chat',
  '--base-url',
  baseUrl,
  ...(keyVariable ? ['--api-key-env', keyVariable] : []),
  ...(profile ? ['--profile', profile] : []),
];

const GENERIC_FAKE: Record<UpstreamKind, string> = { 'openai-chat': 'test/fakes/openai-chat-upstream.ts', anthropic: 'test/fakes/anthropic-upstream.ts', 'openai-responses': 'test/fakes/openai-responses-upstream.ts', gemini: 'test/fakes/gemini-upstream.ts' };
const PROFILE_FAKE = (file: string) => `test/fakes/providers/${file}.ts`;

export const PROVIDER_ROWS: ProviderRow[] = [
  {
    provider: 'OpenAI (Chat Completions)',
    add: chat('openai', 'https://api.openai.com/v1', 'OPENAI_API_KEY'),
    upstreamModel: 'gpt-4.1',
    fake: GENERIC_FAKE['openai-chat'],
    quirks: ['A Chat client’s body is forwarded as sent; Responses and Messages clients are translated to Chat.'],
    start: generic('openai-chat'),
  },
  {
    provider: 'OpenAI (Responses)',
    add: ['backends', 'add', 'openai-responses', '--type', 'openai-responses', '--base-url', 'https://api.openai.com/v1', '--api-key-env', 'OPENAI_API_KEY'],
    upstreamModel: 'gpt-5',
    fake: GENERIC_FAKE['openai-responses'],
    quirks: ['A Responses client’s body is forwarded as sent, its encrypted reasoning included; the router keeps no conversation state, so every turn carries the whole conversation.'],
    start: generic('openai-responses'),
  },
  {
    provider: 'Anthropic',
    add: ['backends', 'add', 'anthropic', '--type', 'anthropic', '--base-url', 'https://api.anthropic.com', '--api-key-env', 'ANTHROPIC_API_KEY'],
    upstreamModel: 'claude-sonnet-4-5',
    fake: GENERIC_FAKE['anthropic'],
    quirks: ['Key in `x-api-key` (`--auth bearer` for services that take `Authorization: Bearer`); thinking blocks go back with their signatures.'],
    start: generic('anthropic'),
  },
  {
    provider: 'Gemini (Google AI Studio)',
    add: ['backends', 'add', 'gemini', '--type', 'gemini', '--base-url', 'https://generativelanguage.googleapis.com', '--api-key-env', 'GEMINI_API_KEY'],
    upstreamModel: 'gemini-2.5-pro',
    fake: GENERIC_FAKE['gemini'],
    quirks: ['Key in `x-goog-api-key`, `/v1beta` added to a base URL without a version; a call’s id carries Gemini’s own id and thought signature to the next turn.'],
    start: generic('gemini'),
  },
  {
    provider: 'Vertex AI (Claude)',
    add: ['backends', 'add', 'vertex', '--type', 'vertex', '--project', VERTEX.project, '--region', VERTEX.region, '--credentials', 'service-account.json'],
    upstreamModel: 'claude-sonnet-4-5@20250929',
    fake: 'test/fakes/vertex-upstream.ts with test/fakes/google-auth.ts',
    quirks: [
      'A service account’s key (`--credentials`, else `$GOOGLE_APPLICATION_CREDENTIALS`, else the metadata server) is exchanged for an access token, kept until near its end.',
      'Claude models go to `rawPredict` / `streamRawPredict` with `anthropic_version: vertex-2023-10-16` and no `model` in the body.',
    ],
    start: vertex,
  },
  {
    provider: 'Vertex AI (Gemini)',
    add: ['backends', 'add', 'vertex', '--type', 'vertex', '--project', VERTEX.project, '--region', VERTEX.region, '--credentials', 'service-account.json'],
    upstreamModel: 'gemini-2.5-pro',
    fake: 'test/fakes/vertex-upstream.ts with test/fakes/google-auth.ts',
    quirks: ['The same backend: Gemini models go to `generateContent` / `streamGenerateContent` under `publishers/google`.'],
    start: vertex,
  },
  {
    provider: 'AWS Bedrock (Claude)',
    add: ['backends', 'add', 'bedrock', '--type', 'bedrock', '--region', AWS.region],
    upstreamModel: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    fake: 'test/fakes/bedrock-upstream.ts',
    quirks: [
      'Requests signed with SigV4 from the AWS environment variables or the shared files (`--aws-profile`).',
      'Claude over InvokeModel: `anthropic_version: bedrock-2023-05-31`, no `model` or `stream` in the body; streams come in AWS event-stream frames.',
    ],
    start: bedrock,
  },
  {
    provider: 'AWS Bedrock (other families: Nova, Llama, Mistral, DeepSeek, Qwen, gpt-oss)',
    add: ['backends', 'add', 'bedrock', '--type', 'bedrock', '--region', AWS.region],
    upstreamModel: 'us.amazon.nova-pro-v1:0',
    fake: 'test/fakes/bedrock-upstream.ts with test/fakes/bedrock-converse.ts',
    quirks: [
      'The same backend: every id that is not Claude goes over Converse / ConverseStream, tools as `toolConfig`, results as `toolResult` blocks.',
      'Settings Converse has no field for (top_k, seed, penalties, reasoning effort) are left out and named in `svc_meta.warnings`.',
    ],
    start: bedrock,
  },
  {
    provider: 'OpenRouter',
    add: chat('openrouter', 'https://openrouter.ai/api/v1', 'OPENROUTER_API_KEY', 'openrouter'),
    upstreamModel: 'anthropic/claude-sonnet-4.5',
    fake: PROFILE_FAKE('openrouter'),
    quirks: [
      '`reasoning_details` go back unchanged on the assistant turn that called tools; effort or budget asked with its `reasoning` object.',
      'Cache breakpoints (`cache_control`) for `anthropic/` and `google/` models; `--provider-routing JSON` goes with every request.',
    ],
    start: chatProvider(openrouterRules),
  },
  {
    provider: 'DeepSeek',
    add: chat('deepseek', 'https://api.deepseek.com', 'DEEPSEEK_API_KEY', 'deepseek'),
    upstreamModel: 'deepseek-reasoner',
    fake: PROFILE_FAKE('deepseek'),
    quirks: [
      '`reasoning_content` sent back on every assistant turn that called tools (DeepSeek answers 400 without it), not on others.',
      'Effort as `reasoning_effort`; `logprobs` and `top_logprobs` left out for the reasoner, with a warning.',
    ],
    start: chatProvider(deepseekRules),
  },
  {
    provider: 'vLLM / Qwen (`reasoning_content`)',
    add: chat('vllm', 'http://gpu-box:8000/v1', undefined),
    upstreamModel: 'Qwen/Qwen3-8B',
    fake: PROFILE_FAKE('vllm'),
    quirks: ['No profile: reasoning is read from `reasoning_content`, and shown to each client in its own form.'],
    start: chatProvider(vllmRules('reasoning_content')),
  },
  {
    provider: 'vLLM (`reasoning`, newer releases)',
    add: chat('vllm', 'http://gpu-box:8000/v1', undefined),
    upstreamModel: 'Qwen/Qwen3-8B',
    fake: PROFILE_FAKE('vllm'),
    quirks: ['No profile: reasoning is read from `reasoning` as well.'],
    start: chatProvider(vllmRules('reasoning')),
  },
  {
    provider: 'Ollama / llama.cpp server / LM Studio (Chat)',
    add: chat('ollama', 'http://127.0.0.1:11434/v1', undefined),
    upstreamModel: 'qwen3-coder',
    fake: GENERIC_FAKE['openai-chat'],
    quirks: ['Any OpenAI-compatible `/v1/chat/completions`, no key needed (llama.cpp server: port 8080, started with `--jinja` for tool calls; LM Studio: port 1234).'],
    start: generic('openai-chat', false),
  },
  {
    provider: 'Ollama / llama.cpp server / LM Studio (Messages)',
    add: ['backends', 'add', 'ollama-messages', '--type', 'anthropic', '--base-url', 'http://127.0.0.1:11434'],
    upstreamModel: 'qwen3-coder',
    fake: PROFILE_FAKE('local-anthropic'),
    quirks: ['Their Anthropic-compatible `/v1/messages`: thinking without signatures; no `count_tokens` there, so the router estimates it.'],
    start: localAnthropic,
  },
  {
    provider: 'Groq',
    add: chat('groq', 'https://api.groq.com/openai/v1', 'GROQ_API_KEY', 'groq'),
    upstreamModel: 'openai/gpt-oss-20b',
    fake: PROFILE_FAKE('groq'),
    quirks: ['`messages[].name`, `logprobs`, `top_logprobs`, `logit_bias` and `n` other than 1 (all refused with a 400) left out, each with a warning.'],
    start: chatProvider(groqRules),
  },
  {
    provider: 'Mistral',
    add: chat('mistral', 'https://api.mistral.ai/v1', 'MISTRAL_API_KEY', 'mistral'),
    upstreamModel: 'mistral-large-latest',
    fake: PROFILE_FAKE('mistral'),
    quirks: [
      '`seed` sent as `random_seed`, `max_completion_tokens` as `max_tokens`; `stream_options` left out (it reports usage anyway).',
      'Any other field it does not take (a 422) and reasoning on assistant messages left out, with a warning.',
    ],
    start: chatProvider(mistralRules),
  },
  {
    provider: 'xAI',
    add: chat('xai', 'https://api.x.ai/v1', 'XAI_API_KEY', 'xai'),
    upstreamModel: 'grok-3-mini',
    fake: PROFILE_FAKE('xai'),
    quirks: ['For reasoning models, `presence_penalty`, `frequency_penalty` and `stop` left out with a warning; `reasoning_effort` only to Grok 3 Mini, as `low` or `high`.'],
    start: chatProvider(xaiRules),
  },
];
