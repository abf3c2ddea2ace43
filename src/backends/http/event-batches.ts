import type { StreamEvent } from '../../core/stream-events.js';
import type { SseFrame } from './sse-decoder.js';

/**
 * Runs a frame-by-frame decoder over batches of SSE frames and yields one batch of events per
 * batch of frames, so a burst of upstream frames costs one step of the pipeline, not one per
 * event. Events decoded before a frame that throws still go out, ahead of the error.
 *
 * `ended` says the decoder has seen the stream's terminal event: the frames after it are skipped,
 * and no more are read, so an upstream that keeps its connection open cannot hold the client.
 */
export async function* eventBatches(
  frameBatches: AsyncIterable<SseFrame[]>,
  ended: () => boolean,
  decodeFrame: (frame: SseFrame, out: StreamEvent[]) => void,
): AsyncGenerator<StreamEvent[]> {
  for await (const frames of frameBatches) {
    const out: StreamEvent[] = [];
    try {
      for (const frame of frames) {
        decodeFrame(frame, out);
        if (ended()) break;
      }
    } catch (error) {
      if (out.length) yield out;
      throw error;
    }
    if (out.length) yield out;
    if (ended()) return;
  }
}
