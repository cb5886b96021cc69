import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './index.js';
import type { AppContext } from '../shared/context.js';

export interface WebServer {
  server: http.Server;
  port: number;
  url: string;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then resolves. */
  close(graceMs?: number): Promise<void>;
}

export async function startWebServer(
  ctx: AppContext,
  port = ctx.config.port,
  host = ctx.config.host,
): Promise<WebServer> {
  const timeout = ctx.config.limits.requestTimeoutMs;
  // Node checks for timed-out requests every connectionsCheckingInterval (30 s by default, which would
  // let a 30 s timeout run to a minute): check every second.
  const server = http.createServer({ connectionsCheckingInterval: Math.min(1000, timeout) }, createApp(ctx));
  // A request whose headers and body have not arrived in time (30 s) is answered 408 (docs/api.md,
  // "Requests and errors"): a slow client cannot hold a connection open.
  server.requestTimeout = timeout;
  server.headersTimeout = timeout;
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    server,
    port: bound,
    url: `http://127.0.0.1:${bound}`,
    close(graceMs = 10_000) {
      return new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
