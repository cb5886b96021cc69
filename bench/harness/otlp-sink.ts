import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * BENCH_TRACING=1: an OTLP/HTTP endpoint on loopback that takes every export and drops it, so that a
 * benchmark measures the service with tracing on (spans made, batched and sent) without a collector.
 */
export interface OtlpSink {
  /** The value of OTEL_EXPORTER_OTLP_ENDPOINT for the service. */
  url: string;
  /** Export requests received so far (each carries a batch of spans). */
  exports(): number;
  close(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'POST') received += 1;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Whether this benchmark run has tracing on (BENCH_TRACING=1). */
export const benchTracing = (): boolean => process.env.BENCH_TRACING === '1';
