import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { retryMayHelp, RouterError } from '../core/errors.js';
import { redactText } from '../core/redact.js';
import { DEFAULT_FORMAT } from '../formats/registry.js';
import { newId } from '../formats/shared/ids.js';
import { DEFAULT_KEY_SOURCES } from '../identity/authenticate.js';
import { findEndpoint, likelyEndpoint } from './endpoints.js';
import { errorHeaderLines } from './error-headers.js';

/**
 * Node's HTTP parser refuses a request whose header line holds a byte HTTP does not allow there
 * (a carriage return or newline inside a value, a vertical tab, any other control character; RFC
 * 9110 §5.5) before the router sees the request, and would answer a bare 400. The usual cause is
 * a key pasted with its line end. This answers in the client's own format instead: 401 when the
 * broken line is the key's header (the spec makes whitespace in a key a cause of 401), else 400
 * naming the header. The header's value is never repeated.
 *
 * Every other parse failure gets Node's own answer, as without this handler.
 */
export function answerClientError(error: ParseError, socket: Socket): void {
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  socket.on('error', () => socket.destroy());
  if (!socket.writable || inFlight?.headersSent) return void socket.destroy();
  const answer = error.code !== undefined && HEADER_LINE_ERRORS.has(error.code) && error.rawPacket ? malformedHeaderAnswer(error, error.rawPacket) : undefined;
  socket.end(answer ?? NODE_ANSWERS[error.code ?? ''] ?? BAD_REQUEST);
  // Drop what the client still sends, so closing does not reset the answer away; then close.
  socket.resume();
  socket.once('end', () => socket.destroy());
  socket.setTimeout(LINGER_MS, () => socket.destroy());
}

/** What node:http passes to 'clientError' for a request it could not parse. */
export interface ParseError extends Error {
  code?: string;
  /** Node's reason, such as "Invalid header value char". */
  reason?: string;
  /** The bytes of the chunk being parsed, and how far into it the parser got. */
  rawPacket?: Buffer;
  bytesParsed?: number;
}

const LINGER_MS = 1_000;

/** llhttp's codes for a header line with a byte it does not allow, or a line end it did not expect. */
const HEADER_LINE_ERRORS = new Set(['HPE_INVALID_HEADER_TOKEN', 'HPE_LF_EXPECTED', 'HPE_CR_EXPECTED', 'HPE_STRICT']);

/** Node's own bare answer for a status, with whether a retry may help by the one rule (core/errors.ts). */
const bare = (status: number): string =>
  `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nx-should-retry: ${retryMayHelp(new RouterError(status, 'invalid_request', ''))}\r\nConnection: close\r\n\r\n`;

/** What node:http answers itself when no 'clientError' listener is there. */
const NODE_ANSWERS: Readonly<Record<string, string>> = {
  HPE_HEADER_OVERFLOW: bare(431),
  HPE_CHUNK_EXTENSIONS_OVERFLOW: bare(413),
  ERR_HTTP_REQUEST_TIMEOUT: bare(408),
};
const BAD_REQUEST = bare(400);

const REQUEST_LINE = /^[A-Z]+ ([^\s?]+)\S* HTTP\/1\.[01]\r?\n/;
const HEADER_NAME = /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}):/;

function malformedHeaderAnswer(error: ParseError, packet: Buffer): string {
  const text = packet.toString('latin1');
  // The packet starts with the request line when the client wrote its head at once, as clients do.
  const path = REQUEST_LINE.exec(text)?.[1];
  const endpoint = path === undefined ? undefined : (findEndpoint(path)?.endpoint ?? likelyEndpoint(path));
  const found = brokenHeaderName(text, error.bytesParsed ?? 0);
  const name = found === undefined ? undefined : redactText(found);
  const keyHeaders = (endpoint?.keySources ?? DEFAULT_KEY_SOURCES).flatMap((source) => ('header' in source ? [source.header] : []));
  const routerError =
    name !== undefined && keyHeaders.includes(name)
      ? new RouterError(
          401,
          'authentication',
          `Invalid API key: the ${name} header holds a character HTTP does not allow there (a carriage return, newline or other control character: a key pasted with its line end?). Fix the key; no trailing whitespace.`,
          undefined,
          'invalid_api_key',
        )
      : new RouterError(
          400,
          'invalid_request',
          `Malformed request: ${name === undefined ? 'a header line' : `the ${name} header`} holds a character HTTP does not allow there (${error.reason ?? error.code}); a header value cannot hold a carriage return, newline or other control character.`,
          name,
        );
  const requestId = newId('req_');
  const body = JSON.stringify((endpoint ?? { errorBody: DEFAULT_FORMAT.errorBody }).errorBody(routerError, requestId));
  return (
    `HTTP/1.1 ${routerError.status} ${STATUS_CODES[routerError.status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
    `${errorHeaderLines(routerError, requestId)}connection: close\r\n\r\n${body}`
  );
}

/**
 * The name of the header whose line the parser broke on: the line that holds the last byte it
 * took, or, when that line names no header, the one before (a value cut in two by a line end).
 */
function brokenHeaderName(text: string, bytesParsed: number): string | undefined {
  const last = Math.max(0, bytesParsed - 1);
  const lineStart = last === 0 ? 0 : text.lastIndexOf('\n', last - 1) + 1;
  const own = HEADER_NAME.exec(text.slice(lineStart, lineStart + 80))?.[1];
  if (own !== undefined || lineStart < 2) return own?.toLowerCase();
  const previousStart = text.lastIndexOf('\n', lineStart - 2) + 1;
  return HEADER_NAME.exec(text.slice(previousStart, previousStart + 80))?.[1]?.toLowerCase();
}
