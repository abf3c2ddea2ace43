import type { FormatName } from '../core/request.js';
import { chatFormat } from './chat/chat-format.js';
import { geminiFormat } from './gemini/gemini-format.js';
import type { ClientFormat, Headers } from './client-format.js';
import { messagesFormat } from './messages/messages-format.js';
import { responsesFormat } from './responses/responses-format.js';

/**
 * Every client format the router serves. Adding one is a folder that exports a ClientFormat and
 * one line here: its routes join the server's table, its key sources, required headers, error
 * body, model names and models-list shape come with it.
 */
export const FORMATS = [chatFormat, responsesFormat, messagesFormat, geminiFormat] as const satisfies readonly ClientFormat[];

export type { FormatName };

/** The format a request to a shared endpoint (whoami, models, an unknown path) is answered in when no format claims it. */
export const DEFAULT_FORMAT: ClientFormat = chatFormat;

/** The format whose client sent a request to the shared models endpoints (`query`: its query string, without `?`). */
export const modelsFormatOf = (headers: Headers, query?: string): ClientFormat => FORMATS.find((format) => format.models.claims(headers, query)) ?? DEFAULT_FORMAT;

// One format for each name a backend's wireFormat and a request's forwardBody may carry (src/core/request.ts), and no other.
type Listed = (typeof FORMATS)[number]['name'];
type Assert<T extends true> = T;
type NamesMatch = Assert<[Listed] extends [FormatName] ? ([FormatName] extends [Listed] ? true : false) : false>;
