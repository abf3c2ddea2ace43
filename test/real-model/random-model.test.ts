import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GgufType, readGgufMetadata } from './gguf.js';
import { BUILD_HOOK_TIMEOUT_MS, ensureLlamaServer, LLAMA_TEMPLATE_DIR, LLAMA_VOCAB_DIR, realModelUnavailable } from './llama-build.js';
import { DEFAULT_RANDOM_MODEL, ensureRandomModel, makeRandomModel } from './random-model.js';

/** The model generator: the same seed gives the same file, and the file is the model it says. */

const unavailable = await realModelUnavailable();
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-random-model-'));

beforeAll(async () => {
  if (!unavailable) await ensureLlamaServer();
}, BUILD_HOOK_TIMEOUT_MS);
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe.skipIf(unavailable)('the random-weights model generator', () => {
  it('writes the same bytes for a seed and different weights for another', () => {
    const first = makeRandomModel(DEFAULT_RANDOM_MODEL, LLAMA_VOCAB_DIR, LLAMA_TEMPLATE_DIR);
    const again = makeRandomModel(DEFAULT_RANDOM_MODEL, LLAMA_VOCAB_DIR, LLAMA_TEMPLATE_DIR);
    const other = makeRandomModel({ ...DEFAULT_RANDOM_MODEL, seed: DEFAULT_RANDOM_MODEL.seed + 1 }, LLAMA_VOCAB_DIR, LLAMA_TEMPLATE_DIR);
    expect(again.equals(first)).toBe(true);
    expect(other.length).toBe(first.length);
    expect(other.equals(first)).toBe(false);
  });

  it('carries the real vocabulary with the template\'s turn markers as control tokens, the template and the Llama hyperparameters', () => {
    const file = ensureRandomModel(DEFAULT_RANDOM_MODEL, { vocabDir: LLAMA_VOCAB_DIR, templateDir: LLAMA_TEMPLATE_DIR, modelDir: scratch });
    const model = readGgufMetadata(file);
    const vocab = readGgufMetadata(path.join(LLAMA_VOCAB_DIR, `ggml-vocab-${DEFAULT_RANDOM_MODEL.vocab}.gguf`));
    const items = (key: string, from = model) => {
      const entry = from.get(key);
      return entry?.type === GgufType.array ? entry.items : [];
    };
    const value = (key: string) => {
      const entry = model.get(key);
      return entry && entry.type !== GgufType.array ? entry.value : undefined;
    };
    const tokens = items('tokenizer.ggml.tokens');
    expect(tokens.slice(0, -2)).toEqual(items('tokenizer.ggml.tokens', vocab));
    expect(tokens.slice(-2)).toEqual(['<|im_start|>', '<|im_end|>']);
    expect(items('tokenizer.ggml.token_type').slice(-2)).toEqual([3, 3]);
    expect(value('tokenizer.ggml.eos_token_id')).toBe(tokens.indexOf('<|im_end|>'));
    expect(value('tokenizer.chat_template')).toBe(fs.readFileSync(path.join(LLAMA_TEMPLATE_DIR, `${DEFAULT_RANDOM_MODEL.template}.jinja`), 'utf8'));
    expect(value('general.architecture')).toBe('llama');
    expect(value('llama.embedding_length')).toBe(DEFAULT_RANDOM_MODEL.embd);
    expect(value('llama.block_count')).toBe(DEFAULT_RANDOM_MODEL.layers);
    expect(value('llama.vocab_size')).toBe(tokens.length);
    // Cached: asked again, the file is not rewritten.
    const written = fs.statSync(file).mtimeMs;
    expect(ensureRandomModel(DEFAULT_RANDOM_MODEL, { vocabDir: LLAMA_VOCAB_DIR, templateDir: LLAMA_TEMPLATE_DIR, modelDir: scratch })).toBe(file);
    expect(fs.statSync(file).mtimeMs).toBe(written);
  });
});
