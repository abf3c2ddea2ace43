import type { ProviderMetadata } from '../../core/provider-metadata.js';
import type { GeminiPart } from '../../wire/gemini/types.js';
import { signatureOf } from '../../wire/gemini/thought-signature.js';
import { sealReasoning } from '../responses/seal-reasoning.js';

/**
 * Writes an answer's parts as Gemini parts, for a JSON reply and a stream alike. Thought summaries
 * are written only when the client asked for them (`includeThoughts`), as Gemini does.
 *
 * Signatures: a Gemini upstream's thoughtSignature goes back on the part it came on. Reasoning
 * another upstream made (an Anthropic thinking signature, OpenAI's encrypted reasoning, the plain
 * reasoning DeepSeek wants sent back) is sealed with the model that wrote it
 * (../responses/seal-reasoning.ts) into the thoughtSignature of the next part of the answer that is
 * not a thought, the part Gemini's clients keep and replay (Gemini CLI keeps a function call's
 * signature; thought parts it drops): decode-contents.ts puts the reasoning back before that part.
 * With no such part after it, the seal rides on a thought part of its own.
 */
export class PartWriter {
  /** The seal waiting for the next part that is not a thought. */
  private pending: string | undefined;

  constructor(
    private readonly includeThoughts: boolean,
    private readonly secret: string,
    /** The upstream model that answered, read when a seal is made (a stream knows it once an attempt answers). */
    private readonly writer: () => string | undefined = () => undefined,
  ) {}

  /**
   * A whole reasoning part. `streamed`: its text has gone out already, piece by piece
   * (reasoningDelta), and this is its end. Reasoning with Gemini's own signature keeps it on its
   * thought part; any other (another provider's signed or encrypted reasoning, or plain text an
   * upstream wants back, as DeepSeek does) is sealed for the next part that is not a thought.
   */
  reasoning(text: string, metadata: ProviderMetadata | undefined, streamed = false, wroteIt?: string): GeminiPart[] {
    const out = this.flush();
    const own = signatureOf(metadata);
    const shown = this.includeThoughts && text !== '' && !streamed;
    if (own) return [...out, { text: shown ? text : '', thought: true, thoughtSignature: own }];
    if (shown) out.push({ text, thought: true });
    const carries = text !== '' || (metadata !== undefined && Object.keys(metadata).length > 0);
    // The seal records who wrote the reasoning, so a later request reaching a model that cannot read it replays only what it can.
    const writer = wroteIt ?? this.writer();
    if (carries && this.secret) this.pending = sealReasoning({ type: 'reasoning', text, ...(metadata ? { providerMetadata: metadata } : {}), ...(writer ? { writer } : {}) }, this.secret);
    return out;
  }

  /** A thought's text as it streams; its signature comes with its end (reasoning('', metadata)). */
  reasoningDelta(text: string): GeminiPart[] {
    return this.includeThoughts && text ? [{ text, thought: true }] : [];
  }

  /**
   * The signature a part that is not a thought carries: its own (a seal still waiting then goes
   * first, on a thought part of its own, so the order holds), else the seal waiting for it.
   */
  carried(metadata: ProviderMetadata | undefined): { before: GeminiPart[]; signature: { thoughtSignature?: string } } {
    const own = signatureOf(metadata);
    if (own) return { before: this.flush(), signature: { thoughtSignature: own } };
    const seal = this.pending;
    this.pending = undefined;
    return { before: [], signature: seal ? { thoughtSignature: seal } : {} };
  }

  text(text: string, metadata: ProviderMetadata | undefined): GeminiPart[] {
    const { before, signature } = this.carried(metadata);
    return [...before, { text, ...signature }];
  }

  call(id: string, name: string, args: string, metadata: ProviderMetadata | undefined): GeminiPart[] {
    const { before, signature } = this.carried(metadata);
    return [...before, { functionCall: { id, name, args: parseArguments(args) }, ...signature }];
  }

  /** A seal nothing carried: a thought part of its own, so it is not lost. */
  flush(): GeminiPart[] {
    const seal = this.pending;
    this.pending = undefined;
    return seal ? [{ text: '', thought: true, thoughtSignature: seal }] : [];
  }
}

/** Gemini's args are a JSON object; text a model produced that is not one is kept under `_raw`. */
function parseArguments(args: string): Record<string, unknown> {
  if (args.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(args);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    return { _raw: args };
  }
}
