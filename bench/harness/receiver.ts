import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { registerCleanup } from './cleanup.js';

export interface Arrival {
  count: number;
  /** Date.now() of the first verified arrival (compared with the event's commit time in PostgreSQL). */
  firstAt: number;
}

interface Hook {
  integrationId: number;
  verifier: Webhook;
}

export const pairKey = (eventId: string, integrationId: number): string => `${eventId} ${integrationId}`;

/**
 * The webhook receiver every integration of a run points at: one path per integration, Standard
 * Webhooks signatures verified with that integration's secret, arrivals counted per (event,
 * integration). It can answer slowly (to keep deliveries in flight) and refuse connections (a fault).
 */
export class WebhookReceiver {
  readonly arrivals = new Map<string, Arrival>();
  requests = 0;
  badSignatures = 0;
  unknownPaths = 0;
  inFlight = 0;
  /** Delay before answering, to hold deliveries open. */
  delayMs = 0;
  port = 0;
  private readonly hooks = new Map<string, Hook>();
  private readonly sockets = new Set<Socket>();
  private readonly server: http.Server;
  private listening = false;
  readonly badSamples: string[] = [];

  constructor() {
    this.server = http.createServer((req, res) => this.handle(req, res));
    this.server.keepAliveTimeout = 30_000;
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    registerCleanup({
      name: 'webhook receiver',
      run: () => this.refuse(),
      force: () => {
        for (const socket of this.sockets) socket.destroy();
        this.server.close();
      },
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
    this.listening = true;
  }

  url(token: string): string {
    return `http://127.0.0.1:${this.port}/hook/${token}`;
  }

  register(token: string, integrationId: number, secret: string): void {
    this.hooks.set(token, { integrationId, verifier: new Webhook(secret) });
  }

  /** Closes the listening socket and every open connection: new attempts get ECONNREFUSED. */
  async refuse(): Promise<void> {
    if (!this.listening) return;
    this.listening = false;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  /** Listens again on the same port. */
  async accept(): Promise<void> {
    if (!this.listening) await this.start();
  }

  /** Distinct (event, integration) pairs received at least once. */
  get distinct(): number {
    return this.arrivals.size;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.requests += 1;
    this.inFlight += 1;
    let counted = true;
    const finish = (): void => {
      if (!counted) return;
      counted = false;
      this.inFlight -= 1;
    };
    res.once('close', finish);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', finish);
    req.on('end', () => {
      const token = (req.url ?? '').replace(/^\/hook\//, '');
      const hook = this.hooks.get(token);
      if (!hook) {
        this.unknownPaths += 1;
        res.writeHead(404).end();
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      };
      let eventId: string;
      try {
        hook.verifier.verify(body, headers);
        const parsed = JSON.parse(body) as { id?: unknown };
        if (typeof parsed.id !== 'string' || parsed.id !== headers['webhook-id'])
          throw new Error(`body id ${String(parsed.id)} ≠ webhook-id`);
        eventId = parsed.id;
      } catch (err) {
        this.badSignatures += 1;
        if (this.badSamples.length < 5)
          this.badSamples.push(
            `integration ${hook.integrationId}, ${headers['webhook-id']}: ${(err as Error).message}`,
          );
        res.writeHead(400).end('bad signature');
        return;
      }
      const key = pairKey(eventId, hook.integrationId);
      const seen = this.arrivals.get(key);
      if (seen) seen.count += 1;
      else this.arrivals.set(key, { count: 1, firstAt: Date.now() });
      const answer = (): void => {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      };
      if (this.delayMs > 0) setTimeout(answer, this.delayMs);
      else answer();
    });
  }
}
