import { createHash, timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { canonicalRequest, signature, stringToSign } from '../../src/backends/bedrock/sigv4.js';
import { startAnthropicUpstream } from './anthropic-upstream.js';
import type { FakeUpstream, RecordedRequest } from './fake-server.js';
import type { Script } from './scripted-turn.js';
import { anthropicReplyAsConverse, anthropicStreamAsConverse, converseAsAnthropic, converseProblem } from './bedrock-converse.js';
import { bedrockChunk, bedrockException } from './event-stream-frames.js';

export interface BedrockUpstreamOptions {
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  region?: string;
  /** A Bedrock API key, taken as `Authorization: Bearer` in place of a signature. */
  apiKey?: string;
  /** Ids GET /foundation-models lists. */
  models?: string[];
  /** A stream breaks off after this many events with an exception message, as AWS's do mid-stream. */
  streamException?: { afterEvents: number; type: string; message: string };
}

export interface BedrockUpstream extends FakeUpstream {
  /** Requests refused before reaching the model (bad signature, bad body). */
  refused: number;
}

const INNER_KEY = 'sk-inner-anthropic';

/**
 * Bedrock's runtime for Claude models: POST /model/{id}/invoke and /model/{id}/invoke-with-response-stream
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html). Every
 * request's SigV4 signature is recomputed from what arrived, with the known secret; a mismatch is
 * refused as AWS refuses it (403 InvalidSignatureException, the canonical string quoted, session
 * token and all). The body must be Bedrock's Claude body: `anthropic_version: bedrock-2023-05-31`,
 * no `model`, no `stream`. The model itself is the Anthropic fake, its SSE events re-framed as
 * event-stream `chunk` messages with CRC32 checksums.
 *
 * Every model also answers on Converse and ConverseStream (POST /model/{id}/converse and
 * /converse-stream): the body is checked against Converse's grammar (bedrock-converse.ts), and the
 * same scripted model answers, in Converse's reply or event-stream events. InvokeModel takes
 * Anthropic's body only for Claude ids, as each family has its own body there.
 */
export async function startBedrockUpstream(script: Script, options: BedrockUpstreamOptions): Promise<BedrockUpstream> {
  const inner = await startAnthropicUpstream(script, { apiKey: INNER_KEY });
  const requests: RecordedRequest[] = [];
  let refused = 0;
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    let body: any;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      body = undefined;
    }
    requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body });
    const route = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream|converse|converse-stream)$/.exec(req.url ?? '');
    const listing = req.method === 'GET' && req.url === '/foundation-models';
    if (!listing && (req.method !== 'POST' || !route)) return awsError(res, 404, 'UnknownOperationException', 'Unknown operation');
    const problem = authProblem(req, raw, options);
    if (problem) {
      refused++;
      return awsError(res, 403, problem.type, problem.message);
    }
    if (listing) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ modelSummaries: (options.models ?? []).map((modelId) => ({ modelId, providerName: 'Anthropic' })) }));
    }
    const model = decodeURIComponent(route![1]!);
    if (route![2]!.startsWith('converse')) return converse(res, body, model, route![2] === 'converse-stream');
    if (!/(?:^|[./])anthropic\.claude-/.test(model)) return (refused++, awsError(res, 400, 'ValidationException', 'Malformed input request: #: required key [prompt] not found, please reformat your input and try again.'));
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return (refused++, awsError(res, 400, 'ValidationException', 'Malformed input request, please reformat your input and try again.'));
    if (body.anthropic_version !== 'bedrock-2023-05-31') return (refused++, awsError(res, 400, 'ValidationException', 'Malformed input request: #: required key [anthropic_version] not found'));
    for (const field of ['model', 'stream']) {
      if (field in body) return (refused++, awsError(res, 400, 'ValidationException', `Malformed input request: #: extraneous key [${field}] is not permitted, please reformat your input and try again.`));
    }
    const stream = route![2] === 'invoke-with-response-stream';
    const { anthropic_version: _version, anthropic_beta: beta, ...rest } = body;
    const answer = await fetch(`${inner.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': INNER_KEY, 'anthropic-version': '2023-06-01', ...(Array.isArray(beta) ? { 'anthropic-beta': beta.join(',') } : {}) },
      body: JSON.stringify({ ...rest, model, stream }),
    });
    const text = await answer.text();
    if (!answer.ok) return awsError(res, answer.status, answer.status === 429 ? 'ThrottlingException' : 'ValidationException', (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text);
    if (!stream) {
      res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': 'req-fake' });
      return void res.end(text);
    }
    res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'req-fake' });
    let sent = 0;
    for (const frame of text.split(/\n\n/)) {
      if (options.streamException && sent === options.streamException.afterEvents) {
        res.write(bedrockException(options.streamException.type, options.streamException.message));
        break;
      }
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data) {
        res.write(bedrockChunk(JSON.parse(data)));
        sent++;
      }
    }
    res.end();
  });
  /** Converse and ConverseStream: the scripted model behind the documented grammar. */
  async function converse(res: ServerResponse, body: unknown, model: string, stream: boolean): Promise<void> {
    const problem = converseProblem(body);
    if (problem) return (refused++, awsError(res, 400, 'ValidationException', problem));
    const answer = await fetch(`${inner.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': INNER_KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(converseAsAnthropic(body as Record<string, unknown>, model, stream)),
    });
    const text = await answer.text();
    if (!answer.ok) return awsError(res, answer.status, answer.status === 429 ? 'ThrottlingException' : 'ValidationException', (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text);
    if (!stream) {
      res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': 'req-fake' });
      return void res.end(JSON.stringify(anthropicReplyAsConverse(JSON.parse(text))));
    }
    const events = text
      .split(/\n\n/)
      .map((frame) => frame.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart()).join('\n'))
      .filter(Boolean)
      .map((data) => JSON.parse(data) as Record<string, unknown>);
    res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'req-fake' });
    for (const [sent, message] of anthropicStreamAsConverse(events).entries()) {
      if (options.streamException && sent === options.streamException.afterEvents) {
        res.write(bedrockException(options.streamException.type, options.streamException.message));
        break;
      }
      res.write(message);
    }
    res.end();
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    get refused() {
      return refused;
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await inner.close();
    },
  };
}

/** AWS's JSON error: `{"message"}` and the type in x-amzn-errortype. */
function awsError(res: ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.coral.service/` });
  res.end(JSON.stringify({ message }));
}

const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/;

/** A bearer API key when the fake has one and the request carries one; else the signature. */
function authProblem(req: IncomingMessage, raw: Buffer, options: BedrockUpstreamOptions): { type: string; message: string } | undefined {
  const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
  if (bearer === undefined) return options.secretAccessKey === undefined ? { type: 'AccessDeniedException', message: 'Authentication failed: a Bedrock API key is required.' } : signatureProblem(req, raw, options);
  return bearer === options.apiKey ? undefined : { type: 'AccessDeniedException', message: 'Authentication failed: Please make sure your API Key is valid.' };
}

/** Recomputes the signature from the request as it arrived; what AWS would say if it differs. */
function signatureProblem(req: IncomingMessage, raw: Buffer, options: BedrockUpstreamOptions): { type: string; message: string } | undefined {
  const parsed = AUTHORIZATION.exec(String(req.headers.authorization ?? ''));
  if (!parsed) return { type: 'IncompleteSignatureException', message: 'Authorization header requires Credential, SignedHeaders and Signature.' };
  const [, accessKeyId, day, region, service, signedList, given] = parsed;
  if (accessKeyId !== options.accessKeyId) return { type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  if (options.sessionToken !== undefined && req.headers['x-amz-security-token'] !== options.sessionToken) return { type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  const date = String(req.headers['x-amz-date'] ?? '');
  const secret = options.secretAccessKey!;
  const payloadHash = createHash('sha256').update(raw).digest('hex');
  const signed = signedList!.split(';');
  for (const required of ['host', 'x-amz-date']) if (!signed.includes(required)) return { type: 'IncompleteSignatureException', message: `'${required}' must be a signed header.` };
  if (options.sessionToken !== undefined && !signed.includes('x-amz-security-token')) return { type: 'IncompleteSignatureException', message: "'x-amz-security-token' must be a signed header." };
  if (req.headers['x-amz-content-sha256'] !== undefined && req.headers['x-amz-content-sha256'] !== payloadHash) return { type: 'InvalidSignatureException', message: 'The provided x-amz-content-sha256 header does not match what was computed.' };
  if (day !== date.slice(0, 8) || region !== options.region || service !== 'bedrock') return { type: 'InvalidSignatureException', message: `Credential should be scoped to a valid region and service: ${region}/${service}.` };
  const headers = Object.fromEntries(signed.map((name) => [name, String(req.headers[name] ?? '')]));
  const canonical = canonicalRequest(req.method ?? 'POST', new URL(req.url ?? '/', 'http://fake'), headers, signed, payloadHash);
  const expected = signature(secret, date, region!, 'bedrock', stringToSign(date, `${day}/${region}/${service}/aws4_request`, canonical));
  if (timingSafeEqual(Buffer.from(expected), Buffer.from(given!))) return undefined;
  // As AWS says it, quoting the canonical string it computed (which carries the session token).
  return {
    type: 'InvalidSignatureException',
    message: `The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.\n\nThe Canonical String for this request should have been\n'${canonical}'\n`,
  };
}
