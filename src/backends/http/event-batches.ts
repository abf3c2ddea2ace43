import type { StreamEvent } from '../../core/stream-events.js';
import type { SseFrame } from './sse-decoder.js';

/**
 * Runs a frame-by-frame decoder over batches of SSE frames and yields one batch of events per
 * batch of frames, so a burst of upstream frames costs one step of the pipeline, not one per
 * event. Events decoded before a frame that throws still go out, ahead of the error.
 */
export async function* eventBatches(frameBatches: AsyncIterable<SseFrame[]>, decodeFrame: (frame: SseFrame, out: StreamEvent[]) => void): AsyncGenerator<StreamEvent[]> {
  for await (const frames of frameBatches) {
    const out: StreamEvent[] = [];
    try {
      for (const frame of frames) decodeFrame(frame, out);
    } catch (error) {
      if (out.length) yield out;
      throw error;
    }
    if (out.length) yield out;
  }
}
