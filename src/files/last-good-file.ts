import fs from 'node:fs';

/** What a version of the file says, or why it cannot be used (an error naming the file, line and column). */
export type FileReading<T> = { value: T } | { error: Error };

export interface LastGoodFileOptions<T> {
  /** The file's meaning, from its text. */
  parse(text: string): FileReading<T>;
  /** What the file's absence means before any version of it was in force; without it, absence is an error. */
  absent?: () => T;
  /**
   * Hears of each version refused while an earlier one stays in force (once per version), and of
   * each version taken after the first (`recovered` when it ends a refusal).
   */
  report(message: string): void;
  /** Told of every version taken; the first is `first`. Default: a version that ends a refusal is reported. */
  taken?(value: T, how: { first: boolean; recovered: boolean }): void;
  /** The error for a file that cannot be read (default: a plain Error with the message). */
  unreadable?(message: string): Error;
}

/**
 * A file svc-router reads while it runs (config.json, a declarative file), kept so that no version
 * of it can take the router down. A read looks at the file's stamp (inode, size, modification
 * time) and parses it again only when that changed. A version that cannot be used (not valid,
 * half-written by an editor, gone) leaves the last good one in force and is reported once; a fix
 * is taken on the first read after it is saved. The first read has nothing to fall back on: it
 * throws the parse error, so a command or a router starting on the file says where it is wrong.
 */
export class LastGoodFile<T> {
  private value: T | undefined;
  private hasValue = false;
  /**
   * The stamp and text last read, good or not: the same version is neither parsed nor reported
   * twice (undefined text: the file could not be read).
   */
  private seen: { stamp: string; text: string | undefined } | undefined;
  private refusing = false;

  constructor(
    readonly path: string,
    private readonly options: LastGoodFileOptions<T>,
  ) {}

  /** The version in force, without looking at the file (undefined before the first good read). */
  get inForce(): T | undefined {
    return this.value;
  }

  /**
   * The version in force, after taking a newer one if the file changed. `changed`: the caller
   * knows it did (a file-system event), so the text is read even when the stamp looks the same,
   * as it does after two saves of the same size within one tick of the file system's clock.
   */
  read(changed = false): T {
    const stamp = fileStamp(this.path);
    if (this.hasValue && !changed && stamp === this.seen?.stamp) return this.value as T;
    const text = this.readText();
    // Still unreadable in the same way (still absent, say): nothing new to take or to tell.
    if (this.hasValue && typeof text !== 'string' && this.seen?.text === undefined && stamp === this.seen?.stamp) return this.value as T;
    if (this.hasValue && typeof text === 'string' && text === this.seen?.text) {
      this.seen = { stamp, text };
      return this.value as T;
    }
    const reading = this.parse(text, !this.hasValue);
    const seenText = typeof text === 'string' ? text : undefined;
    if ('value' in reading) {
      const how = { first: !this.hasValue, recovered: this.refusing };
      this.value = reading.value;
      this.hasValue = true;
      this.seen = { stamp, text: seenText };
      this.refusing = false;
      if (this.options.taken) this.options.taken(reading.value, how);
      else if (how.recovered) this.options.report(`${this.path} is valid again; it is in force`);
      return reading.value;
    }
    if (!this.hasValue) throw reading.error;
    this.seen = { stamp, text: seenText };
    this.refusing = true;
    this.options.report(`${reading.error.message}\n  the previous version stays in force until the file is fixed`);
    return this.value as T;
  }

  /** The version on disk now, with no fallback: what a write must start from (never a broken file's stand-in). */
  readCurrent(): T {
    const reading = this.parse(this.readText(), true);
    if ('error' in reading) throw reading.error;
    return reading.value;
  }

  /** The file's text, or the error that kept it from being read. */
  private readText(): string | NodeJS.ErrnoException {
    try {
      return fs.readFileSync(this.path, 'utf8');
    } catch (error) {
      return error as NodeJS.ErrnoException;
    }
  }

  /** `absentMeansDefault`: a missing file is `absent()` (before anything was in force, or for a write), else an error. */
  private parse(text: string | NodeJS.ErrnoException, absentMeansDefault: boolean): FileReading<T> {
    if (typeof text === 'string') return this.options.parse(text);
    if (text.code === 'ENOENT' && this.options.absent && absentMeansDefault) return { value: this.options.absent() };
    const message = `cannot read ${this.path}: ${text.code ?? text.message}`;
    return { error: this.options.unreadable ? this.options.unreadable(message) : new Error(message) };
  }
}

/** Changes whenever the file is replaced (a rename), grows or shrinks, or is written. */
export function fileStamp(file: string): string {
  try {
    const stat = fs.statSync(file);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return 'missing';
  }
}
