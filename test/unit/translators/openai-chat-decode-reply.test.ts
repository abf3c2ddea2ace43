import { describe, expect, it } from 'vitest';
import { decodeChatReply } from '../../../src/backends/openai-chat/decode-reply.js';
import { expectRouterError, fixtureJson, userRequest } from './support.js';

const decode = (name: string) => decodeChatReply('oai', fixtureJson(`wire/openai-chat/${name}.json`), userRequest());
const golden = (name: string) => fixtureJson(`expected/openai-chat/${name}.reply.json`);

describe('openai-chat decodeChatReply', () => {
  it('reads text, finish reason and usage', () => {
    expect(decode('reply-text')).toEqual(golden('reply-text'));
  });

  it('reads every tool call with its id, name and arguments, and cached prompt tokens', () => {
    expect(decode('reply-tool-calls')).toEqual(golden('reply-tool-calls'));
  });

  it('puts reasoning_content before the text and reads reasoning tokens', () => {
    expect(decode('reply-reasoning')).toEqual(golden('reply-reasoning'));
  });

  it('estimates usage from the request and the output when the body has none', () => {
    expect(decode('reply-no-usage')).toEqual(golden('reply-no-usage'));
  });

  it('treats a 200 with an error body and no choices as a 502 that quotes the upstream message', () => {
    let thrown: unknown;
    try {
      decode('reply-error-200');
    } catch (error) {
      thrown = error;
    }
    expect(expectRouterError(thrown, 502, 'upstream').message).toBe(
      "Backend 'oai' answered without a choice (it reported an error: Provider returned error: upstream model is overloaded).",
    );
  });

  it('treats an empty choices list as a 502', () => {
    expect(() => decodeChatReply('oai', { id: 'x', object: 'chat.completion', choices: [] }, userRequest())).toThrow(/answered without a choice\.$/);
  });

  it('passes a refusal (content null, refusal set) on as text', () => {
    expect(decode('reply-refusal').content).toEqual([{ type: 'text', text: "I'm sorry, I cannot help with that." }]);
  });

  it('reports tool-calls as the finish reason when the upstream called tools but said stop', () => {
    expect(decode('reply-tool-calls-finish-stop').finishReason).toBe('tool-calls');
  });
});
