import { sendJson, startFakeServer } from './fake-server.js';
import { defaultError, errorBody } from './openai-errors.js';

/** How the fake treats one key: serve, or refuse with a status and the headers a provider sends with it. */
export interface KeyBehaviour {
  status?: 429 | 402;
  headers?: Record<string, string>;
}

export interface KeyedUpstream {
  /** Base URL ending in /v1, as an OpenAI-style backend is configured. */
  url: string;
  /** The key each chat completion request carried, in arrival order. */
  keysSeen: string[];
  /** Changes how a key is treated from the next request on. */
  treat(key: string, behaviour: KeyBehaviour): void;
  close(): Promise<void>;
}

/**
 * An OpenAI Chat Completions upstream whose answer depends on the key presented: a key told to
 * refuse answers with OpenAI's own 429 (or 402) body and the headers given (`retry-after`,
 * `x-ratelimit-reset-requests`, …); any other key gets a completion. Its refusals quote the key, as
 * some upstreams do, so a test can check the router never passes it on.
 */
export async function startKeyedUpstream(): Promise<KeyedUpstream> {
  const behaviours = new Map<string, KeyBehaviour>();
  const keysSeen: string[] = [];
  const { origin, close } = await startFakeServer(async (request, res) => {
    const key = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
    keysSeen.push(key);
    const behaviour = behaviours.get(key) ?? {};
    if (behaviour.status) {
      // 402 is how balance-based upstreams (DeepSeek, OpenRouter) say the account is out of credit.
      const body = (behaviour.status === 402 ? errorBody('Insufficient Balance', 'insufficient_quota', 'insufficient_quota') : defaultError(429)) as { error: { message: string } };
      body.error.message = `${body.error.message} (key ${key})`;
      return sendJson(res, behaviour.status, body, behaviour.headers ?? {});
    }
    const model = request.body?.model ?? 'upstream-model';
    const text = `served with key #${key.slice(-1)}`;
    if (request.body?.stream === true) {
      // OpenAI's stream: a role chunk, the content, the finish, then usage (asked for with include_usage) and [DONE].
      const base = { id: 'chatcmpl-keyed', object: 'chat.completion.chunk', created: 1_700_000_000, model };
      const chunks = [
        { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
        { ...base, choices: [{ index: 0, delta: { content: text }, finish_reason: null }] },
        { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
        { ...base, choices: [], usage: { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 } },
      ];
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('')}data: [DONE]\n\n`);
      return;
    }
    sendJson(res, 200, {
      id: 'chatcmpl-keyed',
      object: 'chat.completion',
      created: 1_700_000_000,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 },
    });
  });
  return {
    url: `${origin}/v1`,
    keysSeen,
    treat: (key, behaviour) => void behaviours.set(key, behaviour),
    close,
  };
}
