import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { listIntegrations } from '../../src/integrations/repository.js';
import { seed } from '../helpers/app.js';
import { testEnvironment } from '../helpers/environment.js';
import { Receiver, startEngine, type Engine } from '../events/helpers.js';

/** `npm run cli -- listen …` as a user runs it, its stdout read line by line as it is flushed. */
class Listener {
  readonly lines: string[] = [];
  private readonly waiters: Array<() => void> = [];
  readonly child: ChildProcessWithoutNullStreams;

  /** `underShell`: started in the background of a shell script, which is then the parent to kill. */
  constructor(args: string[], env: Record<string, string>, underShell = false) {
    const command = [process.execPath, '--import', 'tsx', 'src/cli/main.ts', 'listen', ...args];
    const options = { env: { ...process.env, ...env, LOG_LEVEL: 'warn' } };
    this.child = underShell
      ? spawn('sh', ['-c', '"$@" & wait', 'sh', ...command], options)
      : spawn(command[0] ?? '', command.slice(1), options);
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      this.lines.push(line);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  async line(matching: RegExp, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find((l) => matching.test(l));
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no line matching ${matching} in:\n${this.lines.join('\n')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async stop(): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGINT');
    return exited;
  }
}

describe('cli listen', function () {
  this.timeout(60_000);
  let engine: Engine;
  let tenant: SeedResult;

  before(async () => {
    engine = await startEngine();
    tenant = await seed();
  });
  after(() => engine.close());

  const env = () => ({ DATABASE_URL: testEnvironment().databaseUrl });

  /** A test link through the API, as a client makes one. */
  async function createLink(reference: string): Promise<{ id: string }> {
    const offer = tenant.offers.find((o) => o.status === 'active');
    const res = await engine.app.http.post<{ id: string }>('/v1/payment-links', {
      auth: tenant.keys.test,
      body: { offer_code: offer?.code, external_reference: reference },
    });
    expect(res.status).to.equal(201);
    return res.body;
  }

  it('receives the company events, prints one verified line each, forwards them, and removes its integration on exit', async () => {
    const forwarded = await new Receiver().start();
    const listener = new Listener(
      ['--company', String(tenant.company.id), '--forward-to', forwarded.url],
      env(),
    );
    try {
      const ready = await listener.line(/^Ready: integration (\d+)/);
      expect(ready).to.match(/Signing secret: whsec_/);
      const link = await createLink('listen-42');
      const simulated = await engine.app.http.post(`/v1/payment-links/${link.id}/simulate`, {
        auth: tenant.keys.test,
        body: { outcome: 'paid' },
      });
      expect(simulated.status).to.equal(200);
      const line = await listener.line(/order\.paid/);
      expect(line).to.match(/verified\s+order\.paid\s+evt_\w+\s+test link=plink_\w+ ref=listen-42/);
      // The same signed request reached the forward target, signature headers included.
      const [request] = await forwarded.waitFor(1);
      expect(request?.headers['webhook-signature']).to.match(/^v1,/);
    } finally {
      expect(await listener.stop()).to.equal(0);
      await forwarded.close();
    }
    await listener.line(/^Removed integration/);
    const left = await listIntegrations(engine.app.ctx.db, tenant.company.id, 'webhook');
    expect(left.filter((i) => String(i.config.url).includes('cli-listen'))).to.deep.equal([]);
  });

  it('stops and removes its integration when orphaned (its parent killed, as `kill %1` in a script kills only npm)', async () => {
    const listener = new Listener(['--company', String(tenant.company.id)], env(), true);
    const ready = await listener.line(/^Ready: integration (\d+)/);
    const id = Number(/integration (\d+)/.exec(ready)?.[1]);
    listener.child.kill('SIGKILL');
    await listener.line(/^Removed integration/, 10_000);
    const left = await listIntegrations(engine.app.ctx.db, tenant.company.id, 'webhook');
    expect(left.map((i) => i.id)).to.not.include(id);
  });

  it('prints whole bodies with --json, and refuses an unknown event kind with the usage', async () => {
    const listener = new Listener(
      ['--company', String(tenant.company.id), '--json', '--events', 'order.expired'],
      env(),
    );
    try {
      await listener.line(/^Ready:.*receives order\.expired/);
      const link = await createLink('listen-json');
      await engine.app.http.post(`/v1/payment-links/${link.id}/simulate`, {
        auth: tenant.keys.test,
        body: { outcome: 'expired' },
      });
      const line = await listener.line(/^\{/);
      const printed = JSON.parse(line) as { verified: boolean; body: { type: string; data: unknown } };
      expect(printed.verified).to.equal(true);
      expect(printed.body.type).to.equal('order.expired');
    } finally {
      await listener.stop();
    }
    const bad = new Listener(['--company', String(tenant.company.id), '--events', 'order.teleported'], env());
    const code = await new Promise<number | null>((resolve) => bad.child.once('exit', resolve));
    expect(code).to.equal(2);
  });
});
