import type { BackendType } from '../core/backend-types.js';

/**
 * Backend settings that only one type of upstream takes: how an Anthropic-compatible service
 * takes its key and which `anthropic-version` it is sent, the API version in a Gemini path, and the
 * provider profile of an OpenAI Chat server, where Vertex AI and Bedrock find their models.
 * `backends add` and the declarative file refuse them on another type, with the same words.
 */

/** An `anthropic-version` is a date (https://docs.anthropic.com/en/api/versioning). */
export const ANTHROPIC_VERSION_FORMAT = /^\d{4}-\d{2}-\d{2}$/;

/** A Gemini API version as its paths name it: v1, v1beta, v1alpha (https://ai.google.dev/gemini-api/docs/api-versions). */
export const GEMINI_API_VERSION_FORMAT = /^v\d+(?:alpha|beta)?\d*$/;

/** An AWS region name (https://docs.aws.amazon.com/general/latest/gr/rande.html): us-east-1, eu-central-2, us-gov-west-1. */
export const AWS_REGION_FORMAT = /^[a-z]{2}(?:-[a-z]+)+-\d+$/;

/** The API version a Gemini base URL ends with, if it names one (…/v1beta). */
export const baseUrlApiVersion = (baseUrl: string): string | undefined => /\/(v\d+(?:alpha|beta)?\d*)\/*$/.exec(baseUrl)?.[1];

/** The types each of these settings is for. */
export const SETTING_TYPES = {
  auth: ['anthropic'],
  anthropicVersion: ['anthropic'],
  apiVersion: ['gemini'],
  profile: ['openai-chat'],
  project: ['vertex'],
  region: ['vertex', 'bedrock'],
  credentials: ['vertex'],
  awsProfile: ['bedrock'],
  websocket: ['openai-responses'],
} as const satisfies Record<string, readonly BackendType[]>;

export type TypeSetting = keyof typeof SETTING_TYPES;

/** Whether a backend of this type takes the setting. */
export const settingFits = (setting: TypeSetting, type: unknown): boolean => (SETTING_TYPES[setting] as readonly unknown[]).includes(type);

/** Provider routing is OpenRouter's: it goes with that profile only. */
export const PROVIDER_ROUTING_ELSEWHERE = 'provider routing is for openai-chat backends with profile openrouter only';

/** Why a setting given for another type is refused (`what` is the option or field as the user wrote it). */
export function settingElsewhere(setting: TypeSetting, what: string): string {
  return `${what} is for ${SETTING_TYPES[setting].join(' and ')} backends only`;
}

/** A Gemini base URL that names one API version and a setting that names another: which one is meant is unclear. */
export function apiVersionConflict(baseUrl: string, apiVersion: string): string | undefined {
  const named = baseUrlApiVersion(baseUrl);
  return named !== undefined && named !== apiVersion ? `the base URL names API version ${named} and the setting ${apiVersion}; drop the version from the base URL` : undefined;
}
