import { createRequire } from 'node:module';

/**
 * Packages only some setups need (ioredis for a Redis usage store, prom-client for --metrics) are
 * optionalDependencies, loaded when used. A missing one is a message naming the package and the
 * feature, not a stack trace.
 */
export class MissingDependencyError extends Error {
  constructor(
    readonly packageName: string,
    feature: string,
  ) {
    super(
      `${feature} needs the optional package ${packageName}, which is not installed: run \`npm install ${packageName}\` where svc-router is installed ` +
        '(npm installs optional dependencies unless told --omit=optional).',
    );
    this.name = 'MissingDependencyError';
  }
}

/** Whether `error` says that `packageName` itself (not something it imports) could not be found. */
export function isMissingPackage(error: unknown, packageName: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return false;
  return typeof message === 'string' && (message.includes(`'${packageName}'`) || message.includes(`"${packageName}"`));
}

/** `require(packageName)`, or a MissingDependencyError naming `feature`. */
export function requireOptional<T>(packageName: string, feature: string): T {
  try {
    return createRequire(import.meta.url)(packageName) as T;
  } catch (error) {
    if (isMissingPackage(error, packageName)) throw new MissingDependencyError(packageName, feature);
    throw error;
  }
}
