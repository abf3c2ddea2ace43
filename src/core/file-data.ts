import { percentDecoded, readDataUrl } from './text-payload.js';
import type { FilePart } from './request.js';

/**
 * A data URL (RFC 2397: `data:<type>;base64,<data>`, or its data percent-encoded) split into its
 * media type and its bytes in base64; undefined for anything else.
 */
export function parseDataUrl(value: string): { mediaType: string; data: string } | undefined {
  const url = readDataUrl(value);
  if (!url) return undefined;
  return { mediaType: url.mediaType, data: url.base64 ? url.data : percentDecoded(url.data).toString('base64') };
}

const BY_EXTENSION: Record<string, string> = {
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  html: 'text/html',
  json: 'application/json',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

/** The media type a file name implies, for clients that send a name but no type. */
export function mediaTypeFromName(name: string | undefined): string | undefined {
  const extension = name && /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  return extension ? BY_EXTENSION[extension] : undefined;
}

/**
 * Inline file data (`file_data`: a data: URL, or bare base64 as some clients send) as a file part's
 * source and media type; the type comes from the URL, else from the file name.
 */
export function inlineFile(fileData: string, filename: string | undefined): Pick<FilePart, 'source' | 'mediaType'> {
  const parsed = parseDataUrl(fileData);
  if (parsed) return { source: { kind: 'base64', data: parsed.data }, mediaType: parsed.mediaType };
  const mediaType = mediaTypeFromName(filename);
  return { source: { kind: 'base64', data: fileData }, ...(mediaType ? { mediaType } : {}) };
}

/** A part's inline data as a data: URL (what OpenAI's `file_data` takes); the type defaults to PDF. */
export function fileDataUrl(part: FilePart, data: string): string {
  return `data:${part.mediaType ?? mediaTypeFromName(part.filename) ?? 'application/pdf'};base64,${data}`;
}

/** Plain text as base64, for an upstream that takes a text file only inline. */
export const textAsBase64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** How a part is named in an error or warning: its file name, else its kind. */
export const fileLabel = (part: FilePart): string => (part.filename ? `file '${part.filename}'` : 'the file');
