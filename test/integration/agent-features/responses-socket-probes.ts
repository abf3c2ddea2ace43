import OpenAI from 'openai-v7';
import { ResponsesWebSocketSession } from 'openai-v7/lib/responses/responses-websocket-session';
import { ResponsesWS } from 'openai-v7/resources/responses/ws';
import type { RecordedRequest } from '../../fakes/fake-server.js';
import { startGatedUpstream, type GatedUpstream } from '../../helpers/gated-upstream.js';
import { addBackend, SKU, type UpstreamKind } from '../support.js';
import type { Agent, Outcome, Route } from './outcomes.js';
import type { Probe, ProbeContext } from './probes.js';

/**
 * What a multi-agent client does on one Responses WebSocket, driven by the official SDK's
 * ResponsesWS (openai 7.x, lanes from ResponsesWebSocketSession): several streams at once, a fork
 * from an earlier response, and `response.steer` before and during output. Each probe runs
 * through the real router to a fake upstream of the route's type; a steer's upstream is held by
 * a gate (test/helpers/gated-upstream.ts) so the steer lands exactly where the probe aims it.
 */

const AGENT: Agent = 'Responses WebSocket clients (openai SDK 7 ResponsesWS, multi-agent clients)';

type Lane = ReturnType<ResponsesWebSocketSession['lane']>;

async function sdkSocket(context: ProbeContext) {
  const client = new OpenAI({ apiKey: context.router.key, baseURL: context.router.baseURL });
  const ws = new ResponsesWS(client);
  context.closeLater(async () => ws.close());
  if (ws.socket.readyState !== 1) await new Promise((resolve) => ws.socket.on('open', resolve));
  const session = new ResponsesWebSocketSession(ws, { maxLanes: 16, maxBufferedEvents: 10_000, maxBufferedBytes: 1 << 24 });
  /** The stream each event arrived tagged with, in order, whatever lane it went to. */
  const tags: unknown[] = [];
  ws.on('event', (event: any) => tags.push(event.stream_id));
  return { ws, session, tags };
}

const said = (request: RecordedRequest | undefined): string => JSON.stringify(request?.body ?? {});

/** The upstream request that carried `words` as the newest input (the one asked after it never carries them). */
const askedWith = (requests: RecordedRequest[], words: string): number => requests.findIndex((request) => said(request).includes(words));

const SCRIPT = [{ text: 'First answer.' }, { text: 'Second answer.' }, { text: 'Third answer.' }, { text: 'Fourth answer.' }];

const multiplexing: Probe = {
  agent: AGENT,
  feature: 'multiplexing: two streams at once on one socket (`stream_id`)',
  async run(context) {
    const requests = await context.upstream(SCRIPT);
    const { session, tags } = await sdkSocket(context);
    const lanes = { A: session.lane('agent-a'), B: session.lane('agent-b') };
    const turn = (lane: Lane, input: string, previous?: string) => {
      lane.create({ model: SKU, input, ...(previous ? { previous_response_id: previous } : {}) } as any);
      return lane.finalResponse();
    };
    const [a1, b1] = await Promise.all([turn(lanes.A, 'Hello from A'), turn(lanes.B, 'Hello from B')]);
    const [a2, b2] = await Promise.all([turn(lanes.A, 'Again from A', a1.id), turn(lanes.B, 'Again from B', b1.id)]);
    if (!tags.length || tags.some((tag) => tag !== 'agent-a' && tag !== 'agent-b')) return { by: 'lost', how: `events tagged ${[...new Set(tags)].join()}` };
    if (context.route === 'offline') {
      // The built-in model echoes the newest message; the usage it estimates grows with the history it was given.
      const own = [a1, b1, a2, b2].every((response, index) => response.output_text.includes(['Hello from A', 'Hello from B', 'Again from A', 'Again from B'][index]!));
      const continued = a2.usage!.input_tokens > a1.usage!.input_tokens && b2.usage!.input_tokens > b1.usage!.input_tokens;
      return own && continued ? { by: 'router', how: 'each stream its own turns and history, every event tagged with its `stream_id`' } : { by: 'lost', how: 'streams mixed' };
    }
    // The fake answers its requests in the order they came: each stream's answer must be the one to the request that carried its words.
    for (const [response, words, other] of [
      [a1, 'Hello from A', 'from B'],
      [b1, 'Hello from B', 'from A'],
      [a2, 'Again from A', 'from B'],
      [b2, 'Again from B', 'from A'],
    ] as const) {
      const index = askedWith(requests, words);
      if (index === -1 || SCRIPT[index]!.text !== response.output_text || said(requests[index]).includes(other)) return { by: 'lost', how: `${words} answered with ${response.output_text}` };
    }
    const history = said(requests[askedWith(requests, 'Again from A')]);
    if (!history.includes('Hello from A') || !history.includes(a1.output_text)) return { by: 'lost', how: 'a stream lost its history' };
    return { by: 'router', how: 'each stream its own turns and history, every event tagged with its `stream_id`; the upstream asked per turn over HTTP' };
  },
};

const fork: Probe = {
  agent: AGENT,
  feature: 'fork: a new stream from an earlier response (`previous_response_id`)',
  async run(context) {
    const requests = await context.upstream(SCRIPT);
    const { session } = await sdkSocket(context);
    const main = session.lane('main');
    main.create({ model: SKU, input: 'Hello from A' } as any);
    const first = await main.finalResponse();
    main.create({ model: SKU, input: 'Second to A', previous_response_id: first.id } as any);
    await main.finalResponse();
    const branch = session.lane('fork');
    branch.create({ model: SKU, input: 'Forked question', previous_response_id: first.id } as any);
    const forked = await branch.finalResponse();
    if (context.route === 'offline') {
      const fresh = session.lane('fresh');
      fresh.create({ model: SKU, input: 'Forked question' } as any);
      const alone = await fresh.finalResponse();
      return forked.output_text.includes('Forked question') && forked.usage!.input_tokens > alone.usage!.input_tokens
        ? { by: 'router', how: "the earlier response's history continued on the new stream" }
        : { by: 'lost', how: 'the fork started empty' };
    }
    const sent = said(requests.at(-1));
    return sent.includes('Hello from A') && sent.includes(first.output_text) && sent.includes('Forked question') && !sent.includes('Second to A')
      ? { by: 'router', how: "the earlier response's turns sent upstream, the later ones left out" }
      : { by: 'lost', how: 'the fork did not carry the earlier history' };
  },
};

const FIRST = 'Long answer first.';
const STEER = 'Make it shorter';

/**
 * Translated from Anthropic or Gemini the response opens (`response.created`) with its first text,
 * so no client can name it before output: the stream is held just after that text instead, and the
 * steer is sent at `response.created`, as early as a client can.
 */
const OPENS_WITH_FIRST_TEXT = new Set<Route>(['anthropic', 'gemini']);

async function steerProbe(context: ProbeContext, aim: 'before' | 'mid'): Promise<Outcome> {
  const { router, route } = context;
  const requests = await context.upstream([{ text: FIRST, chunkSize: 4 }, { text: 'Short.' }]);
  let gate: GatedUpstream | undefined;
  if (route !== 'offline') {
    const backend = `up-${route}`;
    gate = await startGatedUpstream(router.config.read().backends[backend]!.baseUrl!, 'Long', aim === 'before' && !OPENS_WITH_FIRST_TEXT.has(route) ? 'before' : 'after');
    const held = gate;
    context.closeLater(() => held.close());
    addBackend(router, backend, route as UpstreamKind, gate.url);
  }
  const { ws, session } = await sdkSocket(context);
  const lane = session.lane('steered');
  const events: any[] = [];
  const read = async (stop: (event: any) => boolean): Promise<any> => {
    for (;;) {
      const event = await lane.receive();
      events.push(event);
      if (stop(event)) return event;
    }
  };
  lane.create({ model: SKU, input: 'Write something' } as any);
  await gate?.holding();
  const created = await read((event) => event.type === 'response.created');
  if (aim === 'mid') await read((event) => event.type === 'response.output_text.delta');
  ws.send({ type: 'response.steer', previous_response_id: created.response.id, input: STEER } as any);
  const notice = await read((event) => /^response\.steer\./.test(event.type));
  gate?.release();
  if (notice.type === 'response.steer.failed') {
    const answeredWhole = events.some((event) => event.type === 'response.completed');
    return { by: 'refused', how: `${answeredWhole ? 'the answer goes out whole, so the steer finds it finished: ' : ''}\`response.steer.failed\` (\`${notice.error?.code}\`)` };
  }
  if (notice.type !== 'response.steer.accepted') return { by: 'lost', how: notice.type };
  const terminal = (event: any) => ['response.completed', 'response.incomplete', 'response.failed', 'error'].includes(event.type);
  const ended = events.find((event) => terminal(event) && event.response?.id === created.response.id) ?? (await read(terminal));
  const successor = await read((event) => terminal(event) && event.response?.id !== created.response.id);
  if (successor.type !== 'response.completed') return { by: 'lost', how: `successor ${successor.type}` };
  const steeredText = route === 'offline' ? successor.response.output.map((item: any) => JSON.stringify(item)).join() : said(requests[1]);
  if (!steeredText.includes(STEER)) return { by: 'lost', how: 'the steered input never reached the model' };
  if (ended.type === 'response.incomplete' && ended.response?.incomplete_details?.reason === 'steered') {
    // Restarted before any output: the upstream was asked again with the steer, never shown the abandoned answer.
    return requests.length === 2 && !steeredText.includes(FIRST) ? { by: 'router', how: '`steer.accepted`; restarted with the steered input before any output' } : { by: 'lost', how: 'restart' };
  }
  if (ended.type !== 'response.completed') return { by: 'lost', how: ended.type };
  if (route !== 'offline' && !(steeredText.indexOf(STEER) > steeredText.indexOf(FIRST) && steeredText.includes(FIRST))) return { by: 'lost', how: 'the successor lost the answer' };
  const continued = '`steer.accepted`; the answer finishes, a successor on the stream continues after it with the steered input';
  return { by: 'router', how: aim === 'before' ? `nothing reaches the client before the first text, so it lands mid-output: ${continued}` : continued };
}

export const RESPONSES_SOCKET: Probe[] = [
  multiplexing,
  fork,
  { agent: AGENT, feature: 'steer before output (`response.steer` at `response.created`)', run: (context) => steerProbe(context, 'before') },
  { agent: AGENT, feature: 'steer mid-output (`response.steer` after the first text)', run: (context) => steerProbe(context, 'mid') },
];
