import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Reply } from '../../src/core/reply.js';
import type { CanonicalRequest } from '../../src/core/request.js';
import { askedSafeguard } from '../../src/policies/safety-verdicts/asked-safeguard.js';
import { classifierRequest, userWords } from '../../src/policies/safety-verdicts/classifier-request.js';
import { describeContext } from '../../src/policies/safety-verdicts/describe-context.js';
import { readVerdict } from '../../src/policies/safety-verdicts/read-verdict.js';
import { NO_VERDICTS, upstreamResults, verdictsFor, withSafeguardResults } from '../../src/policies/safety-verdicts/safeguard-results.js';
import { CLASSIFIER_CONTEXT } from '../server/safety-verdicts-support.js';

/** The pure parts of the safety verdicts: what is read from the request, the classifier's answer, and what is written back. */

const reply = (text: string): Reply => ({ content: [{ type: 'text', text }], finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } });
const request = (body: Record<string, unknown>, messages: CanonicalRequest['messages'] = []): CanonicalRequest => ({
  model: 'm',
  system: [],
  messages,
  tools: [],
  forwardBody: { format: 'messages', body },
});

describe('readVerdict: the classifier verdict, or none', () => {
  it('reads the one JSON object asked for, bare, fenced or with prose around it', () => {
    expect(readVerdict(reply('{"verdict":"flagged","reason":"Deletes ~/other."}'))).toEqual({ outcome: 'flagged', reason: 'Deletes ~/other.' });
    expect(readVerdict(reply('```json\n{"verdict": "not_flagged"}\n```'))).toEqual({ outcome: 'not_flagged' });
    expect(readVerdict(reply('Verdict below.\n{"verdict":"not_flagged","reason":"Runs the tests."}'))).toEqual({ outcome: 'not_flagged', reason: 'Runs the tests.' });
  });

  it('gives none for anything but exactly flagged or not_flagged', () => {
    for (const text of ['', 'flagged', 'It is safe.', '{"verdict":"Flagged"}', '{"verdict":"safe"}', '{"verdict":true}', '{"reason":"x"}', '{"verdict":"flagged"} {"verdict":"not_flagged"}', '{"verdict":"flagged"']) {
      expect(readVerdict(reply(text)), text).toBeUndefined();
    }
  });

  it('never makes a verdict up: one is read only when the answer held it as an exact value', () => {
    fc.assert(
      fc.property(fc.string(), fc.jsonValue(), (prose, value) => {
        const answers = [prose, `${prose}${JSON.stringify(value)}`, JSON.stringify({ verdict: value, reason: prose })];
        for (const text of answers) {
          const verdict = readVerdict(reply(text));
          if (verdict === undefined) continue;
          const parsed = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1));
          expect(parsed.verdict).toBe(verdict.outcome);
        }
      }),
    );
  });

  it('keeps the reason to one bounded line', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), (reason) => {
        const verdict = readVerdict(reply(JSON.stringify({ verdict: 'flagged', reason })));
        expect(verdict?.outcome).toBe('flagged');
        expect(verdict?.reason ?? '').not.toMatch(/[\n\r]/);
        expect((verdict?.reason ?? '').length).toBeLessThanOrEqual(400);
      }),
    );
  });
});

describe('askedSafeguard: what Claude Code asked for', () => {
  it('finds the dangerous_tool_use entry and its context, and nothing else', () => {
    expect(askedSafeguard(request({ safeguards: [{ type: 'dangerous_tool_use', classifier_context: CLASSIFIER_CONTEXT }] }))).toEqual({ context: CLASSIFIER_CONTEXT });
    expect(askedSafeguard(request({ safeguards: [{ type: 'dangerous_tool_use' }] }))).toEqual({ context: {} });
    expect(askedSafeguard(request({ safeguards: [{ type: 'something_else' }] }))).toBeUndefined();
    expect(askedSafeguard(request({ safeguards: 'yes' }))).toBeUndefined();
    expect(askedSafeguard(request({}))).toBeUndefined();
    expect(askedSafeguard({ ...request({}), forwardBody: { format: 'chat', body: { safeguards: [{ type: 'dangerous_tool_use' }] } } })).toBeUndefined();
    // A body parsed from JSON may hold any key; none reaches a prototype.
    expect(askedSafeguard(request(JSON.parse('{"__proto__": {"safeguards": [{"type": "dangerous_tool_use"}]}}')))).toBeUndefined();
  });
});

describe('describeContext: the classifier context as bounded lines', () => {
  it('says where the agent works and under which rules', () => {
    const text = describeContext(CLASSIFIER_CONTEXT);
    expect(text).toContain('Permission mode: auto');
    expect(text).toContain('Working directory: /home/dev/project');
    expect(text).toContain('Trusted directory: /home/dev/project');
    expect(text).toContain("User's deny rules:\n  - Bash(sudo:*)");
    expect(text).toContain('Git origin: github.com/acme/project');
    expect(text).toContain('Git status: clean');
    expect(describeContext({ git_state: { error: 'not_a_repo' } })).toBe('Git: the working directory is not a git repository.');
  });

  it('takes any JSON without throwing, reads no prototype, and stays bounded', () => {
    const context = fc.dictionary(
      fc.constantFrom('permission_mode', 'live_cwd', 'home_dir', 'trusted_directories', 'rules', 'auto_mode', 'git_state', '__proto__', 'constructor'),
      fc.jsonValue({ maxDepth: 4 }),
    );
    fc.assert(
      fc.property(context, (value) => {
        const text = describeContext(JSON.parse(JSON.stringify(value)));
        expect(text.length).toBeLessThanOrEqual(16_000 + 10);
      }),
    );
    const huge = { auto_mode: { soft_deny: Array.from({ length: 500 }, (_, i) => `rule ${i} ${'x'.repeat(5000)}`) }, live_cwd: 'y'.repeat(100_000) };
    expect(describeContext(huge).length).toBeLessThanOrEqual(16_000 + 10);
  });
});

describe('the classifier request', () => {
  it("holds the user's own words, newest last, without the notes a client adds, and the call as data", () => {
    const words = userWords({
      ...request({}),
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'first ask' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'agent prose is never shown' }] },
        { role: 'user', content: [{ type: 'text', text: '<system-reminder>\nnote\n</system-reminder>' }, { type: 'text', text: 'second ask' }] },
      ],
    });
    expect(words).toEqual(['first ask', 'second ask']);
    const asked = classifierRequest('svc.intelligent-lite', { name: 'Bash', arguments: '{"command":"ls"}' }, 'Working directory: /w', words);
    expect(asked.model).toBe('svc.intelligent-lite');
    expect(asked.tools).toEqual([]);
    const question = (asked.messages[0]!.content[0] as { text: string }).text;
    expect(question).toContain('<tool_call>\nTool: Bash\nInput: {"command":"ls"}\n</tool_call>');
    expect(question).toContain('<message>\nsecond ask\n</message>');
    expect(question).not.toContain('agent prose');
  });
});

describe('safeguard_results as written', () => {
  it('keys each verdict by its tool_use id as an own key, whatever the id', () => {
    const [result] = verdictsFor([['__proto__', { type: 'evaluated', outcome: 'flagged', explanation: 'x' }]]);
    expect(JSON.parse(JSON.stringify(result))).toEqual({ type: 'dangerous_tool_use', status: { type: 'available', tool_uses: JSON.parse('{"__proto__":{"type":"evaluated","outcome":"flagged","explanation":"x"}}') } });
  });

  it("goes beside the message_delta fields the upstream sent, and tells an upstream's own answer", () => {
    const metadata = { anthropic: { stopReason: 'tool_use', messageDeltaExtra: { container: null } } };
    const amended = withSafeguardResults(metadata, NO_VERDICTS);
    expect(amended).toEqual({ anthropic: { stopReason: 'tool_use', messageDeltaExtra: { container: null, safeguard_results: NO_VERDICTS } } });
    expect(upstreamResults(metadata)).toBe(false);
    expect(upstreamResults(amended)).toBe(true);
    expect(upstreamResults({ anthropic: { replyExtra: { safeguard_results: [] } } })).toBe(true);
    expect(upstreamResults(undefined)).toBe(false);
  });
});
