import { CredentialsProblem, readServiceAccount } from '../../backends/vertex/service-account.js';
import type { BackendSettings } from '../../config/settings.js';
import { cloudCredentials } from '../backend-credentials.js';
import { serveEnvironment } from '../key-variables.js';
import type { ServerState } from '../server-state.js';
import { endpointOf, probeTcp } from './network.js';
import { fail, warn, type CheckResult } from './result.js';

export interface CloudCheck {
  /** The backend's line when its credentials settle it: none, broken, or out of this shell's sight. */
  result?: CheckResult;
  /** Where its credentials come from, when they were found (and the check goes on). */
  source?: string;
}

/**
 * A backend that signs with cloud credentials (Vertex AI, Bedrock without an API key) has them
 * where the running serve runs: a key file that reads as a service account, a profile or
 * variables, or a metadata endpoint that answers. Each is judged in the serve's environment.
 */
export async function checkCloudCredentials(id: string, name: string, backend: BackendSettings, options: { timeoutMs: number; serve?: ServerState; env?: NodeJS.ProcessEnv }): Promise<CloudCheck> {
  const credentials = cloudCredentials(backend, serveEnvironment(options.serve, options.env ?? process.env));
  if (!credentials) return {};
  const google = backend.type === 'vertex';
  const where = options.serve ? `where the running serve (pid ${options.serve.pid}) runs` : 'here';
  const remedy = google
    ? `Give it a service-account key file: svc-router backends add ${name} --type vertex --project ${backend.project ?? 'PROJECT'} --region ${backend.region ?? 'REGION'} --credentials FILE, or set GOOGLE_APPLICATION_CREDENTIALS where serve runs${options.serve ? ', then svc-router restart from there' : ''}.`
    : `Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile in ~/.aws/credentials (--aws-profile NAME, or AWS_PROFILE), where serve runs${options.serve ? ', then svc-router restart from there' : ''}.`;
  const none = (why: string) => fail(id, `${backend.type}: no ${google ? 'Google' : 'AWS'} credentials ${where}: ${why}: every request routed to it fails with 502`, remedy);
  switch (credentials.kind) {
    case 'none':
      return { result: none(credentials.problem) };
    case 'broken':
      return { result: fail(id, `${backend.type}: its AWS credentials cannot be used: ${credentials.problem}`, remedy) };
    case 'serve-only':
      return { result: warn(id, `${backend.type}: its credentials come from ${credentials.source}, set only where the running serve (pid ${options.serve?.pid}) runs, so they were not checked`, 'Run doctor where the same variables are set to check them.') };
    case 'found':
      if (credentials.file) {
        try {
          await readServiceAccount(credentials.file);
        } catch (error) {
          if (error instanceof CredentialsProblem) return { result: fail(id, `${backend.type}: ${error.message}`, remedy) };
          throw error;
        }
      }
      return { source: credentials.source };
    case 'endpoint': {
      const { host, port } = endpointOf(new URL(credentials.url));
      const probe = await probeTcp(host, port, options.timeoutMs);
      if (probe.ok) return { source: credentials.source };
      const configured = google ? 'no credentials file (--credentials, $GOOGLE_APPLICATION_CREDENTIALS)' : 'none in the environment and no AWS profile';
      return { result: none(`${configured}, and ${credentials.source} does not answer (${probe.detail})`) };
    }
  }
}
