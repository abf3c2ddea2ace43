import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { ScriptedTurn as OfflineTurn } from '../../src/backends/offline/script.js';
import type { FakeUpstream, RecordedRequest } from '../fakes/fake-server.js';
import type { ScriptedTurn } from '../fakes/scripted-turn.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { addBackend, FORWARDING_KINDS, setRoute, SKU, startUpstream, streamedUpstream, upstreamModelOf, UPSTREAM_KINDS } from '../integration/support.js';

export { streamedUpstream, upstreamModelOf };
import { RESULTS_DIR, type Cell, type Outcome, type RouteKind, type ResultsFile } from './results.js';

export { SKU };
/**
 * The routes of the compatibility matrix (docs/compatibility.md): the upstreams a client library's
 * own format may be forwarded to, then the built-in offline backend. `ROUTES` are the OpenAI and
 * Anthropic libraries' (the three upstreams of their formats); `ALL_ROUTES` add a Gemini upstream,
 * for the libraries that speak Gemini's API (and the AI SDK, whose providers all run over it).
 */
const MATRIX_KINDS = UPSTREAM_KINDS;
export type UpstreamKind = (typeof MATRIX_KINDS)[number];
export type { RouteKind };
export const ROUTES: readonly RouteKind[] = [...FORWARDING_KINDS, 'offline'];
export const ALL_ROUTES: readonly RouteKind[] = [...MATRIX_KINDS, 'offline'];

/** One route made ready for one test: where the client points and what the upstream received. */
export interface Served {
  route: RouteKind;
  /** origin + /v1 */
  baseURL: string;
  origin: string;
  key: string;
  /** Requests the fake upstream received during this test; always empty for offline. */
  requests: RecordedRequest[];
}

/** What a cell body may return instead of a plain pass. */
export interface Verdict {
  outcome: Exclude<Outcome, 'pass' | 'fail'>;
  note: string;
}

/**
 * One shared router and one fake per upstream kind for a whole test file; each test swaps in its
 * own scripted turns. The offline route needs its script at startup, so a test that scripts it gets
 * a router of its own, closed after the test.
 */
export function clientSuite(family: string, file: string) {
  let router: TestRouter;
  const fakes = new Map<UpstreamKind, FakeUpstream>();
  let turns: readonly ScriptedTurn[] = [{ text: 'unscripted' }];
  let next = 0;
  const extra: TestRouter[] = [];
  const cells: Cell[] = [];

  beforeAll(async () => {
    router = await startRouter();
    await Promise.all(
      MATRIX_KINDS.map(async (kind) => {
        const fake = await startUpstream(kind, () => turns[Math.min(next++, turns.length - 1)]!);
        fakes.set(kind, fake);
        addBackend(router, `up-${kind}`, kind, fake.url);
      }),
    );
  });
  afterEach(async () => {
    await Promise.all(extra.splice(0).map((r) => r.close()));
  });
  afterAll(async () => {
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    const results: ResultsFile = { family, cells };
    fs.writeFileSync(path.join(RESULTS_DIR, `${file}.json`), `${JSON.stringify(results, null, 2)}\n`);
    await Promise.all([...fakes.values()].map((fake) => fake.close()));
    await router?.close();
  });

  /** Points the SKU at `route`, answering with `script` (one turn per upstream request, the last repeating). */
  async function serve(route: RouteKind, script: readonly ScriptedTurn[]): Promise<Served> {
    if (route === 'offline') {
      const offline = await startRouter({ offlineScript: script.map(toOfflineTurn) });
      extra.push(offline);
      setRoute(offline, SKU, ['offline']);
      return { route, baseURL: offline.baseURL, origin: offline.origin, key: offline.key, requests: [] };
    }
    turns = script;
    next = 0;
    const fake = fakes.get(route)!;
    fake.requests.splice(0);
    setRoute(router, SKU, [`up-${route}:model-for-${route}`]);
    return { route, baseURL: router.baseURL, origin: router.origin, key: router.key, requests: fake.requests };
  }

  /**
   * A test that records its cell: pass when the body returns nothing, the verdict it returns, or
   * fail (with the error) when it throws. `knownDefect` names a router defect the body exposes: the
   * test is then expected to fail, and the cell records the defect.
   */
  function cell(client: string, feature: string, route: RouteKind, body: () => Promise<Verdict | void>, options: { knownDefect?: string } = {}): void {
    const record = (outcome: Outcome, note?: string) => cells.push({ family, client, feature, route, outcome, ...(note ? { note } : {}) });
    const title = `${client} · ${feature} · ${route}`;
    const run = async () => {
      let verdict: Verdict | void;
      try {
        verdict = await body();
      } catch (error) {
        record('fail', options.knownDefect ?? firstLine(error));
        throw error;
      }
      if (verdict) record(verdict.outcome, verdict.note);
      else record('pass');
    };
    if (options.knownDefect) it.fails(title, run);
    else it(title, run);
  }

  return { serve, cell };
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.slice(0, 300);
}

function toOfflineTurn(turn: ScriptedTurn): OfflineTurn {
  return {
    ...(turn.text !== undefined ? { text: turn.text } : {}),
    ...(turn.reasoning ? { reasoning: turn.reasoning.text } : {}),
    ...(turn.toolCalls ? { toolCalls: turn.toolCalls.map((call) => ({ name: call.name, arguments: call.arguments, ...(call.id ? { id: call.id } : {}) })) } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Inputs every library sends, and reading them back out of each upstream's own wire form.

/** A 1×1 PNG. */
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
/** A minimal one-page PDF. */
export const PDF_BASE64 = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 3 3]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
).toString('base64');

export type WirePart =
  | { type: 'text'; text: string }
  | { type: 'image'; mediaType?: string; data?: string; url?: string }
  | { type: 'file'; mediaType?: string; data?: string; filename?: string };

function fromDataUrl(url: string): { mediaType?: string; data?: string; url?: string } {
  const match = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  return match ? { mediaType: match[1], data: match[2] } : { url };
}

/** The parts of the last user message an upstream received, in a common shape. */
export function lastUserParts(kind: UpstreamKind, body: any): WirePart[] {
  if (kind === 'gemini') return geminiUserParts(body);
  const list: any[] = kind === 'openai-responses' ? (typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input) : body.messages;
  const user = [...list].reverse().find((m) => m.role === 'user');
  if (!user) return [];
  if (typeof user.content === 'string') return [{ type: 'text', text: user.content }];
  // Only each upstream's own part types count: a Chat-style part reaching a Responses upstream is not its wire form.
  const own: Record<Exclude<UpstreamKind, 'gemini'>, string[]> = {
    'openai-chat': ['text', 'image_url', 'file'],
    anthropic: ['text', 'image', 'document'],
    'openai-responses': ['input_text', 'input_image', 'input_file'],
  };
  return (user.content as any[]).map((part): WirePart => {
    if (!own[kind].includes(part.type)) return { type: 'text', text: `<foreign part ${part.type}>` };
    switch (part.type) {
      case 'text':
      case 'input_text':
        return { type: 'text', text: part.text };
      case 'image_url':
        return { type: 'image', ...fromDataUrl(part.image_url.url) };
      case 'input_image':
        return { type: 'image', ...fromDataUrl(part.image_url) };
      case 'image':
        return part.source.type === 'base64' ? { type: 'image', mediaType: part.source.media_type, data: part.source.data } : { type: 'image', url: part.source.url };
      case 'file':
        return { type: 'file', ...fromDataUrl(part.file.file_data ?? ''), filename: part.file.filename };
      case 'input_file':
        return { type: 'file', ...fromDataUrl(part.file_data ?? ''), filename: part.filename };
      case 'document':
        return { type: 'file', mediaType: part.source.media_type, data: part.source.data, filename: part.title };
      default:
        return { type: 'text', text: `<${part.type}>` };
    }
  });
}

/** The parts of Gemini's last user content: text, inline data (an image, or a file of its type) and file references. */
function geminiUserParts(body: any): WirePart[] {
  const user = [...(body.contents as any[])].reverse().find((content) => content.role === 'user');
  return ((user?.parts ?? []) as any[]).map((part): WirePart => {
    if (part.text !== undefined) return { type: 'text', text: part.text };
    if (part.inlineData) return { type: part.inlineData.mimeType.startsWith('image/') ? 'image' : 'file', mediaType: part.inlineData.mimeType, data: part.inlineData.data };
    if (part.fileData) return { type: part.fileData.mimeType?.startsWith('image/') ? 'image' : 'file', mediaType: part.fileData.mimeType, url: part.fileData.fileUri } as WirePart;
    return { type: 'text', text: `<${Object.keys(part)[0]}>` };
  });
}

/** Asserts the upstream saw the 1×1 PNG, inline, in its own image form. */
export function expectImageUpstream(served: Served): void {
  if (served.route === 'offline') return;
  const parts = lastUserParts(served.route, served.requests.at(-1)!.body);
  expect(parts).toContainEqual(expect.objectContaining({ type: 'image', mediaType: 'image/png', data: PNG_BASE64 }));
}

/** Asserts the upstream saw the PDF, inline, as its own file or document part. */
export function expectPdfUpstream(served: Served): void {
  if (served.route === 'offline') return;
  const parts = lastUserParts(served.route, served.requests.at(-1)!.body);
  expect(parts).toContainEqual(expect.objectContaining({ type: 'file', mediaType: 'application/pdf', data: PDF_BASE64 }));
}

/** The stop sequences an upstream received, in its own field for them. */
export function stopOf(kind: UpstreamKind, body: any): string[] | undefined {
  const raw = kind === 'openai-chat' ? body.stop : kind === 'anthropic' ? body.stop_sequences : kind === 'gemini' ? body.generationConfig?.stopSequences : body.stop;
  return raw === undefined ? undefined : Array.isArray(raw) ? raw : [raw];
}

/**
 * How an upstream was asked for structured output: a JSON schema in its own field
 * (`response_format`, `output_config.format`, `text.format`), or one tool the model is forced to call.
 */
export function structuredTargetOf(kind: UpstreamKind, body: any): { via: 'schema' | 'tool'; name?: string; schema: any } | undefined {
  switch (kind) {
    case 'openai-chat':
      if (body.response_format?.type === 'json_schema') return { via: 'schema', schema: body.response_format.json_schema.schema };
      if (body.tool_choice?.type === 'function') {
        const name = body.tool_choice.function.name;
        return { via: 'tool', name, schema: body.tools.find((t: any) => t.function.name === name)?.function.parameters };
      }
      if (body.tool_choice === 'required' && body.tools?.length === 1) return { via: 'tool', name: body.tools[0].function.name, schema: body.tools[0].function.parameters };
      return undefined;
    case 'anthropic':
      if (body.output_config?.format) return { via: 'schema', schema: body.output_config.format.schema };
      if (body.tool_choice?.type === 'tool') {
        const name = body.tool_choice.name;
        return { via: 'tool', name, schema: body.tools.find((t: any) => t.name === name)?.input_schema };
      }
      if (body.tool_choice?.type === 'any' && body.tools?.length === 1) return { via: 'tool', name: body.tools[0].name, schema: body.tools[0].input_schema };
      return undefined;
    case 'openai-responses':
      if (body.text?.format?.type === 'json_schema') return { via: 'schema', schema: body.text.format.schema };
      if (body.tool_choice?.type === 'function') {
        const name = body.tool_choice.name;
        return { via: 'tool', name, schema: body.tools.find((t: any) => t.name === name)?.parameters };
      }
      if (body.tool_choice === 'required' && body.tools?.length === 1) return { via: 'tool', name: body.tools[0].name, schema: body.tools[0].parameters };
      return undefined;
    case 'gemini': {
      const config = body.generationConfig ?? {};
      const schema = config.responseJsonSchema ?? config.responseSchema;
      if (config.responseMimeType === 'application/json' && schema) return { via: 'schema', schema };
      const calling = body.toolConfig?.functionCallingConfig;
      const declarations: any[] = (body.tools ?? []).flatMap((tool: any) => tool.functionDeclarations ?? []);
      const name = calling?.mode === 'ANY' ? (calling.allowedFunctionNames?.length === 1 ? calling.allowedFunctionNames[0] : declarations.length === 1 ? declarations[0].name : undefined) : undefined;
      const declared = declarations.find((declaration) => declaration.name === name);
      return declared ? { via: 'tool', name, schema: declared.parametersJsonSchema ?? declared.parameters } : undefined;
    }
  }
}

/** The structured answer every structured-output test scripts. */
export const FORECAST = { city: 'Paris', temperature: 21 };

/** Asserts the upstream was asked for the forecast's schema, as a schema or a forced tool. */
export function expectForecastSchemaUpstream(served: Served, via?: 'schema' | 'tool'): void {
  if (served.route === 'offline') return;
  const target = structuredTargetOf(served.route, served.requests.at(-1)!.body);
  expect(target, 'structured output request').toBeDefined();
  if (via) expect(target!.via).toBe(via);
  expect(Object.keys(target!.schema.properties ?? {}).sort()).toEqual(['city', 'temperature']);
}

/** A turn answering with the forecast: as JSON text, or as a call of the tool the client forces. */
export function forecastTurn(tool?: string): ScriptedTurn {
  return tool ? { toolCalls: [{ id: 'call_forecast', name: tool, arguments: FORECAST }] } : { text: JSON.stringify(FORECAST) };
}

/** Fixed usage; the Anthropic fake reports the same numbers as input_tokens and output_tokens. */
export const USAGE = { input: 21, output: 5 };

/** The tool loop's two turns: call get_weather for Paris, then answer. */
export const TOOL_LOOP: ScriptedTurn[] = [{ toolCalls: [{ id: 'call_weather_1', name: 'get_weather', arguments: { city: 'Paris' } }] }, { text: 'It is sunny in Paris.' }];
export const WEATHER_RESULT = 'Sunny, 21 C in Paris';

/** Stop-sequence turns: the upstream has stopped at '###' (Anthropic says so in stop_sequence). */
export const STOPPED: ScriptedTurn = { text: 'one two', anthropicStop: { reason: 'stop_sequence', sequence: '###' } };
/** What the offline backend is scripted with for the same test: the text runs past the stop sequence. */
export const PAST_STOP: ScriptedTurn = { text: 'one two ### three' };

export const STREAMED_TEXT = 'Streaming arrives in several small pieces.';
