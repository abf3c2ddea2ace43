import { invalidRequest } from '../../core/errors.js';
import type { WebSearchContextSize, WebSearchSpec, WebSearchUserLocation } from '../../core/web-search.js';
import { asObject, optionalInteger, optionalString, optionalStringList, type Json } from './read-fields.js';

/**
 * The option fields web search shares across formats, read with the client's own paths so an
 * error names the field as the client wrote it.
 */
export function readUserLocation(raw: unknown, path: string): WebSearchUserLocation | undefined {
  if (raw === undefined || raw === null) return undefined;
  const json = asObject(raw, path);
  // Chat nests the place under `approximate`; Anthropic and Responses put it at the top.
  const place = json.approximate !== undefined && json.approximate !== null ? asObject(json.approximate, `${path}.approximate`) : json;
  const where = place === json ? path : `${path}.approximate`;
  const location: WebSearchUserLocation = {};
  for (const key of ['city', 'region', 'country', 'timezone'] as const) {
    const value = optionalString(place, key, `${where}.${key}`);
    if (value !== undefined) location[key] = value;
  }
  return Object.keys(location).length ? location : undefined;
}

export function readContextSize(json: Json, key: string, path: string): WebSearchContextSize | undefined {
  const size = optionalString(json, key, path);
  if (size === undefined) return undefined;
  if (size !== 'low' && size !== 'medium' && size !== 'high') throw invalidRequest(`${path}: expected 'low', 'medium' or 'high'.`, path);
  return size;
}

/** A spec with only the options the client set. */
export function searchSpec(tool: string, param: string, options: Omit<WebSearchSpec, 'tool' | 'param'>): WebSearchSpec {
  const spec: WebSearchSpec = { tool, param };
  for (const [key, value] of Object.entries(options) as Array<[keyof typeof options, unknown]>) if (value !== undefined) (spec as unknown as Record<string, unknown>)[key] = value;
  return spec;
}

export const readDomains = (json: Json, key: string, path: string): string[] | undefined => optionalStringList(json, key, path);
export const readMaxUses = (json: Json, key: string, path: string): number | undefined => optionalInteger(json, key, path);

/**
 * A search tool's fields the canonical form does not model (Codex's `external_web_access`,
 * Anthropic's `allowed_callers`): a same-format upstream gets them in the forwarded body; any
 * other route names them in the warnings, since searching without them changes no request shape.
 */
export function unmodelledSearchFields(tool: Json, known: readonly string[]): string[] {
  return Object.keys(tool).filter((key) => !known.includes(key) && tool[key] !== undefined && tool[key] !== null);
}
