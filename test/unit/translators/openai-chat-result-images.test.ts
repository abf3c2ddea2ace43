import { describe, expect, it } from 'vitest';
import { encodeChatRequest } from '../../../src/backends/openai-chat/encode-request.js';
import type { Message } from '../../../src/core/request.js';

/**
 * A tool result with images on an upstream that takes cache_control (`--cache-control`): Chat's
 * tool message carries text only, so the images follow in a user message. A breakpoint the client
 * set on the result ends, on Anthropic, the result with its images; here it must end the same
 * prompt, so it goes on the last image, and the next turn reads the images from the cache too.
 */

const BREAKPOINT = { type: 'ephemeral' };
const messages: Message[] = [
  { role: 'user', content: [{ type: 'text', text: 'Look at the screen.' }] },
  { role: 'assistant', content: [{ type: 'tool-call', id: 'toolu_1', name: 'screenshot', arguments: '{}' }] },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        callId: 'toolu_1',
        content: [
          { type: 'text', text: 'Captured.' },
          { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=', mediaType: 'image/png' },
        ],
        providerMetadata: { anthropic: { cacheControl: BREAKPOINT } },
      },
    ],
  },
];

describe('a breakpoint on a tool result with images, on an openai-chat upstream that takes cache_control', () => {
  it('goes on the last image that follows the result, not on the tool message before them', () => {
    const sent = encodeChatRequest({ model: 'svc.intelligent-basic', system: [], messages, tools: [] }, 'anthropic/claude-sonnet-4.5', false, { cacheControl: true }).messages as any[];
    expect(sent.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(sent[2].content).toEqual([{ type: 'text', text: 'Captured.' }]);
    const images = sent[3].content;
    expect(images.at(-1)).toMatchObject({ type: 'image_url', cache_control: BREAKPOINT });
    expect(JSON.stringify(sent).split('cache_control').length - 1).toBe(1);
  });
});
