import fs from 'node:fs';

/**
 * Just enough of GGUF (version 3) to read a vocabulary file's metadata and write a model: a header,
 * typed key/value metadata, tensor descriptions, then the tensor data, each tensor aligned.
 * https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
 */

const MAGIC = 0x46554747; // "GGUF", little-endian
const VERSION = 3;
const ALIGNMENT = 32;

/** Metadata value types, as numbered in the spec. */
export const GgufType = { u8: 0, i8: 1, u16: 2, i16: 3, u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9, u64: 10, i64: 11, f64: 12 } as const;
type ScalarType = Exclude<(typeof GgufType)[keyof typeof GgufType], 9>;

export type GgufValue =
  | { type: ScalarType; value: number | bigint | boolean | string }
  | { type: typeof GgufType.array; itemType: ScalarType; items: Array<number | bigint | boolean | string> };

/** Tensor element types used here (ggml_type numbering). */
export const TensorType = { f32: 0, f16: 1 } as const;

export interface GgufTensor {
  name: string;
  /** ggml order: the first dimension is the one that varies fastest. */
  dims: number[];
  type: (typeof TensorType)[keyof typeof TensorType];
  /** Row-major in ggml order; written as f32 or rounded to f16. */
  data: Float32Array;
}

/** Reads the metadata of a GGUF file (tensor data left unread), in file order. */
export function readGgufMetadata(file: string): Map<string, GgufValue> {
  const buffer = fs.readFileSync(file);
  let at = 0;
  const u32 = () => ((at += 4), buffer.readUInt32LE(at - 4));
  const u64 = () => ((at += 8), buffer.readBigUInt64LE(at - 8));
  const string = () => {
    const length = Number(u64());
    at += length;
    return buffer.toString('utf8', at - length, at);
  };
  const scalar = (type: number): number | bigint | boolean | string => {
    switch (type) {
      case GgufType.u8: return buffer.readUInt8((at += 1) - 1);
      case GgufType.i8: return buffer.readInt8((at += 1) - 1);
      case GgufType.u16: return buffer.readUInt16LE((at += 2) - 2);
      case GgufType.i16: return buffer.readInt16LE((at += 2) - 2);
      case GgufType.u32: return u32();
      case GgufType.i32: return buffer.readInt32LE((at += 4) - 4);
      case GgufType.f32: return buffer.readFloatLE((at += 4) - 4);
      case GgufType.bool: return buffer.readUInt8((at += 1) - 1) !== 0;
      case GgufType.string: return string();
      case GgufType.u64: return u64();
      case GgufType.i64: return buffer.readBigInt64LE((at += 8) - 8);
      case GgufType.f64: return buffer.readDoubleLE((at += 8) - 8);
      default: throw new Error(`${file}: unknown GGUF value type ${type} at byte ${at}`);
    }
  };
  if (u32() !== MAGIC) throw new Error(`${file} is not a GGUF file`);
  const version = u32();
  if (version !== 2 && version !== 3) throw new Error(`${file}: GGUF version ${version} is not read here`);
  u64(); // tensor count: the data is not read
  const count = Number(u64());
  const metadata = new Map<string, GgufValue>();
  for (let index = 0; index < count; index++) {
    const key = string();
    const type = u32();
    if (type === GgufType.array) {
      const itemType = u32() as ScalarType;
      const length = Number(u64());
      const items = new Array<number | bigint | boolean | string>(length);
      for (let item = 0; item < length; item++) items[item] = scalar(itemType);
      metadata.set(key, { type: GgufType.array, itemType, items });
    } else {
      metadata.set(key, { type: type as ScalarType, value: scalar(type) });
    }
  }
  return metadata;
}

/** A growing little-endian buffer. */
class Writer {
  private buffer = Buffer.alloc(1 << 20);
  length = 0;

  private room(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.alloc(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  u8(value: number) { this.room(1); this.buffer.writeUInt8(value, this.length); this.length += 1; }
  i8(value: number) { this.room(1); this.buffer.writeInt8(value, this.length); this.length += 1; }
  u16(value: number) { this.room(2); this.buffer.writeUInt16LE(value, this.length); this.length += 2; }
  i16(value: number) { this.room(2); this.buffer.writeInt16LE(value, this.length); this.length += 2; }
  u32(value: number) { this.room(4); this.buffer.writeUInt32LE(value, this.length); this.length += 4; }
  i32(value: number) { this.room(4); this.buffer.writeInt32LE(value, this.length); this.length += 4; }
  f32(value: number) { this.room(4); this.buffer.writeFloatLE(value, this.length); this.length += 4; }
  f64(value: number) { this.room(8); this.buffer.writeDoubleLE(value, this.length); this.length += 8; }
  u64(value: number | bigint) { this.room(8); this.buffer.writeBigUInt64LE(BigInt(value), this.length); this.length += 8; }
  i64(value: number | bigint) { this.room(8); this.buffer.writeBigInt64LE(BigInt(value), this.length); this.length += 8; }
  string(value: string) {
    const bytes = Buffer.from(value, 'utf8');
    this.u64(bytes.length);
    this.room(bytes.length);
    bytes.copy(this.buffer, this.length);
    this.length += bytes.length;
  }
  pad(alignment: number) {
    const padding = (alignment - (this.length % alignment)) % alignment;
    this.room(padding);
    this.buffer.fill(0, this.length, this.length + padding);
    this.length += padding;
  }
  f16s(values: Float32Array) {
    this.room(values.length * 2);
    for (const value of values) this.u16(toHalf(value));
  }
  f32s(values: Float32Array) {
    this.room(values.length * 4);
    for (const value of values) this.f32(value);
  }
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

function writeScalar(out: Writer, type: ScalarType, value: number | bigint | boolean | string): void {
  switch (type) {
    case GgufType.u8: return out.u8(value as number);
    case GgufType.i8: return out.i8(value as number);
    case GgufType.u16: return out.u16(value as number);
    case GgufType.i16: return out.i16(value as number);
    case GgufType.u32: return out.u32(value as number);
    case GgufType.i32: return out.i32(value as number);
    case GgufType.f32: return out.f32(value as number);
    case GgufType.bool: return out.u8(value ? 1 : 0);
    case GgufType.string: return out.string(value as string);
    case GgufType.u64: return out.u64(value as bigint);
    case GgufType.i64: return out.i64(value as bigint);
    case GgufType.f64: return out.f64(value as number);
  }
}

const elementBytes = (tensor: GgufTensor) => (tensor.type === TensorType.f16 ? 2 : 4);

/** The whole GGUF file for this metadata and these tensors. */
export function encodeGguf(metadata: Map<string, GgufValue>, tensors: GgufTensor[]): Buffer {
  const out = new Writer();
  out.u32(MAGIC);
  out.u32(VERSION);
  out.u64(tensors.length);
  out.u64(metadata.size);
  for (const [key, entry] of metadata) {
    out.string(key);
    out.u32(entry.type);
    if (entry.type === GgufType.array) {
      out.u32(entry.itemType);
      out.u64(entry.items.length);
      for (const item of entry.items) writeScalar(out, entry.itemType, item);
    } else {
      writeScalar(out, entry.type, entry.value);
    }
  }
  let offset = 0;
  for (const tensor of tensors) {
    const elements = tensor.dims.reduce((product, dim) => product * dim, 1);
    if (elements !== tensor.data.length) throw new Error(`tensor ${tensor.name}: ${tensor.data.length} values for dims ${tensor.dims.join('x')}`);
    out.string(tensor.name);
    out.u32(tensor.dims.length);
    for (const dim of tensor.dims) out.u64(dim);
    out.u32(tensor.type);
    out.u64(offset);
    offset += elements * elementBytes(tensor);
    offset += (ALIGNMENT - (offset % ALIGNMENT)) % ALIGNMENT;
  }
  out.pad(ALIGNMENT);
  for (const tensor of tensors) {
    if (tensor.type === TensorType.f16) out.f16s(tensor.data);
    else out.f32s(tensor.data);
    out.pad(ALIGNMENT);
  }
  return out.bytes();
}

const scratch = new DataView(new ArrayBuffer(4));

/** IEEE 754 half precision, rounded to nearest even; the small weights written here are never subnormal-critical. */
export function toHalf(value: number): number {
  scratch.setFloat32(0, value);
  const bits = scratch.getUint32(0);
  const sign = (bits >>> 16) & 0x8000;
  const exponent = ((bits >>> 23) & 0xff) - 127 + 15;
  let mantissa = bits & 0x7fffff;
  if (((bits >>> 23) & 0xff) === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  if (exponent >= 0x1f) return sign | 0x7c00;
  if (exponent <= 0) {
    if (exponent < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - exponent;
    const half = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    const midpoint = 1 << (shift - 1);
    return sign | (half + (rest > midpoint || (rest === midpoint && (half & 1)) ? 1 : 0));
  }
  const half = (exponent << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  return sign | (half + (rest > 0x1000 || (rest === 0x1000 && (half & 1)) ? 1 : 0));
}
