import fs from 'node:fs';
import path from 'node:path';
import { encodeGguf, GgufType, readGgufMetadata, TensorType, type GgufTensor, type GgufValue } from './gguf.js';

/**
 * A Llama-architecture model with a real tokenizer vocabulary and a real chat template (both from
 * the llama.cpp source the server is built from) and seeded random weights: everything between the
 * bytes on the wire and the tokens is real (template rendering, tokenization and counts, context
 * limits, streaming), the text is gibberish. The same options give the same bytes.
 */
export interface RandomModelOptions {
  /** A vocabulary file in the source's `models/` (`ggml-vocab-<vocab>.gguf`). */
  vocab: string;
  /** A template in the source's `models/templates/` (`<template>.jinja`). */
  template: string;
  /** Appended to the vocabulary as control tokens when missing (the template's turn markers). */
  controlTokens: string[];
  /** Ends a turn: the model's end-of-sequence token. */
  eos: string;
  seed: number;
  embd: number;
  layers: number;
  heads: number;
  kvHeads: number;
  ff: number;
  context: number;
}

/** Llama 2's SentencePiece vocabulary (32k) with Qwen2.5's template, as the trained fixture model has. */
export const DEFAULT_RANDOM_MODEL: RandomModelOptions = {
  vocab: 'llama-spm',
  template: 'Qwen-Qwen2.5-7B-Instruct',
  controlTokens: ['<|im_start|>', '<|im_end|>'],
  eos: '<|im_end|>',
  seed: 42,
  embd: 64,
  layers: 2,
  heads: 4,
  kvHeads: 2,
  ff: 192,
  context: 4096,
};

/** Token types, as llama.cpp numbers them. */
const CONTROL_TOKEN = 3;

/** splitmix32: a small, well-mixed generator whose sequence is fixed by its seed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return ((z ^ (z >>> 16)) >>> 0) / 0x1_0000_0000;
  };
}

/** Normally distributed values (Box-Muller) with this standard deviation. */
function normals(random: () => number, count: number, std: number): Float32Array {
  const values = new Float32Array(count);
  for (let index = 0; index < count; index += 2) {
    const radius = Math.sqrt(-2 * Math.log(1 - random())) * std;
    const angle = 2 * Math.PI * random();
    values[index] = radius * Math.cos(angle);
    if (index + 1 < count) values[index + 1] = radius * Math.sin(angle);
  }
  return values;
}

const u32 = (value: number): GgufValue => ({ type: GgufType.u32, value });
const f32 = (value: number): GgufValue => ({ type: GgufType.f32, value });
const str = (value: string): GgufValue => ({ type: GgufType.string, value });

/** The model file's bytes, from the vocabulary and template in `vocabDir` and `templateDir`. */
export function makeRandomModel(options: RandomModelOptions, vocabDir: string, templateDir: string): Buffer {
  const source = readGgufMetadata(path.join(vocabDir, `ggml-vocab-${options.vocab}.gguf`));
  const template = fs.readFileSync(path.join(templateDir, `${options.template}.jinja`), 'utf8');
  const array = (key: string) => {
    const entry = source.get(key);
    if (entry?.type !== GgufType.array) throw new Error(`vocabulary ${options.vocab} has no ${key}`);
    return entry;
  };
  const tokens = array('tokenizer.ggml.tokens');
  const types = array('tokenizer.ggml.token_type');
  const scores = source.get('tokenizer.ggml.scores');
  const tokenList = [...tokens.items] as string[];
  const typeList = [...types.items];
  const scoreList = scores?.type === GgufType.array ? [...scores.items] : undefined;
  for (const control of options.controlTokens) {
    if (tokenList.includes(control)) continue;
    tokenList.push(control);
    typeList.push(CONTROL_TOKEN);
    scoreList?.push(0);
  }
  const vocabSize = tokenList.length;
  const eos = tokenList.indexOf(options.eos);
  if (eos < 0) throw new Error(`end-of-sequence token ${options.eos} is not in vocabulary ${options.vocab}`);
  const headDim = options.embd / options.heads;

  const metadata = new Map<string, GgufValue>([
    ['general.architecture', str('llama')],
    ['general.name', str(`random-llama-${options.vocab}-seed${options.seed}`)],
    ['general.file_type', u32(1)], // mostly F16
    ['llama.context_length', u32(options.context)],
    ['llama.embedding_length', u32(options.embd)],
    ['llama.block_count', u32(options.layers)],
    ['llama.feed_forward_length', u32(options.ff)],
    ['llama.attention.head_count', u32(options.heads)],
    ['llama.attention.head_count_kv', u32(options.kvHeads)],
    ['llama.attention.layer_norm_rms_epsilon', f32(1e-5)],
    ['llama.rope.dimension_count', u32(headDim)],
    ['llama.rope.freq_base', f32(10_000)],
    ['llama.vocab_size', u32(vocabSize)],
  ]);
  // The tokenizer as the vocabulary file has it (model, pre-tokenizer, merges, special ids), with the control tokens added.
  for (const [key, value] of source) if (key.startsWith('tokenizer.')) metadata.set(key, value);
  metadata.set('tokenizer.ggml.tokens', { ...tokens, items: tokenList });
  metadata.set('tokenizer.ggml.token_type', { ...types, items: typeList });
  if (scoreList && scores?.type === GgufType.array) metadata.set('tokenizer.ggml.scores', { ...scores, items: scoreList });
  metadata.set('tokenizer.ggml.eos_token_id', u32(eos));
  metadata.set('tokenizer.ggml.eot_token_id', u32(eos));
  metadata.set('tokenizer.ggml.add_bos_token', { type: GgufType.bool, value: false });
  metadata.set('tokenizer.chat_template', str(template));

  const random = seededRandom(options.seed);
  const matrix = (name: string, columns: number, rows: number): GgufTensor => ({ name, dims: [columns, rows], type: TensorType.f16, data: normals(random, columns * rows, 0.02) });
  const norm = (name: string): GgufTensor => ({ name, dims: [options.embd], type: TensorType.f32, data: new Float32Array(options.embd).fill(1) });
  const kvWidth = options.kvHeads * headDim;
  // No output.weight: llama.cpp then reads the output projection from token_embd (tied).
  const tensors: GgufTensor[] = [matrix('token_embd.weight', options.embd, vocabSize), norm('output_norm.weight')];
  for (let layer = 0; layer < options.layers; layer++) {
    const block = `blk.${layer}.`;
    tensors.push(
      norm(`${block}attn_norm.weight`),
      matrix(`${block}attn_q.weight`, options.embd, options.embd),
      matrix(`${block}attn_k.weight`, options.embd, kvWidth),
      matrix(`${block}attn_v.weight`, options.embd, kvWidth),
      matrix(`${block}attn_output.weight`, options.embd, options.embd),
      norm(`${block}ffn_norm.weight`),
      matrix(`${block}ffn_gate.weight`, options.embd, options.ff),
      matrix(`${block}ffn_up.weight`, options.embd, options.ff),
      matrix(`${block}ffn_down.weight`, options.ff, options.embd),
    );
  }
  return encodeGguf(metadata, tensors);
}

/** The file name a model with these options is cached under. */
export function randomModelName(options: RandomModelOptions): string {
  return `random-${options.vocab}-${options.template}-e${options.embd}l${options.layers}h${options.heads}kv${options.kvHeads}f${options.ff}c${options.context}-seed${options.seed}.gguf`;
}

/** The model for these options in `modelDir`, written first when it is not there (about a second). */
export function ensureRandomModel(options: RandomModelOptions, dirs: { vocabDir: string; templateDir: string; modelDir: string }): string {
  const file = path.join(dirs.modelDir, randomModelName(options));
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(dirs.modelDir, { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, makeRandomModel(options, dirs.vocabDir, dirs.templateDir));
  fs.renameSync(temporary, file);
  return file;
}
