import { describe, expect, it } from 'vitest';
import { DEFAULT_OTLP_ENDPOINT, resolveTracesUrl } from '../../src/server/otel-export.js';

/** Where `serve --otel` posts spans: the OTLP exporter spec's precedence between the flag and the standard variables. */
describe('resolveTracesUrl', () => {
  it('adds /v1/traces to a base URL, from --otel first', () => {
    expect(resolveTracesUrl('http://collector:4318', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://other:4318' })).toBe('http://collector:4318/v1/traces');
    expect(resolveTracesUrl('https://collector/otlp/', {})).toBe('https://collector/otlp/v1/traces');
  });

  it('keeps a URL that already names the traces path', () => {
    expect(resolveTracesUrl('http://collector:4318/v1/traces', {})).toBe('http://collector:4318/v1/traces');
  });

  it('uses the traces variable as it is, over the general one', () => {
    expect(resolveTracesUrl(undefined, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://a:1/custom', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://b:2' })).toBe('http://a:1/custom');
    expect(resolveTracesUrl(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://b:2' })).toBe('http://b:2/v1/traces');
  });

  it('falls back to the OTLP default', () => {
    expect(resolveTracesUrl(undefined, {})).toBe(`${DEFAULT_OTLP_ENDPOINT}/v1/traces`);
  });

  it('names the setting a value that is not an http(s) URL came from', () => {
    expect(() => resolveTracesUrl('grpc://collector:4317', {})).toThrow("--otel: expected an http:// or https:// URL, got 'grpc://collector:4317'");
    expect(() => resolveTracesUrl(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector' })).toThrow('OTEL_EXPORTER_OTLP_ENDPOINT: expected');
  });
});
