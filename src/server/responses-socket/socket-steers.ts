import { RouterError } from '../../core/errors.js';
import { routerErrorEvent } from './socket-errors.js';
import type { SocketConversation } from './socket-conversation.js';
import { MAX_STEERS_PER_RESPONSE, newSteerId, requiredInput, steerAccepted, steerFailed, steeredIncomplete, steerItems, steerPending, type AcceptedSteer } from './steering.js';
import { RunningTurn, type StreamLane } from './stream-lane.js';
import type { SocketTurn } from './turn-body.js';

/** What steering and cancelling need of the socket they run on (socket-session.ts). */
export interface SteeredSocket {
  readonly lanes: ReadonlyMap<string | undefined, StreamLane>;
  readonly conversation: SocketConversation;
  closed(): boolean;
  /** Serves one turn through the server's pipeline, its events sent on the turn's stream. */
  serve(turn: SocketTurn, running: RunningTurn): Promise<void>;
  /** Sends events tagged with their stream, in order. */
  send(messages: string[], streamId?: string): Promise<void>;
}

/**
 * A socket's `response.steer` and `response.cancel`, and the turns they change: a turn runs, then
 * any successor its steers call for (a restart before output, a continuation after it), the
 * pending steers of a response that waited on client tool output, and the accepted, pending and
 * failed events that tell the client the truth of each steer (steering.ts, docs/http-api.md).
 */
export class SocketSteers {
  /** The steer events' own sequence (they belong to no response's stream of events). */
  private steerSequence = 0;

  constructor(private readonly socket: SteeredSocket) {}

  /** A turn, then any successor its steers call for, on one stream. */
  async run(first: SocketTurn, lane: StreamLane): Promise<void> {
    let turn: SocketTurn | undefined = first;
    let carried: AcceptedSteer[] = [];
    while (turn && !this.socket.closed()) {
      const running = new RunningTurn(lane.id, turn.input);
      lane.running = running;
      try {
        await this.socket.serve(turn, running);
      } finally {
        lane.running = undefined;
      }
      if (running.responseId === undefined && carried.length) {
        // The successor never started (its response.created is the commit point): the steers it carried were not committed.
        running.steers.unshift(...carried);
        this.failSteers(running, 'successor_creation_failed', 'The response continuing with the steered input could not be created.');
        return;
      }
      ({ turn, carried } = await this.afterTurn(turn, running, lane));
    }
  }

  /** What follows a turn: a successor carrying its steers, a pending notice, a failure notice, or nothing. */
  private async afterTurn(turn: SocketTurn, running: RunningTurn, lane: StreamLane): Promise<{ turn?: SocketTurn; carried: AcceptedSteer[] }> {
    const none = { carried: [] };
    if (this.socket.closed()) return none;
    const target = running.responseId ?? '';
    if (running.stoppedFor === 'cancel') {
      if (!running.ended) await this.socket.send([JSON.stringify(routerErrorEvent(new RouterError(400, 'invalid_request', 'The response was cancelled (response.cancel).', undefined, 'response_cancelled')))], lane.id);
      this.failSteers(running, 'response_not_active', 'The response was cancelled before the steered input was committed.');
      return none;
    }
    const steers = running.steers.splice(0);
    if (running.stoppedFor === 'restart' && !running.ended) {
      await this.socket.send([steeredIncomplete(running.created, target, running.lastSequence + 1)], lane.id);
      return { turn: successor(turn, turn.input, steers), carried: steers };
    }
    if (steers.length === 0) return none;
    if (running.outcome?.type === 'response.completed') {
      const output = running.outcome.output ?? [];
      const stubs = requiredInput(output);
      if (stubs.length === 0) return { turn: successor(turn, [...turn.input, ...output], steers), carried: steers };
      lane.pending = { parent: target, steers };
      await this.socket.send(steers.map((steer) => JSON.stringify(steerPending(this.steerSequence++, steer, target, stubs))), lane.id);
      return none;
    }
    running.steers.push(...steers);
    this.failSteers(running, 'response_not_active', `The response ended (${running.outcome?.type ?? 'broke off'}) before the steered input could be committed.`);
    return none;
  }

  /** Steers kept for a response that waited on client tool output go first in the turn continuing it (the SDK: "prepended in submission order"). */
  takePending(message: Record<string, unknown>, lane: StreamLane): void {
    const pending = lane.pending;
    if (!pending) return;
    lane.pending = undefined;
    if (message.previous_response_id === pending.parent) {
      const own = typeof message.input === 'string' ? [{ type: 'message', role: 'user', content: message.input }] : Array.isArray(message.input) ? message.input : [];
      message.input = [...pending.steers.flatMap((steer) => steer.items), ...own];
      return;
    }
    const holder = new RunningTurn(lane.id, []);
    holder.responseId = pending.parent;
    holder.steers.push(...pending.steers);
    this.failSteers(holder, 'response_not_active', 'The next turn on this stream did not continue the response the steered input waited for.');
  }

  private failSteers(running: RunningTurn, code: string, why: string): void {
    const steers = running.steers.splice(0);
    const target = running.responseId ?? '';
    void this.socket.send(steers.map((steer) => JSON.stringify(steerFailed(this.steerSequence++, code, why, steer, target))), running.streamId);
  }

  /** A `response.steer`: answered at once with accepted or failed, tagged with the target's stream. */
  async steer(message: Record<string, unknown>): Promise<void> {
    const target = typeof message.previous_response_id === 'string' ? message.previous_response_id : '';
    const running = target === '' ? undefined : [...this.socket.lanes.values()].find((lane) => lane.running?.responseId === target)?.running;
    const streamId = running ? running.streamId : this.socket.conversation.streamOf(target);
    const fail = (code: string, why: string) => this.socket.send([JSON.stringify(steerFailed(this.steerSequence++, code, why, { input: message.input }, target))], streamId);
    if (target === '') return fail('invalid_input', 'previous_response_id: expected the id of the response to steer.');
    const items = steerItems(message.input);
    if ('error' in items) return fail('invalid_input', items.error);
    if (!running || running.ended || running.stoppedFor === 'cancel') {
      if (running || this.socket.conversation.has(target)) return fail('response_already_completed', `Response '${target.slice(0, 200)}' has finished; send the input in a response.create continuing it.`);
      return fail('response_not_found', `Response '${target.slice(0, 200)}' is not running on this socket.`);
    }
    if (running.steers.length >= MAX_STEERS_PER_RESPONSE) return fail('too_many_pending_steers', `Response '${target.slice(0, 200)}' already holds ${MAX_STEERS_PER_RESPONSE} steers.`);
    const steer: AcceptedSteer = { id: newSteerId(), input: message.input, items: items.items };
    running.steers.push(steer);
    await this.socket.send([JSON.stringify(steerAccepted(this.steerSequence++, steer, target))], streamId);
    // Nothing produced yet: start over with the input added (steering.ts); otherwise the response finishes first.
    if (!running.outputStarted) running.stop('restart');
  }

  /** A `response.cancel` (`stream_id` and/or `response_id`): stops that stream's running turn; an error event when nothing runs there. */
  async cancel(message: Record<string, unknown>, streamId: string | undefined): Promise<void> {
    const responseId = typeof message.response_id === 'string' ? message.response_id : undefined;
    const lane = streamId === undefined && responseId !== undefined ? [...this.socket.lanes.values()].find((candidate) => candidate.running?.responseId === responseId) : this.socket.lanes.get(streamId);
    const running = lane?.running;
    if (!running || running.ended || (responseId !== undefined && running.responseId !== responseId)) {
      const error = new RouterError(400, 'invalid_request', 'No response is running there to cancel.', responseId !== undefined ? 'response_id' : 'stream_id', 'no_active_response');
      return this.socket.send([JSON.stringify(routerErrorEvent(error))], lane?.id ?? streamId);
    }
    running.stop('cancel');
  }
}

/** The turn that carries steered input on: the same request, its input what came before plus the steers' items. */
function successor(turn: SocketTurn, before: readonly unknown[], steers: AcceptedSteer[]): SocketTurn {
  const input = [...before, ...steers.flatMap((steer) => steer.items)];
  return { ...turn, body: { ...turn.body, input }, input };
}
