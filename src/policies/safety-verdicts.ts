import type { Settings } from '../config/settings.js';
import { ClientGone } from '../core/client-signal.js';
import type { ProviderMetadata } from '../core/provider-metadata.js';
import type { StreamEvent } from '../core/stream-events.js';
import { deadlines } from '../core/timer-wheel.js';
import { warn } from '../core/warnings.js';
import type { Admission, Policy, PolicyInput } from './policy.js';
import { askedSafeguard, type AskedSafeguard } from './safety-verdicts/asked-safeguard.js';
import { classifierRequest, userWords } from './safety-verdicts/classifier-request.js';
import { describeContext } from './safety-verdicts/describe-context.js';
import { readVerdict } from './safety-verdicts/read-verdict.js';
import { NO_VERDICTS, upstreamResults, verdictsFor, withSafeguardResults, type SafeguardResult, type ToolUseVerdict } from './safety-verdicts/safeguard-results.js';

/**
 * Safety verdicts for Claude Code's auto mode on every route. Auto mode sends `safeguards` with each
 * request and reads a verdict per tool call from `message_delta.delta.safeguard_results`; Anthropic
 * answers that itself, so a route whose every target is an `anthropic` backend relays its answer
 * (the policy is inactive and the reply may be forwarded). On any other route the upstream answers
 * none, and this policy does: with `safeguards.classifier` set, each tool call is put to that route
 * (safety-verdicts/classifier-request.ts) as soon as its block is complete, all of them at once, and
 * the reply's `message_delta` waits for the verdicts, at most `safeguards.timeoutMs` after the last
 * call ended. Each question is billed as a request of its own by the caller (PolicyInput.consult).
 *
 * Every tool call gets the classifier's own verdict, or the reply gets none: with no classifier, or
 * one that fails, times out or answers something else than a verdict for any call, the reply says
 * the check is unavailable, and Claude Code asks the user about each call (NO_VERDICTS). A reply
 * without tool calls is answered `available` with no verdicts, as Anthropic's is.
 */
export const safetyVerdicts: Policy = {
  name: 'safety-verdicts',
  admit(input) {
    const asked = askedSafeguard(input.request);
    if (!asked) return undefined;
    const targets = input.targets ?? [];
    if (targets.length && targets.every((target) => answersSafeguards(input.settings, target.backend))) return undefined;
    return new SafetyVerdicts(input, asked);
  },
};

/** An Anthropic backend is sent `safeguards` in the client's own body and answers them itself. */
function answersSafeguards(settings: Settings, backend: string): boolean {
  return Object.hasOwn(settings.backends, backend) && settings.backends[backend]!.type === 'anthropic';
}

/** Tool calls judged in one reply (Claude Code's own bound on the ids it sends back); past it, none is. */
const MAX_CALLS = 64;
/** A call's arguments are judged whole or not at all: past this the reply gets no verdict. */
const MAX_ARGUMENT_CHARS = 32_000;

interface ToolCall {
  id: string;
  name: string;
  arguments: string;
  tooLong: boolean;
  /** Its verdict on the way, once asked for; undefined inside: the classifier gave none. */
  verdict?: Promise<ToolUseVerdict | undefined>;
}

/** Why a reply got no verdicts, for svc_meta.warnings (never a value from the call). */
const NO_CLASSIFIER = 'no classifier is set (svc-router config set safeguards.classifier ROUTE)';
const CLASSIFIER_FAILED = 'the classifier route failed, timed out or gave no clear verdict';
const TOO_MANY = 'too many tool calls to judge';
const TOO_LONG = 'a tool call was too large to judge';

class SafetyVerdicts implements Admission {
  readonly note: string;
  private readonly classifier: string | undefined;
  private readonly timeoutMs: number;
  /** Whether the answering upstream runs the check itself: decided on the reply's first batch. */
  private upstreamJudges: boolean | undefined;
  private readonly calls: ToolCall[] = [];
  private readonly open = new Map<string, ToolCall>();
  private tooMany = false;
  /** A question failed: no verdicts for this reply, and no more questions. */
  private failed = false;
  /** The reply's finish was seen, or the reply failed: nothing more is read. */
  private done = false;
  private batches = 0;
  /** What the reply's end gets; undefined: the upstream's own answer stands, or the reply never ended. */
  private results: readonly SafeguardResult[] | undefined;
  private readonly pending = new Set<ClientGone>();
  private described: string | undefined;

  constructor(
    private readonly input: PolicyInput,
    private readonly asked: AskedSafeguard,
  ) {
    const { classifier, timeoutMs } = input.settings.safeguards;
    this.classifier = classifier && input.consult ? classifier : undefined;
    this.timeoutMs = timeoutMs;
    this.note = this.classifier ? `verdicts by ${this.classifier}` : 'no classifier';
  }

  inspect(batch: readonly StreamEvent[]): void | Promise<void> {
    if (this.done) return;
    this.batches++;
    this.upstreamJudges ??= this.input.answeringBackend?.wireFormat === 'messages';
    for (const event of batch) {
      switch (event.type) {
        case 'tool-call-start':
          this.begin(event.id, event.name);
          break;
        case 'tool-call-delta': {
          const call = this.open.get(event.id);
          if (call && !call.tooLong) {
            if (call.arguments.length + event.argumentsDelta.length > MAX_ARGUMENT_CHARS) call.tooLong = true;
            else call.arguments += event.argumentsDelta;
          }
          break;
        }
        case 'tool-call-end':
          this.end(event.id);
          break;
        case 'error':
          this.close();
          return;
        case 'finish':
          this.done = true;
          return this.judge(event.providerMetadata);
        default:
          break;
      }
    }
  }

  amendFinish(providerMetadata: ProviderMetadata | undefined): ProviderMetadata | undefined {
    return this.results ? withSafeguardResults(providerMetadata, this.results) : providerMetadata;
  }

  /** A stream that ended without its finish (cut off, failed) needs no verdicts: questions still out are stopped. */
  settle(): void {
    if (this.batches > 0 && !this.done) this.close();
  }

  release(): void {
    this.close();
  }

  private begin(id: string, name: string): void {
    if (this.open.has(id) || this.calls.some((call) => call.id === id)) return;
    if (this.calls.length + this.open.size >= MAX_CALLS) {
      this.tooMany = true;
      return;
    }
    this.open.set(id, { id, name, arguments: '', tooLong: false });
  }

  /** A complete call: asked about at once, unless the upstream may answer for it. */
  private end(id: string): void {
    const call = this.open.get(id);
    if (!call) return;
    this.open.delete(id);
    this.calls.push(call);
    if (!this.upstreamJudges && this.mayAsk()) call.verdict = this.classify(call);
  }

  private mayAsk(): boolean {
    return this.classifier !== undefined && !this.failed && !this.tooMany && this.calls.every((call) => !call.tooLong);
  }

  /** At the reply's end: a verdict for every call, or none. */
  private judge(providerMetadata: ProviderMetadata | undefined): Promise<void> | undefined {
    if (this.upstreamJudges && upstreamResults(providerMetadata)) return undefined;
    // A call the upstream never closed is judged as it stands.
    for (const id of [...this.open.keys()]) this.end(id);
    if (!this.calls.length && !this.tooMany) {
      this.results = verdictsFor([]);
      return undefined;
    }
    if (!this.mayAsk()) return this.noVerdicts();
    for (const call of this.calls) call.verdict ??= this.classify(call);
    return Promise.all(this.calls.map((call) => call.verdict)).then((verdicts) => {
      if (!this.failed && verdicts.every((verdict) => verdict !== undefined)) {
        this.results = verdictsFor(this.calls.map((call, i) => [call.id, verdicts[i]!] as const));
      } else this.noVerdicts();
    });
  }

  private noVerdicts(): undefined {
    this.stopQuestions();
    this.results = NO_VERDICTS;
    const why = this.classifier === undefined ? NO_CLASSIFIER : this.tooMany ? TOO_MANY : this.calls.some((call) => call.tooLong) ? TOO_LONG : CLASSIFIER_FAILED;
    warn(this.input.request, `Auto mode got no safety verdicts: ${why}; Claude Code asks the user about each tool call.`);
    return undefined;
  }

  /**
   * One call put to the classifier route, bounded by the timeout: its verdict, or undefined when
   * the route failed, timed out or answered something else. One failure ends the others' wait.
   */
  private classify(call: ToolCall): Promise<ToolUseVerdict | undefined> {
    const classifier = this.classifier!;
    const stop = new ClientGone();
    this.pending.add(stop);
    const timer = deadlines.after(this.timeoutMs, () => stop.abort());
    const gaveUp = new Promise<undefined>((resolve) => stop.addEventListener('abort', { handleEvent: () => resolve(undefined) }));
    const request = classifierRequest(classifier, call, (this.described ??= describeContext(this.asked.context)), userWords(this.input.request));
    const answered = this.input.consult!(classifier, request, stop).then(
      (reply) => readVerdict(reply),
      () => undefined,
    );
    return Promise.race([answered, gaveUp]).then((verdict): ToolUseVerdict | undefined => {
      timer.cancel();
      this.pending.delete(stop);
      if (!verdict) {
        this.failed = true;
        this.stopQuestions();
        return undefined;
      }
      return verdict.outcome === 'flagged'
        ? { type: 'evaluated', outcome: 'flagged', explanation: verdict.reason ?? `Flagged by ${classifier}.` }
        : { type: 'evaluated', outcome: 'not_flagged' };
    });
  }

  /** The reply failed or was cut off: nothing more is read, and no question stays out. */
  private close(): void {
    this.done = true;
    this.stopQuestions();
  }

  private stopQuestions(): void {
    for (const pending of [...this.pending]) pending.abort();
    this.pending.clear();
  }
}
