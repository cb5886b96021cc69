import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * BENCH_TRACING=1: an OTLP/HTTP endpoint on loopback that takes every export and drops it, so that a
 * benchmark measures the service with tracing on (spans made, batched and sent) without a collector.
 * It counts the spans it received (either encoding), so that a run shows how many spans an operation
 * makes, and that none were dropped for a full export queue (which would make tracing look cheaper).
 */
export interface OtlpSink {
  /** The value of OTEL_EXPORTER_OTLP_ENDPOINT for the service. */
  url: string;
  /** Export requests received so far (each carries a batch of spans). */
  exports(): number;
  /** Spans received so far, in all exports. */
  spans(): number;
  close(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  let received = 0;
  let spans = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'POST') {
        received += 1;
        const body = Buffer.concat(chunks);
        spans += String(req.headers['content-type']).includes('json')
          ? jsonSpanCount(body)
          : protobufSpanCount(body);
      }
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => received,
    spans: () => spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Whether this benchmark run has tracing on (BENCH_TRACING=1). */
export const benchTracing = (): boolean => process.env.BENCH_TRACING === '1';

/** What tracing changed, as BENCH_TRACING=compare prints it: `+38.5 %`, `-15.4 %`. */
export const percentChange = (from: number, to: number): string =>
  `${to >= from ? '+' : ''}${(((to - from) / from) * 100).toFixed(1)} %`;

interface JsonExport {
  resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: unknown[] }> }>;
}

function jsonSpanCount(body: Buffer): number {
  const request = JSON.parse(body.toString('utf8')) as JsonExport;
  let count = 0;
  for (const resource of request.resourceSpans ?? [])
    for (const scope of resource.scopeSpans ?? []) count += scope.spans?.length ?? 0;
  return count;
}

/**
 * Spans in an OTLP/protobuf ExportTraceServiceRequest: field 1 of the request (ResourceSpans), field
 * 2 of each of those (ScopeSpans), field 2 of each of those (Span); nothing else is decoded.
 */
function protobufSpanCount(body: Buffer): number {
  let count = 0;
  for (const resource of lengthDelimited(body, 1))
    for (const scope of lengthDelimited(resource, 2)) count += lengthDelimited(scope, 2).length;
  return count;
}

/** The length-delimited fields numbered `field` of one protobuf message; other fields skipped. */
function lengthDelimited(message: Buffer, field: number): Buffer[] {
  const found: Buffer[] = [];
  let pos = 0;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = message[pos++] ?? 0;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80 || pos >= message.length) return value;
    }
  };
  while (pos < message.length) {
    const tag = varint();
    const wireType = tag & 7;
    if (wireType === 0) varint();
    else if (wireType === 1) pos += 8;
    else if (wireType === 5) pos += 4;
    else if (wireType === 2) {
      const length = varint();
      if (tag >>> 3 === field) found.push(message.subarray(pos, pos + length));
      pos += length;
    } else break;
  }
  return found;
}
