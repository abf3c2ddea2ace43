import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { translatableOrRefuse } from '../../../src/core/same-format-only.js';
import { ANTHROPIC_BETAS } from '../../../src/formats/messages/beta-features.js';
import { decodeMessagesRequest } from '../../../src/formats/messages/decode-request.js';

const body = (extra: Record<string, unknown> = {}) => ({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], ...extra });
const warningsFor = (json: unknown, beta?: string) => translatableOrRefuse(decodeMessagesRequest(json, { secret: 's', headers: beta === undefined ? {} : { 'anthropic-beta': beta } }).request);

describe('anthropic-beta on a translating route', () => {
  it('names exactly the betas with no counterpart elsewhere, and any it does not know', () => {
    const named = [...ANTHROPIC_BETAS].filter(([, entry]) => entry.handling === 'named').map(([beta]) => beta);
    const honoured = [...ANTHROPIC_BETAS].filter(([, entry]) => entry.handling !== 'named').map(([beta]) => beta);
    const warnings = warningsFor(body(), [...honoured, ...named, 'brand-new-feature-2027-01-01'].join(', ')).join('\n');
    for (const beta of [...named, 'brand-new-feature-2027-01-01']) expect(warnings).toContain(`${beta} is honoured only by an Anthropic upstream`);
    for (const beta of honoured) expect(warnings).not.toContain(`${beta} is honoured`);
  });

  it('names each beta once, however the header repeats or spaces it, and never more than a bounded number one by one', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z0-9-]{1,12}$/), { maxLength: 80 }), (betas) => {
        const warnings = warningsFor(body(), betas.concat(betas).join(' , '));
        const distinct = new Set(betas.filter((beta) => !ANTHROPIC_BETAS.has(beta) || ANTHROPIC_BETAS.get(beta)!.handling === 'named'));
        expect(warnings.length).toBeLessThanOrEqual(33);
        if (new Set(betas).size <= 32) expect(warnings.length).toBe(distinct.size);
      }),
    );
  });
});

describe('a replayed tool call\'s caller', () => {
  const replay = (caller: unknown) =>
    body({
      messages: [
        { role: 'user', content: 'run it' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: {}, caller }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'done' }] },
      ],
    });

  it('says nothing of a direct call, and names one made from code execution', () => {
    expect(warningsFor(replay({ type: 'direct' }))).toEqual([]);
    const warnings = warningsFor(replay({ type: 'code_execution_20250825', tool_id: 'srvtoolu_1' }));
    expect(warnings).toEqual([expect.stringContaining("messages.1.content.0.caller: a tool call made by 'code_execution_20250825'")]);
  });
});
