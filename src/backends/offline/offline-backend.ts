import { createHash } from 'node:crypto';
import { collectReply } from '../../core/collect-reply.js';
import { estimateRequestTokens, estimateTokens } from '../../core/estimate-tokens.js';
import type { FinishReason } from '../../core/reply.js';
import { translatableOrRefuse } from '../../core/same-format-only.js';
import { setBackendWarnings } from '../../core/warnings.js';
import { leaveOutSearch } from '../../core/web-search.js';
import type { StreamEvent } from '../../core/stream-events.js';
import type { Backend, BackendCall } from '../backend.js';
import { composeTurn } from './compose-reply.js';
import type { ScriptedTurn } from './script.js';

const WORDS_PER_CHUNK = 3;
const CHARS_PER_TOKEN = 4;

/** The built-in backend: no network, deterministic output, estimated token counts. */
export function createOfflineBackend(script?: ScriptedTurn[]): Backend {
  /** The whole turn is known at once, so it goes out as one batch. */
  async function* stream({ request }: BackendCall): AsyncGenerator<StreamEvent[]> {
    // The offline backend stands in for a real upstream that translates: it refuses and warns
    // about the same parts one would, so a script tried offline meets what it will meet live.
    const unsearched = request.webSearch ? leaveOutSearch(request, 'offline') : undefined;
    setBackendWarnings(request, [...translatableOrRefuse(request), ...(unsearched ? [unsearched] : [])]);
    yield [...turnEvents(request)];
  }

  function* turnEvents(request: BackendCall['request']): Generator<StreamEvent> {
    const turn = composeTurn(request, script);
    const inputTokens = estimateRequestTokens(request);
    yield { type: 'start', usage: { inputTokens, outputTokens: 0 } };
    let produced = '';
    if (turn.reasoning) {
      yield { type: 'reasoning-start' };
      yield* chunks(turn.reasoning, (text) => ({ type: 'reasoning-delta', text }));
      yield { type: 'reasoning-end' };
      produced += turn.reasoning;
    }
    let finish: FinishReason = turn.toolCalls?.length ? 'tool-calls' : 'stop';
    if (turn.text) {
      let text = turn.text;
      const budget = request.maxOutputTokens === undefined ? Infinity : request.maxOutputTokens * CHARS_PER_TOKEN;
      if (text.length > budget) {
        text = text.slice(0, budget);
        finish = 'length';
      }
      yield { type: 'text-start' };
      yield* chunks(text, (delta) => ({ type: 'text-delta', text: delta }));
      yield { type: 'text-end' };
      produced += text;
    }
    if (finish !== 'length') {
      for (const [index, call] of (turn.toolCalls ?? []).entries()) {
        const id = call.id ?? callId(request.messages.length, index, call.name);
        const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
        yield { type: 'tool-call-start', id, name: call.name };
        // Split the arguments as real upstreams do, so clients see more than one delta.
        const half = Math.ceil(args.length / 2);
        yield { type: 'tool-call-delta', id, argumentsDelta: args.slice(0, half) };
        if (half < args.length) yield { type: 'tool-call-delta', id, argumentsDelta: args.slice(half) };
        yield { type: 'tool-call-end', id };
        produced += call.name + args;
      }
    }
    yield { type: 'finish', reason: finish, usage: { inputTokens, outputTokens: Math.max(1, estimateTokens(produced)) } };
  }

  return {
    name: 'offline',
    offline: true,
    stream,
    complete: (call) => collectReply(stream(call)),
  };
}

function* chunks(text: string, event: (delta: string) => StreamEvent): Generator<StreamEvent> {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  for (let i = 0; i < words.length; i += WORDS_PER_CHUNK) yield event(words.slice(i, i + WORDS_PER_CHUNK).join(''));
}

/** Deterministic per position in the conversation, so a replayed history sees the same ids. */
function callId(position: number, index: number, name: string): string {
  return `call_${createHash('sha256').update(`${position}:${index}:${name}`).digest('hex').slice(0, 24)}`;
}
