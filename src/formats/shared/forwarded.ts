import type { WireFrame } from '../../core/forwarded.js';
import type { EncodeContext } from '../client-format.js';
import { withMembers } from '../../core/json-members.js';

/** The members a forwarded reply gets, set in one walk of its text. */
const REPLY_MEMBERS = ['model', 'svc_meta'];

/**
 * A forwarded JSON reply (Chat's `chat.completion`, Messages' `message`): the upstream's text with
 * the model the client asked for and svc_meta, the router's report, as the body's last member (or
 * in place of an upstream's own svc_meta, when the upstream is itself a router).
 */
export function forwardedJsonReply(text: string, context: EncodeContext): string {
  return withMembers(text, REPLY_MEMBERS, [JSON.stringify(context.model), JSON.stringify(context.svcMeta())]);
}

/** A frame written back as the upstream sent it: its event name, then its data (a line per data line). */
export function frameText(frame: WireFrame, data = frame.data): string {
  const lines = data.indexOf('\n') === -1 ? data : data.replaceAll('\n', '\ndata: ');
  return frame.event === undefined ? `data: ${lines}\n\n` : `event: ${frame.event}\ndata: ${lines}\n\n`;
}
