/** The kinds of client `doctor --client` checks the base URL form, settings and variables for. */
export const DOCTOR_CLIENTS = ['openai', 'anthropic', 'codex', 'claude', 'gemini'] as const;
export type DoctorClient = (typeof DOCTOR_CLIENTS)[number];
