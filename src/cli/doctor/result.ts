/** One line of the doctor's report. */
export interface CheckResult {
  /** A stable name: `key`, `base-url`, `reachable`, `client:NAME`, `env:NAME`, `whoami`, `usage-cap`, `backend:NAME`, `route:MODEL`, `config-file`, `serve-port`. */
  id: string;
  /** `warn`: works, but a client will misbehave in time; not counted as a failure. */
  status: 'pass' | 'fail' | 'skip' | 'warn';
  message: string;
  /** What to do about a failure. */
  remedy?: string;
}

export const pass = (id: string, message: string): CheckResult => ({ id, status: 'pass', message });
export const skip = (id: string, message: string): CheckResult => ({ id, status: 'skip', message });
export const warn = (id: string, message: string, remedy: string): CheckResult => ({ id, status: 'warn', message, remedy });
export const fail = (id: string, message: string, remedy: string): CheckResult => ({ id, status: 'fail', message, remedy });

/** The remedies of the interface specification's error table, word for word where it has one. */
export const REMEDY = {
  /** 401 Unauthorized for a key with white space in it. */
  key: 'Fix the key; no trailing whitespace.',
  /** 401 Unauthorized for a clean key the router does not know. */
  unknownKey: 'The router does not know this key: use the one `svc-router init` stored (`svc-router env` prints it), or issue one with `svc-router keys issue --developer SLUG`.',
  /** 401 Unauthorized for a model provider's own key (sk-ant-…, sk-…, AIza…). */
  providerKey: "That key is for the provider, not this router: send the svc_… key this router issued you (`svc-router env` prints it).",
  /** 404 on /v1/chat/completions. */
  missingV1: 'Include /v1 in the base URL for chat-format and responses-format clients.',
  /** Refused connection, timeout. */
  network: 'Connection-level failures come from the network: outbound traffic to the host on this port (443 for https://) must be allowed.',
} as const;
