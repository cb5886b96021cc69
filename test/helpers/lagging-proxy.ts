import net from 'node:net';

/**
 * A TCP proxy on loopback that forwards what the client sends at once and holds what the server
 * answers for `lagMs`, in order: a server that writes to this client late, as Redis may write a
 * published message to a subscriber after it has answered the publisher.
 */
export class LaggingProxy {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  /** Everything the clients sent, in order. */
  sent = '';
  private sentWaiters: Array<{ pattern: RegExp; from: number; resolve: () => void }> = [];

  private constructor(
    private readonly target: { host: string; port: number },
    private readonly lagMs: number,
  ) {
    this.server = net.createServer((client) => this.relay(client));
  }

  static async start(target: { host: string; port: number }, lagMs: number): Promise<LaggingProxy> {
    const proxy = new LaggingProxy(target, lagMs);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    const address = this.server.address();
    if (!address || typeof address === 'string') throw new Error('proxy not listening');
    return `redis://127.0.0.1:${address.port}`;
  }

  private relay(client: net.Socket): void {
    const upstream = net.connect(this.target.port, this.target.host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('data', (chunk: Buffer) => {
      this.sent += chunk.toString('latin1');
      upstream.write(chunk);
      const arrived = this.sentWaiters.filter((w) => w.pattern.test(this.sent.slice(w.from)));
      this.sentWaiters = this.sentWaiters.filter((w) => !arrived.includes(w));
      for (const w of arrived) w.resolve();
    });
    // Each chunk leaves lagMs after it came; timers of equal delay fire in order, so order holds.
    upstream.on('data', (chunk) => setTimeout(() => client.write(chunk), this.lagMs));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => setTimeout(() => client.destroy(), this.lagMs));
  }

  /** Resolves once a client sends, from now on, something matching `pattern` (passed on to the server at once). */
  nextSent(pattern: RegExp): Promise<void> {
    return new Promise((resolve) => this.sentWaiters.push({ pattern, from: this.sent.length, resolve }));
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
