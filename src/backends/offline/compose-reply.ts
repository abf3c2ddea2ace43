import type { CanonicalRequest, Part } from '../../core/request.js';
import type { ScriptedTurn } from './script.js';

const EXCERPT_CHARS = 200;

/**
 * The offline backend's answer: the script's turn for this point of the conversation (counted
 * from the assistant turns the client replays, so nothing is stored), or a deterministic reply
 * derived from the last message.
 */
export function composeTurn(request: CanonicalRequest, script: ScriptedTurn[] | undefined): ScriptedTurn {
  const turnIndex = request.messages.filter((message) => message.role === 'assistant').length;
  const scripted = script?.[turnIndex];
  if (scripted) return scripted;
  return { text: describeLastMessage(request) };
}

function describeLastMessage(request: CanonicalRequest): string {
  const last = request.messages.at(-1);
  const label = `Offline reply from ${request.model}`;
  const toolResult = last?.content.find((part) => part.type === 'tool-result');
  if (toolResult?.type === 'tool-result') {
    const output = excerpt(toolResult.content.map(textOf).join(' '));
    return `${label}: received the result of tool call ${toolResult.callId}: "${output}".`;
  }
  const said = excerpt(last?.content.map(textOf).join(' ') ?? '');
  return `${label}: you said "${said}". This is svc-router's built-in offline backend; add a backend and a route to reach a real model.`;
}

const textOf = (part: Part): string => (part.type === 'text' ? part.text : '');

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat;
}
