// Loaded with `node --import`: every @opentelemetry package is reported as not installed, as after
// `npm install --omit=optional`. With HIDE_OTEL_EXPORT=1 the router's export module itself fails
// to load too, so a serve that never turns export on proves it never imports it.
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
export async function resolve(specifier, context, next) {
  const hidden = specifier.startsWith('@opentelemetry/') || (process.env.HIDE_OTEL_EXPORT === '1' && specifier.endsWith('/otel-export.js'));
  if (hidden) {
    const error = new Error("Cannot find package '" + specifier + "' imported from " + context.parentURL);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}
`),
);
