import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { startSupervised, type SupervisedProcess } from '../../src/infra/supervised.js';

const run = promisify(execFile);

/** Redis Cluster's bus listens on the client port plus this. */
const BUS_OFFSET = 10_000;

/** True when nothing listens on 127.0.0.1:port and it can be bound now. */
function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * `count` loopback ports whose cluster bus port (port + 10000) is free too. The kernel's ephemeral
 * range would put the bus above 65535, so the ports are drawn from 20000–29999 (bus 30000–39999).
 */
async function clusterPorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let tries = 0; ports.length < count && tries < 500; tries += 1) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    if (ports.includes(port)) continue;
    if ((await canBind(port)) && (await canBind(port + BUS_OFFSET))) ports.push(port);
  }
  if (ports.length < count)
    throw new Error(`found only ${ports.length} of ${count} free port pairs for a Redis Cluster`);
  return ports;
}

interface ClusterNodeProcess {
  port: number;
  dir: string;
  process: SupervisedProcess | undefined;
}

export interface RedisClusterOptions {
  masters: number;
  /** Replicas per master (failover needs at least one). */
  replicas?: number;
  /** `cluster-node-timeout`: how long a master may be silent before a replica takes over. */
  nodeTimeoutMs?: number;
}

/**
 * A real Redis Cluster on loopback for tests and the chaos run: `redis-server --cluster-enabled yes`
 * per node, each in a fresh folder (a leftover nodes.conf would make "Node is not empty"), formed
 * with `redis-cli --cluster create`, and removed with its folder by `stop()`. Each server runs under
 * the service's supervisor, so none outlives the process that started it.
 */
export class LocalRedisCluster {
  private readonly nodes: ClusterNodeProcess[] = [];
  private root = '';

  constructor(private readonly options: RedisClusterOptions) {}

  /** `host:port,host:port,…`: the value of REDIS_CLUSTER_NODES for this cluster. */
  get seeds(): string {
    return this.nodes.map((n) => `127.0.0.1:${n.port}`).join(',');
  }

  get ports(): number[] {
    return this.nodes.map((n) => n.port);
  }

  async start(): Promise<void> {
    const total = this.options.masters * (1 + (this.options.replicas ?? 0));
    this.root = await mkdtemp(path.join(os.tmpdir(), 'plinks-redis-cluster-'));
    try {
      for (const port of await clusterPorts(total)) {
        const dir = path.join(this.root, String(port));
        await mkdir(dir);
        this.nodes.push({ port, dir, process: undefined });
      }
      await Promise.all(this.nodes.map((node) => this.startNode(node)));
      await run('redis-cli', [
        '--cluster',
        'create',
        ...this.nodes.map((n) => `127.0.0.1:${n.port}`),
        '--cluster-replicas',
        String(this.options.replicas ?? 0),
        '--cluster-yes',
      ]);
      await this.waitUntilHealthy(30_000);
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  private async startNode(node: ClusterNodeProcess): Promise<void> {
    const child = startSupervised({
      command: 'redis-server',
      args: [
        '--port',
        String(node.port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        String(this.options.nodeTimeoutMs ?? 2000),
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        node.dir,
      ],
      stopSignal: 'SIGTERM',
      graceMs: 5000,
    });
    node.process = child;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer): void => {
        output = (output + chunk.toString()).slice(-2000);
        if (!output.includes('Ready to accept connections')) return;
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve();
      };
      child.stdout.on('data', onData);
      child.stderr.resume();
      void child.exited.then(({ code }) =>
        reject(
          new Error(`redis-server on port ${node.port} exited (${String(code)}): ${output.slice(-400)}`),
        ),
      );
    });
  }

  /** Every node answers `cluster_state:ok` and all 16384 slots are served. */
  async waitUntilHealthy(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    for (;;) {
      const states = await Promise.all(
        this.nodes
          .filter((n) => n.process)
          .map((n) => this.command(n.port, ['CLUSTER', 'INFO']).catch(() => '')),
      );
      if (states.every((s) => s.includes('cluster_state:ok') && s.includes('cluster_slots_ok:16384'))) return;
      if (Date.now() > deadline)
        throw new Error(`Redis Cluster not healthy after ${ms} ms:\n${states.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** One command on one node, over a connection of its own (closed after). */
  async command(port: number, args: [string, ...string[]]): Promise<string> {
    const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0 });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      const [name, ...rest] = args;
      const reply: unknown = await redis.call(name, ...rest);
      return Array.isArray(reply) ? JSON.stringify(reply) : String(reply);
    } finally {
      redis.disconnect();
    }
  }

  /** The ports of the nodes that are masters now. */
  async masters(): Promise<number[]> {
    const alive = this.nodes.find((n) => n.process);
    if (!alive) return [];
    const table = await this.command(alive.port, ['CLUSTER', 'NODES']);
    return table
      .split('\n')
      .filter((line) => /\bmaster\b/.test(line) && !/\bfail\b/.test(line))
      .map((line) => Number(/:(\d+)@/.exec(line)?.[1]))
      .filter((port) => Number.isInteger(port));
  }

  /** The port of the master serving `key`'s slot now. */
  async masterOf(key: string): Promise<number> {
    const alive = this.nodes.find((n) => n.process);
    if (!alive) throw new Error('no node of the cluster runs');
    const slot = Number(await this.command(alive.port, ['CLUSTER', 'KEYSLOT', key]));
    const shards = JSON.parse(await this.command(alive.port, ['CLUSTER', 'SLOTS'])) as Array<
      [number, number, [string, number, ...unknown[]], ...unknown[]]
    >;
    const shard = shards.find(([from, to]) => slot >= from && slot <= to);
    if (!shard) throw new Error(`no master serves slot ${slot}`);
    return shard[2][1];
  }

  /** How many errors of each kind (`CROSSSLOT`, `MOVED`…) every node has answered since it started. */
  async errorStats(): Promise<Record<string, number>> {
    const totals: Record<string, number> = {};
    for (const node of this.nodes.filter((n) => n.process)) {
      const info = await this.command(node.port, ['INFO', 'errorstats']);
      for (const match of info.matchAll(/errorstat_([A-Z]+):count=(\d+)/g)) {
        const [, kind = '', count = '0'] = match;
        totals[kind] = (totals[kind] ?? 0) + Number(count);
      }
    }
    return totals;
  }

  /**
   * Takes one node away (SIGTERM; Redis hands no slot over on its way out): its replica is promoted
   * once the others have not heard from it for the node timeout.
   */
  async kill(port: number): Promise<void> {
    const node = this.nodes.find((n) => n.port === port);
    const child = node?.process;
    if (!node || !child) return;
    node.process = undefined;
    await child.stop();
  }

  /**
   * Starts a killed node again on its folder: its nodes.conf makes it rejoin the cluster, as a
   * replica of the master that took its slots over.
   */
  async restart(port: number): Promise<void> {
    const node = this.nodes.find((n) => n.port === port);
    if (!node || node.process) return;
    await this.startNode(node);
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.process?.stop()));
    for (const node of this.nodes) node.process = undefined;
    if (this.root) await rm(this.root, { recursive: true, force: true });
  }
}
