// Loaded with `node --import`: appends to the file MODULE_TRACE names every module the process
// loads, as it loads it, one a line: an ES module as the URL the loader resolved, a CommonJS
// require (createRequire's included) as `require:` and the path it resolved to.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';

const trace = process.env.MODULE_TRACE;
if (trace) {
  register(
    'data:text/javascript,' +
      encodeURIComponent(`
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(${JSON.stringify(trace)}, resolved.url + '\\n');
  return resolved;
}
`),
  );
  const load = Module._load;
  Module._load = function (request, parent, isMain) {
    const exports = load.call(this, request, parent, isMain);
    let file = request;
    try {
      file = Module._resolveFilename(request, parent, isMain);
    } catch {
      // A built-in, or a name that did not resolve: the request as written.
    }
    appendFileSync(trace, `require:${file}\n`);
    return exports;
  };
}
