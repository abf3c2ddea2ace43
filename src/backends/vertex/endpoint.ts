/**
 * Where Vertex AI serves a model: `{base}/v1/projects/{project}/locations/{region}/publishers/{publisher}/models/{model}:{method}`.
 * Claude models are Anthropic's publisher, called with `rawPredict` / `streamRawPredict`
 * (https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude);
 * Gemini models are Google's, called with `generateContent` / `streamGenerateContent?alt=sse`
 * (https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference).
 */

export type VertexPublisher = 'anthropic' | 'google';

/** Which publisher serves a model, by its name; undefined for a model of neither. */
export function publisherOf(model: string): VertexPublisher | undefined {
  if (/^claude-/i.test(model)) return 'anthropic';
  if (/^gemini-/i.test(model)) return 'google';
  return undefined;
}

/** The service's regional endpoint; the `global` location has one without a region prefix. */
export const defaultVertexBaseUrl = (region: string): string => (region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${region}-aiplatform.googleapis.com`);

/** A Google Cloud project id or number, and a location, as they may appear in the path. */
export const PROJECT_FORMAT = /^[a-z0-9][a-z0-9-]{0,62}$/i;
export const REGION_FORMAT = /^[a-z0-9-]{1,40}$/;

export function vertexUrl(baseUrl: string, project: string, region: string, model: string, stream: boolean): string {
  const publisher = publisherOf(model);
  const method = publisher === 'anthropic' ? (stream ? 'streamRawPredict' : 'rawPredict') : stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  const base = baseUrl.replace(/\/v1$/, '');
  return `${base}/v1/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(region)}/publishers/${publisher ?? 'google'}/models/${encodeURIComponent(model)}:${method}`;
}
