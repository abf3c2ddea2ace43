/**
 * Checking JSON text without building it: the same-format path passes most upstream frames to the
 * client unparsed, yet each must be one valid event, as JSON.parse makes sure on the translated
 * path. One pass by the grammar JSON.parse reads (RFC 8259, https://www.rfc-editor.org/rfc/rfc8259),
 * which also meets the members the caller reads, so a frame is checked and read at once. Nothing is
 * allocated but a nesting stack kept between calls. String bodies, most of a frame, are crossed by
 * native searches (the closing quote, the next backslash, the next control character), not a
 * character at a time; only structure, numbers and escapes are read one by one.
 */

/**
 * Told of each member whose key is one of the walk's keys, at any depth, in the order of the text:
 * the key's index in that list, where its value starts, just past the value's closing quote when it
 * is a string (else -1), and its depth (1: a member of the top-level object). Told before the walk
 * knows whether the whole text is valid: what it notes counts only if the walk returns true. It
 * must not start another walk (the nesting stack is shared).
 */
export type MemberVisitor = (key: number, value: number, stringEnd: number, depth: number) => void;

const NO_KEYS: readonly string[] = [];
const ignore: MemberVisitor = () => undefined;

/** Whether `text` is one JSON object (JSON whitespace around it allowed): exactly when JSON.parse reads an object from it. */
export const isJsonObject = (text: string): boolean => walkJsonObject(text, NO_KEYS, ignore);

/** A control character, which JSON allows in no string (only, outside strings, as whitespace). */
const CONTROL = /[\u0000-\u001f]/g;

/** Whether the innermost open container at each depth is an object; grown for deep text, let go of after it. */
const SMALL_STACK = 64;
let inObjectAt: Uint8Array = new Uint8Array(SMALL_STACK);

/**
 * Walks `text`, telling `visit` of the members named by `keys` (see MemberVisitor). True exactly
 * when JSON.parse would read one JSON object from the text. A key written with escapes is that key,
 * as it is to JSON.parse.
 */
export function walkJsonObject(text: string, keys: readonly string[], visit: MemberVisitor, memo?: WalkMemo): boolean {
  const length = text.length;
  let i = 0;
  let c: number;
  let depth = 0;
  let inObject = false;
  /** The string at `i` is a member's key. */
  let atKey = false;
  /** The index in `keys` of the member whose value is at `i`, or -1. */
  let member = -1;
  let stack = inObjectAt;
  const resumable = memo === undefined ? -1 : memo.resumeAt(text);
  if (resumable !== -1) {
    // The text begins as the last one did up to a member's value: the walk takes up from there.
    while (memo!.depthAt(resumable) >= stack.length) stack = grow();
    const state = memo!.resume(resumable, visit, stack);
    i = state.at;
    depth = state.depth;
    member = state.member;
    // A member's value: its container is an object. This text may space it further from its key.
    inObject = true;
    c = text.charCodeAt(i);
    while (isSpace(c)) c = text.charCodeAt(++i);
  } else {
    memo?.restart();
    c = text.charCodeAt(0);
    while (isSpace(c)) c = text.charCodeAt(++i);
    if (c !== 123) return done(false, memo, text);
  }
  // The first backslash and control character at or after where strings were last read (`length` when none).
  let slash = text.indexOf('\\', i);
  if (slash === -1) slash = length;
  CONTROL.lastIndex = i;
  let control = CONTROL.test(text) ? CONTROL.lastIndex - 1 : length;

  // Each turn starts at a key or a value, `c` its first character; a value goes on to "after".
  token: for (;;) {
    if (c === 34) {
      const start = i;
      let escaped = false;
      for (let from = i + 1; ; ) {
        const quote = text.indexOf('"', from);
        if (quote === -1) return done(false, memo, text);
        if (slash < from) {
          slash = text.indexOf('\\', from);
          if (slash === -1) slash = length;
        }
        if (slash > quote) {
          i = quote + 1;
          break;
        }
        // An escape before the quote (which may be its own): one of JSON's, and read on after it.
        escaped = true;
        const e = text.charCodeAt(slash + 1);
        if (e === 117) {
          if (!(isHex(text.charCodeAt(slash + 2)) && isHex(text.charCodeAt(slash + 3)) && isHex(text.charCodeAt(slash + 4)) && isHex(text.charCodeAt(slash + 5)))) return done(false, memo, text);
          from = slash + 6;
        } else if (e === 34 || e === 92 || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) {
          from = slash + 2;
        } else {
          return done(false, memo, text);
        }
      }
      if (control < i) {
        // The one found last lay before this string (whitespace): look again from here.
        if (control < start) {
          CONTROL.lastIndex = start;
          control = CONTROL.test(text) ? CONTROL.lastIndex - 1 : length;
        }
        if (control < i) return done(false, memo, text);
      }
      if (atKey) {
        atKey = false;
        member = keys.length ? keyIndex(text, start, i, escaped, keys) : -1;
        c = text.charCodeAt(i);
        while (isSpace(c)) c = text.charCodeAt(++i);
        if (c !== 58) return done(false, memo, text);
        c = text.charCodeAt(++i);
        while (isSpace(c)) c = text.charCodeAt(++i);
        continue;
      }
      if (member !== -1) {
        memo?.note(member, start, i, depth, stack);
        visit(member, start, i, depth);
      }
    } else {
      if (atKey) return done(false, memo, text);
      if (member !== -1) {
        memo?.note(member, i, -1, depth, stack);
        visit(member, i, -1, depth);
      }
      if (c === 123 || c === 91) {
        inObject = c === 123;
        if (++depth === stack.length) stack = grow();
        stack[depth] = inObject ? 1 : 0;
        c = text.charCodeAt(++i);
        while (isSpace(c)) c = text.charCodeAt(++i);
        member = -1;
        if (c !== (inObject ? 125 : 93)) {
          atKey = inObject;
          continue;
        }
        inObject = stack[--depth] === 1;
        i++;
      } else if (c === 45 || (c >= 48 && c <= 57)) {
        // -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
        if (c === 45) c = text.charCodeAt(++i);
        if (c === 48) c = text.charCodeAt(++i);
        else if (c > 48 && c <= 57) while (isDigit((c = text.charCodeAt(++i))));
        else return done(false, memo, text);
        if (c === 46) {
          if (!isDigit(text.charCodeAt(++i))) return done(false, memo, text);
          while (isDigit((c = text.charCodeAt(++i))));
        }
        if (c === 101 || c === 69) {
          c = text.charCodeAt(++i);
          if (c === 43 || c === 45) i++;
          if (!isDigit(text.charCodeAt(i))) return done(false, memo, text);
          while (isDigit(text.charCodeAt(++i)));
        }
      } else if (c === 110 ? text.startsWith('null', i) : c === 116 ? text.startsWith('true', i) : c === 102 && text.startsWith('false', i)) {
        i += c === 102 ? 5 : 4;
      } else {
        return done(false, memo, text);
      }
    }
    member = -1;
    // After a value: a comma and the next key or item, or the end of its container.
    for (;;) {
      c = text.charCodeAt(i);
      while (isSpace(c)) c = text.charCodeAt(++i);
      if (depth === 0) return done(i === length, memo, text);
      if (c === 44) {
        c = text.charCodeAt(++i);
        while (isSpace(c)) c = text.charCodeAt(++i);
        atKey = inObject;
        continue token;
      }
      if (c !== (inObject ? 125 : 93)) return done(false, memo, text);
      inObject = stack[--depth] === 1;
      i++;
    }
  }
}

/** The index in `keys` of the key string `text[start, end)`, or -1; one written with escapes is read as JSON.parse reads it. */
function keyIndex(text: string, start: number, end: number, escaped: boolean, keys: readonly string[]): number {
  if (escaped) return keys.indexOf(JSON.parse(text.slice(start, end)) as string);
  const length = end - start - 2;
  const first = text.charCodeAt(start + 1);
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    if (key.length === length && key.charCodeAt(0) === first && text.startsWith(key, start + 1)) return k;
  }
  return -1;
}

const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);

function grow(): Uint8Array {
  const bigger = new Uint8Array(inObjectAt.length * 2);
  bigger.set(inObjectAt);
  return (inObjectAt = bigger);
}

/** Ends a walk: a stack grown for deep text is let go of, so one such frame holds no memory after it; the memo keeps what a valid walk leaves. */
function done(valid: boolean, memo: WalkMemo | undefined, text: string): boolean {
  if (inObjectAt.length > SMALL_STACK) inObjectAt = new Uint8Array(SMALL_STACK);
  memo?.end(valid, text);
  return valid;
}

/**
 * What a walk leaves for the next text of a series (a stream's frames, which begin alike: Chat's
 * id, object, created, model …; Anthropic's type, index, delta type): for each member it told of,
 * where its value starts and the walker's state there. A text that begins with the last one's text
 * up to one of those values is walked from the latest such value, told first of the members before
 * it as a walk from the start would tell it: the same text up to there gives the same state. Kept
 * only from a text found valid; one memo per series, used with one list of keys.
 */
export class WalkMemo {
  /** The last text walked, when it was valid (else empty). */
  private text = '';
  /** Members told of in it (and in the walk in progress, which writes over them from where it took up). */
  private count = 0;
  /** Four numbers per member: its key's index, where its value starts, the string's end (or -1), its depth. */
  private readonly visits: number[] = [];
  /** Container kinds at depths 0 … depth at each member's value, packed; `stackAt` gives where each member's begin. */
  private readonly stacks: number[] = [];
  private readonly stackAt: number[] = [];

  /** The member a walk took up at last time: a stream's frames part from each other at the same member, so it is tried first. */
  private lastResumed = -1;

  /**
   * The member whose value a walk of `text` can take up at, or -1: the one taken up at last time
   * when it still fits (or the next member, when that fits too: so a stream whose first frames
   * part early moves on to where its deltas part), else the latest whose text up to its value is
   * the same.
   */
  resumeAt(text: string): number {
    if (this.text === '') return -1;
    const tried = this.lastResumed;
    if (tried !== -1 && tried < this.count && this.fits(text, tried)) {
      const next = tried + 1;
      return next < this.count && this.fits(text, next) ? (this.lastResumed = next) : tried;
    }
    for (let member = this.count - 1; member >= 0; member--) {
      if (member !== tried && this.fits(text, member)) return (this.lastResumed = member);
    }
    return -1;
  }

  /** Whether `text` is the last text up to `member`'s value, and goes on past it (equal slices compare natively; startsWith reads a character at a time). */
  private fits(text: string, member: number): boolean {
    const at = this.visits[member * 4 + 1]!;
    return text.length > at && text.slice(0, at) === this.text.slice(0, at);
  }

  /** Takes up a walk at member `index`'s value: tells `visit` of the members before it, and gives back the state there (the stack copied into `stack`). */
  resume(index: number, visit: MemberVisitor, stack: Uint8Array): { at: number; depth: number; member: number } {
    const visits = this.visits;
    for (let v = 0; v < index * 4; v += 4) visit(visits[v]!, visits[v + 1]!, visits[v + 2]!, visits[v + 3]!);
    this.count = index;
    const depth = visits[index * 4 + 3]!;
    const from = this.stackAt[index]!;
    for (let d = 0; d <= depth; d++) stack[d] = this.stacks[from + d]!;
    return { at: visits[index * 4 + 1]!, depth, member: visits[index * 4]! };
  }

  restart(): void {
    this.count = 0;
  }

  depthAt(index: number): number {
    return this.visits[index * 4 + 3]!;
  }

  note(member: number, value: number, stringEnd: number, depth: number, stack: Uint8Array): void {
    const index = this.count++;
    const from = index === 0 ? 0 : this.stackAt[index - 1]! + this.visits[index * 4 - 1]! + 1;
    this.visits[index * 4] = member;
    this.visits[index * 4 + 1] = value;
    this.visits[index * 4 + 2] = stringEnd;
    this.visits[index * 4 + 3] = depth;
    this.stackAt[index] = from;
    for (let d = 0; d <= depth; d++) this.stacks[from + d] = stack[d]!;
  }

  end(valid: boolean, text: string): void {
    this.text = valid && text.length <= LARGEST_KEPT ? text : '';
  }
}

/**
 * A memo keeps the last text, so a stream holds one frame more between its frames: none past this
 * size (a frame this long is mostly its text, which the walk crosses natively anyway).
 */
const LARGEST_KEPT = 64 * 1024;

