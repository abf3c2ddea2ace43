import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConfigGet, runConfigSet } from '../../src/cli/commands/config.js';
import { runRoutesSet } from '../../src/cli/commands/routes.js';
import { ConfigStore } from '../../src/config/store.js';
import { generateKey } from '../../src/core/router-keys.js';
import { startFakeServer } from '../fakes/fake-server.js';
import { startOpenAIChatUpstream } from '../fakes/openai-chat-upstream.js';
import { startRouter, tempHome, type TestRouter } from '../helpers/router.js';
import { bearer, expectAnthropicError, expectOpenAIError, messagesHeaders, rawExchange, rawGet, send } from './http-support.js';

/**
 * Names that live on Object.prototype are names like any other: a model, backend, key slug or path
 * called `constructor` or `__proto__` is found only when the config holds one by that name, and a
 * client sending one gets the ordinary 4xx of its format, never a 500 and never a route.
 */

const PROTOTYPE_NAMES = [
  ...Object.getOwnPropertyNames(Object.prototype),
  '__proto__',
  'prototype',
  'Constructor',
  'CONSTRUCTOR',
  '__PROTO__',
  'constructor ',
  ' __proto__',
  'constructor.prototype',
  '__proto__.constructor',
  'toString()',
];
const NAMES = [...new Set(PROTOTYPE_NAMES)];

let router: TestRouter;
let trap: Awaited<ReturnType<typeof startFakeServer>>;

beforeAll(async () => {
  router = await startRouter();
  // Every way a request could be routed leads to an upstream that records it.
  trap = await startFakeServer(async (_request, res) => {
    res.writeHead(500).end();
  });
  router.config.update((settings) => {
    settings.backends.trap = { type: 'openai-chat', baseUrl: `${trap.origin}/v1` };
    for (const model of ['svc.intelligent-pro', 'svc.intelligent-basic', 'svc.intelligent-lite', 'claude-*', 'vendor-*']) settings.routes[model] = ['trap'];
  });
});
afterAll(async () => {
  await router.close();
  await trap.close();
});

type Call = { endpoint: string; shape: 'openai' | 'anthropic'; send(model: string, stream: boolean): ReturnType<typeof send> };

const CALLS: Call[] = [
  {
    endpoint: 'chat',
    shape: 'openai',
    send: (model, stream) => send(router, 'POST', '/v1/chat/completions', { headers: bearer(router.key), body: { model, stream, messages: [{ role: 'user', content: 'hi' }] } }),
  },
  {
    endpoint: 'responses',
    shape: 'openai',
    send: (model, stream) => send(router, 'POST', '/v1/responses', { headers: bearer(router.key), body: { model, stream, input: 'hi' } }),
  },
  {
    endpoint: 'messages',
    shape: 'anthropic',
    send: (model, stream) =>
      send(router, 'POST', '/v1/messages', { headers: messagesHeaders(router.key), body: { model, stream, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] } }),
  },
  {
    endpoint: 'count_tokens',
    shape: 'anthropic',
    send: (model) => send(router, 'POST', '/v1/messages/count_tokens', { headers: messagesHeaders(router.key), body: { model, messages: [{ role: 'user', content: 'hi' }] } }),
  },
];

describe('prototype-named models', () => {
  for (const call of CALLS) {
    for (const stream of call.endpoint === 'count_tokens' ? [false] : [false, true]) {
      it(`answers every one with 400 model_not_found on ${call.endpoint}${stream ? ' (streaming)' : ''}, and routes none`, async () => {
        for (const name of NAMES) {
          const reply = await call.send(name, stream);
          if (call.shape === 'openai') {
            expectOpenAIError(reply, 400, { type: 'invalid_request_error', param: 'model', code: 'model_not_found' });
          } else {
            expectAnthropicError(reply, 400, 'invalid_request_error', /model/i);
          }
          expect(reply.json.error.message, name).toContain(`'${name}'`);
        }
        expect(trap.requests).toEqual([]);
      });
    }
  }

  it('records no usage for any of them', async () => {
    const reply = await send(router, 'GET', '/whoami', { headers: bearer(router.key) });
    expect(reply.status).toBe(200);
    expect(reply.json.usage.requests).toBe(0);
    expect(trap.requests).toEqual([]);
  });

  it('answers GET /v1/models/{name} with 404 model_not_found, in both list shapes', async () => {
    for (const name of NAMES) {
      const path = `/v1/models/${encodeURIComponent(name)}`;
      expectOpenAIError(await send(router, 'GET', path, { headers: bearer(router.key) }), 404, { type: 'not_found_error', param: 'model', code: 'model_not_found' });
      const anthropic = await send(router, 'GET', path, { headers: { ...bearer(router.key), 'anthropic-version': '2023-06-01' } });
      expect(anthropic.status, name).toBe(404);
    }
  });

  it('serves GET /v1/models/{id} for a listed model', async () => {
    const reply = await send(router, 'GET', '/v1/models/svc.intelligent-pro', { headers: bearer(router.key) });
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ id: 'svc.intelligent-pro', object: 'model' });
  });
});

describe('prototype-named paths and keys', () => {
  it('answers paths named after prototype properties with 404 in the endpoint family shape', async () => {
    for (const name of NAMES) {
      const segment = encodeURIComponent(name);
      for (const path of [`/${segment}`, `/v1/${segment}`, `/v1/messages/${segment}`]) {
        const reply = await send(router, 'POST', path, { headers: bearer(router.key), body: {} });
        expect(reply.status, path).toBe(404);
        if (path.startsWith('/v1/messages/')) expectAnthropicError(reply, 404, 'not_found_error');
        else expectOpenAIError(reply, 404, { type: 'not_found_error', code: 'not_found' });
      }
    }
  });

  it('refuses a request target that is a bare prototype name with 400, never a 500', async () => {
    for (const target of ['constructor', '__proto__', 'toString']) {
      const reply = await rawExchange(router, rawGet(target, []));
      expect(reply.status, target).toBe(400);
    }
  });

  it('answers keys whose slug is a prototype property with 401 in both shapes', async () => {
    for (const slug of NAMES.filter((name) => /^[a-z0-9-]+$/.test(name))) {
      const key = generateKey(slug);
      expectOpenAIError(await send(router, 'GET', '/whoami', { headers: bearer(key) }), 401, { type: 'authentication_error', code: 'invalid_api_key' });
      expectAnthropicError(
        await send(router, 'POST', '/v1/messages', { headers: messagesHeaders(key), body: { model: 'svc.intelligent-pro', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] } }),
        401,
        'authentication_error',
      );
    }
  });
});

describe('configured names that are prototype properties', () => {
  it('keeps backends, routes and keys named constructor or __proto__ as ordinary entries that work', async () => {
    const upstream = await startOpenAIChatUpstream([{ text: 'from the constructor backend', usage: { input: 3, output: 4 } }]);
    const live = await startRouter();
    try {
      // Typed as plain strings: TypeScript would read `.constructor` as Object's own.
      const [ctor, proto]: string[] = ['constructor', '__proto__'];
      live.config.update((settings) => {
        settings.backends[ctor!] = { type: 'openai-chat', baseUrl: upstream.url };
        settings.backends[proto!] = { type: 'openai-chat', baseUrl: upstream.url };
        settings.routes['svc.intelligent-pro'] = ['__proto__:up-model'];
        settings.routes['svc.intelligent-lite'] = ['constructor:up-model'];
        // Only a hand-edited file holds a route like this (routes set refuses the name); it is an entry like any other.
        settings.routes[ctor!] = ['constructor:up-model'];
      });
      const constructorKey = live.issueKey('constructor');
      const stored = new ConfigStore(live.home).read();
      expect(Object.keys(stored.backends).sort()).toEqual(['__proto__', 'constructor']);
      expect(Object.keys(stored.routes).sort()).toEqual(['constructor', 'svc.intelligent-lite', 'svc.intelligent-pro']);

      for (const model of ['svc.intelligent-pro', 'svc.intelligent-lite', 'constructor']) {
        const reply = await send(live, 'POST', '/v1/chat/completions', { headers: bearer(constructorKey), body: { model, messages: [{ role: 'user', content: 'hi' }] } });
        expect(reply.status, reply.text).toBe(200);
        expect(reply.json.svc_meta.upstream_model).toBe('up-model');
      }
      expect(upstream.requests).toHaveLength(3);
      const whoami = await send(live, 'GET', '/whoami', { headers: bearer(constructorKey) });
      expect(whoami.json.developer).toBe('constructor');
      // A name the config does not hold is still unknown, however it is spelled.
      const other = await send(live, 'POST', '/v1/chat/completions', { headers: bearer(live.key), body: { model: 'toString', messages: [{ role: 'user', content: 'hi' }] } });
      expectOpenAIError(other, 400, { type: 'invalid_request_error', code: 'model_not_found' });
    } finally {
      await live.close();
      await upstream.close();
    }
  });

  it('answers a hand-edited backend whose type is a prototype name with a 502 naming it, never a 500', async () => {
    const live = await startRouter();
    try {
      live.config.update((settings) => {
        for (const type of ['constructor', 'toString', '__proto__']) {
          settings.backends[`odd-${type}`] = { type: type as 'anthropic', baseUrl: 'http://127.0.0.1:1' };
        }
        settings.routes['svc.intelligent-pro'] = ['odd-constructor', 'odd-toString', 'odd-__proto__'];
      });
      const reply = await send(live, 'POST', '/v1/chat/completions', { headers: bearer(live.key), body: { model: 'svc.intelligent-pro', messages: [{ role: 'user', content: 'hi' }] } });
      expectOpenAIError(reply, 502, { type: 'upstream_error' });
      expect(reply.json.error.message).toMatch(/unknown type '.+'; use one of openai-chat/);
    } finally {
      await live.close();
    }
  });

  it('reads a stored __proto__ entry back as an entry, not as the table prototype', () => {
    const home = tempHome();
    const config = new ConfigStore(home);
    config.update((settings) => {
      settings.backends.__proto__ = { type: 'anthropic', baseUrl: 'http://127.0.0.1:1' };
    });
    const read = new ConfigStore(home).read();
    expect(Object.hasOwn(read.backends, '__proto__')).toBe(true);
    expect(read.backends.__proto__?.type).toBe('anthropic');
    expect('toString' in read.backends).toBe(false);
    expect('constructor' in read.routes).toBe(false);
    expect('hasOwnProperty' in read.keys).toBe(false);
  });

  it('refuses prototype names as config keys and as route names, with a clear message', async () => {
    for (const name of NAMES) {
      await expect(Promise.resolve().then(() => runConfigGet(name)), name).rejects.toThrow(/unknown config key/);
      await expect(runConfigSet(name, '1'), name).rejects.toThrow(/unknown config key/);
      await expect(runRoutesSet(name, ['offline']), name).rejects.toThrow(/cannot route .*use an svc\.\* name/);
    }
  });
});
