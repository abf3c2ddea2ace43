import { describe, expect, it } from 'vitest';
import { FORMATS } from '../../src/formats/registry.js';
import { requestAttributes } from '../../src/server/otel-export.js';

/** Every client format's completion route is a model call in the traces: a `chat` operation with its provider, whichever format the client spoke. */
describe('OpenTelemetry operations', () => {
  it.each(FORMATS.flatMap((format) => format.routes.filter((route) => (route.serves ?? 'completion') === 'completion').map((route) => [route.path, route.name ?? format.name] as const)))('%s is a chat operation', (path, name) => {
    const attributes = requestAttributes({ time: 0, method: 'POST', path, status: 200, latencyMs: 1, format: name, backend: 'up' }, () => 'anthropic', []);
    expect(attributes['gen_ai.operation.name']).toBe('chat');
    expect(attributes['gen_ai.provider.name']).toBe('anthropic');
  });
});
