import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboard, type Dashboard } from '../../src/server/dashboard/dashboard.js';
import { LiveFeed, RECENT_REQUESTS } from '../../src/server/dashboard/live-feed.js';
import type { RequestLogEntry } from '../../src/server/request-log.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { send } from '../helpers/send.js';

const entry = (n: number): RequestLogEntry => ({ time: Date.now(), method: 'POST', path: '/v1/chat/completions', status: 200, latencyMs: n, requestId: `req_${n}` });
const pendingImmediates = (): number => process.getActiveResourcesInfo().filter((name) => name === 'Immediate').length;

describe('the live feed on the request path', () => {
  it('with no one watching, keeps the recent requests in its fixed ring and schedules nothing', () => {
    const feed = new LiveFeed();
    const before = pendingImmediates();
    for (let n = 0; n < RECENT_REQUESTS * 3; n++) feed.record(entry(n));
    expect(pendingImmediates()).toBe(before);
    const recent = feed.recent() as Array<{ request_id: string }>;
    expect(recent).toHaveLength(RECENT_REQUESTS);
    // Oldest first, and only the newest RECENT_REQUESTS of them.
    expect(recent[0]!.request_id).toBe(`req_${RECENT_REQUESTS * 2}`);
    expect(recent.at(-1)!.request_id).toBe(`req_${RECENT_REQUESTS * 3 - 1}`);
  });

  it('never sends a body, and redacts the error text of a failed target', () => {
    const feed = new LiveFeed();
    feed.record({
      ...entry(1),
      requestBody: { messages: 'secret prompt' },
      targets: [{ backend: 'a', upstreamModel: 'm', outcome: 401, latencyMs: 3, error: 'upstream said: invalid key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789' }],
    });
    const [shown] = feed.recent() as Array<Record<string, any>>;
    expect(shown).not.toHaveProperty('request_body');
    expect(shown!.targets[0].error).not.toContain('sk-proj-abcdefghijklmnopqrstuvwxyz0123456789');
  });
});

describe('the dashboard beyond loopback', () => {
  let router: TestRouter;
  let ui: Dashboard;
  let bobKey: string;

  beforeAll(async () => {
    ui = createDashboard();
    router = await startRouter({ http: { ui, requestLog: ui.feed } });
    bobKey = router.issueKey('bob');
  });
  afterAll(async () => router?.close());

  it('asks for an admin key: the page shows the key form, the data answers 401', async () => {
    expect(ui.requireAdminKey).toBe(true);
    const page = await send(router, '/ui');
    expect(page.status).toBe(401);
    expect(page.text).toContain('action="/ui/session"');
    expect((await send(router, '/ui/api/overview')).status).toBe(401);
    expect((await send(router, '/ui/events')).status).toBe(401);
    expect((await send(router, '/ui/api/overview', { headers: { authorization: `Bearer ${bobKey}` } })).status).toBe(401);
    expect((await send(router, '/ui/api/overview', { headers: { authorization: `Bearer ${router.key}` } })).status).toBe(200);
    // The sessions panel's data, as GET /admin/sessions: an admin's alone.
    expect((await send(router, '/ui/api/sessions')).status).toBe(401);
    expect((await send(router, '/ui/api/sessions', { headers: { authorization: `Bearer ${bobKey}` } })).status).toBe(401);
    expect((await send(router, '/ui/api/sessions', { headers: { authorization: `Bearer ${router.key}` } })).json).toMatchObject({ sessions: [] });
  });

  it('lets the key form in with an admin key only, then streams requests to the browser by cookie', async () => {
    const refused = await fetch(`${router.origin}/ui/session`, { method: 'POST', body: new URLSearchParams({ key: bobKey }), redirect: 'manual' });
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain('admin key');
    const accepted = await fetch(`${router.origin}/ui/session`, { method: 'POST', body: new URLSearchParams({ key: router.key }), redirect: 'manual' });
    expect(accepted.status).toBe(303);
    const cookie = accepted.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Path=\/ui/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    const events = await fetch(`${router.origin}/ui/events`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(events.status).toBe(200);
    const reader = events.body!.getReader();
    const chat = await send(router, '/v1/chat/completions', {
      headers: { authorization: `Bearer ${bobKey}`, 'content-type': 'application/json' },
      body: { model: 'svc.intelligent-lite', messages: [{ role: 'user', content: 'hi' }] },
    });
    let text = '';
    const id = chat.headers.get('x-request-id')!;
    while (!text.includes(id)) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toMatch(/event: request\ndata: \{.*"caller":"bob"/);
    await reader.cancel();
  });
});
