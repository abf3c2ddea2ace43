import path from 'node:path';

/**
 * Where conf itself keeps config.json, asked of conf: `serve`, long-lived, takes its store's
 * place from it, so the file a server reads is conf's by construction. The quick commands work out
 * the same place in config-location.ts without loading conf's schema and semver libraries, and
 * test/unit/config-location.test.ts holds the two to the same answer.
 */
export async function confConfigDirectory(dir?: string): Promise<string> {
  const { default: Conf } = await import('conf');
  const home = dir ?? process.env.SVC_ROUTER_HOME;
  const conf = new Conf({
    projectName: 'svc-router',
    projectSuffix: '',
    configName: 'config',
    configFileMode: 0o600,
    ...(home ? { cwd: path.resolve(home) } : {}),
    // Reading and writing the file are the store's own (LastGoodFile, writeFileAtomic); conf's one
    // read as it is built must neither fail on a broken file nor make conf rewrite it.
    deserialize: () => ({}),
  });
  return path.dirname(conf.path);
}
