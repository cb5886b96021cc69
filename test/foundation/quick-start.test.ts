import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { expect } from 'chai';
import { testEnvironment } from '../helpers/environment.js';
import { startEngine, type Engine } from '../events/helpers.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The README's "second terminal" script: the shell block of the quick start that seeds a company. */
function quickStartScript(readme: string): string {
  const section = readme.slice(readme.indexOf('## Quick start'));
  const block = [...section.matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((m) => m[1] ?? '')
    .find((b) => b.includes('cli -- seed --json'));
  if (!block) throw new Error('the README quick start has no shell block that seeds a company');
  return block;
}

/**
 * The README quick start, run as written by bash against a running service (web and workers): the
 * demo company, `cli listen` in the background, a simulated payment, and a test subscription's life;
 * then what listen printed is what the README says it prints. Two things differ from a newcomer's
 * terminal: the service's address (a free port instead of 3000), and the `sleep 5` that gives listen
 * time to start, which waits for its "Ready" line instead (a loaded test machine may take longer).
 */
describe('README quick start', function () {
  this.timeout(120_000);
  let engine: Engine;
  let dir: string;

  before(async () => {
    engine = await startEngine();
    dir = await mkdtemp(path.join(os.tmpdir(), 'plinks-quick-start-'));
  });
  after(async () => {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("runs as written, and listen prints the payment and the subscription's life as the README shows", async () => {
    const readme = await readFile(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const script = quickStartScript(readme);
    expect(script).to.include('sleep 5').and.include('kill %1').and.include('renewal_failed');
    const ready = path.join(dir, 'listen-ready');
    const runnable = script
      .replaceAll('localhost:3000', new URL(engine.app.url).host)
      .replace('sleep 5', `while [ ! -e '${ready}' ]; do sleep 0.1; done`);

    const env = testEnvironment();
    const child = spawn('bash', ['-e', '-c', runnable], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: env.databaseUrl, REDIS_URL: env.redis.url, LOG_LEVEL: 'warn' },
      // Its own process group, so a script stuck waiting can be stopped with everything it started.
      detached: true,
    });
    const stuck = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, 100_000);
    const lines: string[] = [];
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      if (line.startsWith('Ready:')) void writeFile(ready, '');
    });
    // The orphaned listen holds stdout until it has removed its integration, so this waits for that too.
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    clearTimeout(stuck);
    expect(code, `${lines.join('\n')}\n${stderr}`).to.equal(0);

    const printed = lines.join('\n');
    expect(printed).to.match(/^Ready: integration \d+ receives every event/m);
    expect(printed).to.match(
      /verified\s+order\.paid\s+evt_\w+\s+test link=plink_\w+ ref=order-42 order=paid$/m,
    );
    // The subscription's life, a verified line per event, in the order the README shows.
    const life = lines
      .filter((l) => / sub=\d+ /.test(l))
      .map((l) => {
        const [, type, facts] = /verified\s+(\S+)\s+evt_\w+\s+(.*)$/.exec(l) ?? [];
        return `${type} ${(facts ?? '').replace(/plink_\w+/, 'plink_…').replace(/sub=\d+/, 'sub=1')}`;
      });
    expect(life).to.deep.equal([
      'order.paid test link=plink_… ref=member-7 order=paid sub=1 active',
      'subscription.created test link=plink_… ref=member-7 sub=1 active',
      'order.failed test link=- ref=- order=failed sub=1 past_due',
      'subscription.past_due test link=plink_… ref=member-7 sub=1 past_due',
      'order.paid test link=- ref=- order=paid sub=1 active',
      'subscription.renewed test link=plink_… ref=member-7 sub=1 active',
      'subscription.canceled test link=plink_… ref=member-7 sub=1 canceled (requested)',
    ]);
    // Each of those lines is in the README as listen prints it.
    for (const line of life) {
      const [type, ...facts] = line.split(' ');
      const shown = new RegExp(
        `#\\s+${type?.replace('.', '\\.')}\\s+…\\s+${facts.join(' ').replace(/[()]/g, '\\$&')}$`,
        'm',
      );
      expect(readme, line).to.match(shown);
    }
    expect(printed).to.match(/^Removed integration \d+\.$/m);
  });
});
