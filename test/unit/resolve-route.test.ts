import { describe, expect, it } from 'vitest';
import { withDefaults } from '../../src/config/settings.js';
import { FORMATS, type FormatName } from '../../src/formats/registry.js';
import { isRoutableModelName } from '../../src/core/model-names.js';
import type { Target } from '../../src/core/target.js';
import { globMatches } from '../../src/routing/model-pattern.js';
import { resolveRoute as resolveOn } from '../../src/routing/resolve-route.js';
import { expectInvalid, type InvalidCase } from './decoders/support.js';

const SKU_LIST = 'svc.intelligent-pro, svc.intelligent-basic, svc.intelligent-lite';
const OFFLINE: Target[] = [{ backend: 'offline' }];

const NO_ROUTES = withDefaults({});
const ROUTES = withDefaults({
  routes: {
    'svc.intelligent-pro': ['anthropic:claude-sonnet-4-5', 'openai:gpt-4.1'],
    'svc.intelligent-pro*': ['never'],
    'svc.intelligent-*': ['openai'],
    'svc.*': ['local:llama3:8b'],
    'svc.custom': ['openai:gpt-4o-mini'],
    'claude-*': ['anthropic'],
    'claude-opus-*': ['anthropic-premium:claude-opus-4-1'],
    'gpt-4o': ['openai'],
  },
});

const notServed = (model: string): InvalidCase => ({
  param: 'model',
  message: `The model '${model}' is not served here. Use one of the svc SKUs: ${SKU_LIST}.`,
  code: 'model_not_found',
});
const messagesOnly = (model: string): InvalidCase => ({
  param: 'model',
  message: `The model '${model}' is accepted only on /v1/messages. Use one of the svc SKUs here: ${SKU_LIST}.`,
  code: 'model_not_found',
});
type Endpoint = FormatName;
/** Resolves as the server does: in the named format, among all the formats served. */
const resolveRoute = (settings: typeof ROUTES, model: string, endpoint: Endpoint) =>
  resolveOn(settings, model, FORMATS.find((format) => format.name === endpoint)!, FORMATS);

const unknown = (model: string, endpoint: Endpoint): InvalidCase => ({
  param: 'model',
  message: `Unknown model '${model}'. Use one of the svc SKUs: ${SKU_LIST}${endpoint === 'messages' ? ', or a claude-* model id' : ''}.`,
  code: 'model_not_found',
});

describe('resolveRoute: served names', () => {
  it.each<[string, typeof ROUTES, string, Endpoint, Target[]]>([
    // configured routes
    [
      'an exact route, in fallback order',
      ROUTES,
      'svc.intelligent-pro',
      'chat',
      [
        { backend: 'anthropic', upstreamModel: 'claude-sonnet-4-5' },
        { backend: 'openai', upstreamModel: 'gpt-4.1' },
      ],
    ],
    ['an exact route on the responses endpoint', ROUTES, 'svc.custom', 'responses', [{ backend: 'openai', upstreamModel: 'gpt-4o-mini' }]],
    ['the longest matching pattern over a shorter one', ROUTES, 'svc.intelligent-basic', 'chat', [{ backend: 'openai' }]],
    ['the longest matching pattern over an exact route for another name', ROUTES, 'svc.intelligent-pro-2', 'chat', [{ backend: 'never' }]],
    ['the only matching pattern, its upstream model holding a colon', ROUTES, 'svc.other', 'chat', [{ backend: 'local', upstreamModel: 'llama3:8b' }]],
    ['a pattern matched case-insensitively', ROUTES, 'SVC.Intelligent-Lite', 'messages', [{ backend: 'openai' }]],
    ['a claude-* id by the longer of two patterns', ROUTES, 'claude-opus-4-1', 'messages', [{ backend: 'anthropic-premium', upstreamModel: 'claude-opus-4-1' }]],
    ['a claude-* id by its pattern', ROUTES, 'claude-haiku-4-5', 'messages', [{ backend: 'anthropic' }]],
    ['a claude-* id by its pattern, case-insensitively', ROUTES, 'Claude-Haiku-4-5', 'messages', [{ backend: 'anthropic' }]],
    // the offline backend when nothing is configured
    ['svc.intelligent-pro with no routes, offline', NO_ROUTES, 'svc.intelligent-pro', 'chat', OFFLINE],
    ['svc.intelligent-basic with no routes, offline', NO_ROUTES, 'svc.intelligent-basic', 'responses', OFFLINE],
    ['svc.intelligent-lite with no routes, offline', NO_ROUTES, 'svc.intelligent-lite', 'messages', OFFLINE],
    ['a claude-* id with no routes, offline', NO_ROUTES, 'claude-sonnet-4-5', 'messages', OFFLINE],
    ['a vendor-* id with no routes, offline', NO_ROUTES, 'vendor-model-1', 'messages', OFFLINE],
    [
      'a SKU no route matches, offline',
      withDefaults({ routes: { 'claude-*': ['anthropic'] } }),
      'svc.intelligent-lite',
      'chat',
      OFFLINE,
    ],
  ])('%s', (_label, settings, model, endpoint, targets) => {
    expect(resolveRoute(settings, model, endpoint)).toEqual(targets);
  });
});

describe('resolveRoute: refused names are a 400 model_not_found', () => {
  it.each<[string, typeof ROUTES, string, Endpoint, InvalidCase]>([
    // gpt-*
    ['a gpt-* name', NO_ROUTES, 'gpt-4o', 'chat', notServed('gpt-4o')],
    ['a gpt-* name even with a route configured for it', ROUTES, 'gpt-4o', 'responses', notServed('gpt-4o')],
    ['a gpt-* name in another case', NO_ROUTES, 'GPT-4.1', 'messages', notServed('GPT-4.1')],
    // claude-* off /v1/messages
    ['a claude-* id on chat', NO_ROUTES, 'claude-sonnet-4-5', 'chat', messagesOnly('claude-sonnet-4-5')],
    ['a claude-* id on responses', NO_ROUTES, 'claude-sonnet-4-5', 'responses', messagesOnly('claude-sonnet-4-5')],
    ['a claude-* id on chat even with a route configured', ROUTES, 'claude-haiku-4-5', 'chat', messagesOnly('claude-haiku-4-5')],
    ['a vendor-* id on responses', NO_ROUTES, 'vendor-model-1', 'responses', messagesOnly('vendor-model-1')],
    // unknown names
    ['an unknown name on chat', ROUTES, 'mistral-large', 'chat', unknown('mistral-large', 'chat')],
    ['an unknown name on messages, hinting at claude-* ids', ROUTES, 'mistral-large', 'messages', unknown('mistral-large', 'messages')],
    ['an unconfigured svc.* name', NO_ROUTES, 'svc.custom', 'chat', unknown('svc.custom', 'chat')],
    ['an empty name', NO_ROUTES, '', 'responses', unknown('', 'responses')],
    // names that exist on every object's prototype are unknown unless the config holds them
    ['constructor with no routes', NO_ROUTES, 'constructor', 'chat', unknown('constructor', 'chat')],
    ['constructor with routes', ROUTES, 'constructor', 'messages', unknown('constructor', 'messages')],
    ['__proto__ with no routes', NO_ROUTES, '__proto__', 'chat', unknown('__proto__', 'chat')],
    ['__proto__ with routes', ROUTES, '__proto__', 'responses', unknown('__proto__', 'responses')],
    ['toString', ROUTES, 'toString', 'chat', unknown('toString', 'chat')],
    ['hasOwnProperty', NO_ROUTES, 'hasOwnProperty', 'messages', unknown('hasOwnProperty', 'messages')],
    ['valueOf', ROUTES, 'valueOf', 'chat', unknown('valueOf', 'chat')],
    ['__defineGetter__', NO_ROUTES, '__defineGetter__', 'chat', unknown('__defineGetter__', 'chat')],
  ])('%s', (_label, settings, model, endpoint, error) => {
    expectInvalid(() => resolveRoute(settings, model, endpoint), error);
  });
});

describe('globMatches', () => {
  it.each<[string, string, boolean]>([
    ['svc.*', 'svc.intelligent-pro', true],
    ['svc.*', 'svc.', true],
    ['svc.*', 'svcXintelligent', false],
    ['svc.*', 'my.svc.pro', false],
    ['SVC.*', 'svc.pro', true],
    ['svc.*', 'SVC.PRO', true],
    ['claude-*-4-5', 'claude-sonnet-4-5', true],
    ['claude-*-4-5', 'claude-sonnet-4-6', false],
    ['*', 'anything at all', true],
    ['*', '', true],
    ['**', 'x', true],
    ['svc.pro', 'svc.pro', true],
    ['svc.pro', 'svc.pro2', false],
    ['svc.pro', 'xsvc.pro', false],
    ['a+b', 'a+b', true],
    ['a+b', 'aab', false],
    ['x?', 'x', false],
    ['(a)', '(a)', true],
    ['a|b', 'a', false],
    ['a[b]', 'a[b]', true],
    ['$^{1}', '$^{1}', true],
    ['a\\d', 'a\\d', true],
    ['a\\d', 'a1', false],
  ])('%s against %s is %s', (pattern, name, result) => {
    expect(globMatches(pattern, name)).toBe(result);
  });
});

describe('isRoutableModelName', () => {
  it.each<[string, boolean]>([
    ['svc.intelligent-pro', true],
    ['svc.*', true],
    ['svc.llama3:8b', true],
    ['svc.my_model-2', true],
    ['claude-sonnet-4-5', true],
    ['claude-*', true],
    ['Claude-Opus-4-1', true],
    ['vendor-model-1', true],
    ['gemini-2.5-pro', true],
    ['gemini-*', true],
    ['Gemini-3-Flash-Preview', true],
    ['gpt-4o', false],
    ['GPT-4o', false],
    ['mistral-large', false],
    ['*', false],
    ['', false],
    ['svc.a b', false],
    ['svc.a/b', false],
    ['svc.x?', false],
    ['claude-é', false],
    ['constructor', false],
    ['__proto__', false],
  ])('%s is %s', (name, result) => {
    expect(isRoutableModelName(name)).toBe(result);
  });

  it("takes every client format's own model ids, and their patterns, as a route's name", () => {
    const families = FORMATS.flatMap((format) => (format.modelIds ? [format.modelIds] : []));
    expect(families.length).toBeGreaterThanOrEqual(2);
    for (const family of families) {
      expect(isRoutableModelName(family.pattern), family.pattern).toBe(true);
      expect(family.matches(family.pattern.replace('*', 'x-1')), family.pattern).toBe(true);
      expect(isRoutableModelName(family.pattern.replace('*', 'x-1')), family.pattern).toBe(true);
    }
  });
});
