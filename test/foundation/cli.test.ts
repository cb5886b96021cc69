import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseInvocation, UsageError } from '../../src/cli/arguments.js';
import { sharedApp } from '../helpers/app.js';
import { testEnvironment } from '../helpers/environment.js';

const run = promisify(execFile);

/** Runs the CLI as a user would (`npm run cli -- …` is `tsx src/cli/main.ts …`), against the run's database. */
async function cli(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    env: {
      ...process.env,
      DATABASE_URL: testEnvironment().databaseUrl,
      // The service's Redis: a revoke or a deactivation reaches the running web processes' key caches.
      REDIS_URL: testEnvironment().redis.url,
      LOG_LEVEL: 'warn',
    },
    timeout: 60_000,
  });
}

describe('CLI', function () {
  this.timeout(60_000);

  it('`npm run --silent cli -- seed --json` prints exactly one JSON object with the documented shape', async () => {
    // Through npm, as the README tells a newcomer: --silent keeps npm's own banner off stdout.
    const { stdout } = await run(
      'npm',
      ['run', '--silent', 'cli', '--', 'seed', '--json', '--name', 'Acme CLI'],
      {
        env: {
          ...process.env,
          DATABASE_URL: testEnvironment().databaseUrl,
          // The service's Redis: a revoke or a deactivation reaches the running web processes' key caches.
          REDIS_URL: testEnvironment().redis.url,
          LOG_LEVEL: 'warn',
        },
        timeout: 60_000,
      },
    );
    const lines = stdout.trim().split('\n');
    expect(lines).to.have.length(1);
    const seeded = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(seeded).to.have.all.keys(
      'company',
      'panel_token',
      'keys',
      'products',
      'offers',
      'plans',
      'coupons',
    );
    expect(seeded.company).to.include({ name: 'Acme CLI', active: true });
    expect(seeded.keys).to.have.all.keys('test', 'live', 'read_only');
    const keys = seeded.keys as Record<string, string>;
    expect(keys.test).to.match(/^vk_test_[0-9A-Za-z]{32,}$/);
    expect(keys.live).to.match(/^vk_live_[0-9A-Za-z]{32,}$/);
    const offers = seeded.offers as Array<{ status: string; price: string }>;
    expect(offers.filter((o) => o.status === 'active')).to.have.length(2);
    expect(offers.filter((o) => o.status === 'inactive')).to.have.length(1);
    const plans = seeded.plans as Array<{ status: string; billing_cycle: string }>;
    expect(plans.map((p) => p.status).sort()).to.deep.equal(['active', 'inactive']);
    expect(seeded.products).to.have.length(2);
    expect(seeded.coupons).to.have.length(1);

    const app = await sharedApp();
    expect((await app.http.get('/v1/offers', { auth: keys.test })).status).to.equal(200);
  });

  it('without --silent, npm prints its banner first and the CLI says how to get the JSON alone', async () => {
    const { stdout, stderr } = await run('npm', ['run', 'cli', '--', 'seed', '--json'], {
      env: {
        ...process.env,
        DATABASE_URL: testEnvironment().databaseUrl,
        // The service's Redis: a revoke or a deactivation reaches the running web processes' key caches.
        REDIS_URL: testEnvironment().redis.url,
        LOG_LEVEL: 'warn',
      },
      timeout: 60_000,
    });
    const lines = stdout.trim().split('\n');
    expect(lines[0]).to.match(/^> payment-links@/);
    expect(JSON.parse(lines.at(-1) ?? '')).to.have.property('panel_token');
    expect(stderr).to.include('npm run --silent cli -- seed --json');
  });

  it('seed --inactive creates a company whose keys are refused', async () => {
    const { stdout } = await cli('seed', '--json', '--inactive');
    const seeded = JSON.parse(stdout) as { company: { active: boolean }; keys: { live: string } };
    expect(seeded.company.active).to.equal(false);
    const app = await sharedApp();
    expect((await app.http.get('/v1/offers', { auth: seeded.keys.live })).status).to.equal(403);
  });

  it('key create, key revoke, token create and company deactivate print what they did and take effect', async function () {
    // Six CLI processes, each booting the CLI: at load average 25 one took about 11 s.
    this.timeout(180_000);
    const app = await sharedApp();
    const seeded = JSON.parse((await cli('seed', '--json')).stdout) as { company: { id: number } };
    const id = String(seeded.company.id);

    const created = await cli('key', 'create', '--company', id, '--name', 'ci', '--test');
    expect(created.stdout).to.match(/Created payments test key \d+ for company/);
    const key = created.stdout.trim().split('\n').pop() ?? '';
    expect((await app.http.get('/v1/offers', { auth: key })).status).to.equal(200);

    const keyId = /key (\d+) for company/.exec(created.stdout)?.[1] ?? '';
    const revoked = await cli('key', 'revoke', '--company', id, '--key', keyId);
    expect(revoked.stdout).to.match(new RegExp(`Revoked key ${keyId}`));
    expect((await app.http.get('/v1/offers', { auth: key })).status).to.equal(401);

    const token = await cli('token', 'create', '--company', id);
    expect(token.stdout).to.match(/Created panel token for company/);
    expect(token.stdout.trim().split('\n').pop()).to.match(/^pt_[0-9A-Za-z]{40}$/);

    const second = await cli('key', 'create', '--company', id);
    const liveKey = second.stdout.trim().split('\n').pop() ?? '';
    const deactivated = await cli('company', 'deactivate', '--company', id);
    expect(deactivated.stdout).to.match(/is now inactive/);
    expect((await app.http.get('/v1/offers', { auth: liveKey })).status).to.equal(403);
  });

  describe('a command line is checked before anything starts', () => {
    let home: string;
    before(async () => {
      home = await mkdtemp(path.join(tmpdir(), 'plinks-cli-args-'));
    });
    after(async () => {
      await rm(home, { recursive: true, force: true });
    });

    /**
     * The CLI with no DATABASE_URL or REDIS_URL, so that anything it started would be the embedded
     * PostgreSQL under a DATA_DIR of its own: that folder staying absent, and no start-up line in
     * the (info-level) logs, show nothing was started.
     */
    async function bare(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
      const dataDir = path.join(home, `data-${args.join('_').replace(/[^a-z0-9]/gi, '') || 'none'}`);
      const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'info' };
      delete env.DATABASE_URL;
      delete env.REDIS_URL;
      const result = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
        env,
        timeout: 60_000,
      }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (err: { code: number; stdout: string; stderr: string }) => err,
      );
      expect(existsSync(dataDir), `${args.join(' ')}: DATA_DIR created, so PostgreSQL was started`).to.equal(
        false,
      );
      expect(result.stderr, args.join(' ')).not.to.match(/PostgreSQL ready|redis-server ready/);
      return { code: result.code, stdout: result.stdout, stderr: result.stderr };
    }

    it('--help and `<command> --help` print the usage and exit 0', async () => {
      for (const args of [['--help'], ['seed', '--help']]) {
        const { code, stdout } = await bare(...args);
        expect(code, args.join(' ')).to.equal(0);
        expect(stdout, args.join(' ')).to.match(/^Usage: npm run cli -- <command> \[options\]/);
      }
    });

    it('an unknown flag, an unknown command or a bad value exits 2 with the usage', async () => {
      const cases: Array<[string[], RegExp]> = [
        [['seed', '--bogus'], /Unknown option '--bogus'/],
        [['frobnicate'], /Unknown command "frobnicate"/],
        [['key', 'create', '--company', 'x'], /--company must be a positive integer/],
      ];
      for (const [args, message] of cases) {
        const { code, stdout, stderr } = await bare(...args);
        expect(code, args.join(' ')).to.equal(2);
        expect(stdout, args.join(' ')).to.equal('');
        expect(stderr, args.join(' ')).to.match(message);
        expect(stderr, args.join(' ')).to.include('Usage: npm run cli -- <command> [options]');
      }
    });
  });

  describe('parseInvocation', () => {
    const refusal = (...args: string[]): string => {
      try {
        parseInvocation(args);
      } catch (err) {
        if (err instanceof UsageError) return err.message;
        throw err;
      }
      throw new Error(`${args.join(' ')} parsed`);
    };

    it('reads help from --help, -h, help or no command, whatever else is on the line', () => {
      for (const args of [['--help'], ['-h'], ['help'], [], ['seed', '--help'], ['key', 'create', '-h']]) {
        expect(parseInvocation(args), args.join(' ')).to.deep.equal({ command: 'help' });
      }
    });

    it('refuses unknown flags and commands, flags of another command, missing and bad values', () => {
      expect(refusal('--bogus')).to.match(/Unknown option '--bogus'/);
      expect(refusal('seed', '--jsn')).to.match(/Unknown option '--jsn'/);
      expect(refusal('frobnicate')).to.equal('Unknown command "frobnicate"');
      expect(refusal('key', 'delete', '--company', '1')).to.equal('Unknown command "key delete"');
      expect(refusal('seed', 'extra')).to.equal('Unknown command "seed extra"');
      expect(refusal('seed', '--company', '3')).to.match(
        /^--company: not an option of "seed" \(it takes --json/,
      );
      expect(refusal('seed', '--name')).to.match(/'--name <value>' argument missing/);
      expect(refusal('seed', '--json=yes')).to.match(/--json/);
      expect(refusal('key', 'create')).to.equal('--company is required');
      expect(refusal('key', 'create', '--company', '0')).to.equal('--company must be a positive integer');
      expect(refusal('key', 'revoke', '--company', '1', '--key', '1.5')).to.equal(
        '--key must be a positive integer',
      );
      expect(refusal('key', 'create', '--company', '1', '--kind', 'admin')).to.equal(
        '--kind must be payments or read_only',
      );
      expect(refusal('token', 'create', '--company', '1', '--user', 'me')).to.equal(
        '--user must be a positive integer',
      );
      expect(refusal('listen', '--company', '1', '--events', 'order.nope')).to.match(
        /^unknown event kind: order.nope/,
      );
      expect(refusal('queues', 'pause', '--queue', 'nope')).to.match(/^--queue must be one of outbox,/);
      expect(refusal('queues', 'status', '--company', '1')).to.match(/not an option of "queues status"/);
    });

    it('gives each command its checked options', () => {
      expect(parseInvocation(['seed', '--json', '--name', 'Acme'])).to.deep.equal({
        command: 'seed',
        json: true,
        name: 'Acme',
        inactive: false,
      });
      expect(parseInvocation(['key', 'create', '--company', '4', '--kind', 'read_only'])).to.deep.equal({
        command: 'key create',
        companyId: 4,
        name: undefined,
        kind: 'read_only',
        test: false,
      });
      expect(parseInvocation(['token', 'create', '--company', '4'])).to.deep.equal({
        command: 'token create',
        companyId: 4,
        userId: undefined,
      });
      expect(
        parseInvocation(['listen', '--company', '4', '--events', 'order.paid, lead.created']),
      ).to.include({
        command: 'listen',
        companyId: 4,
        json: false,
      });
      expect(parseInvocation(['listen', '--company', '4', '--events', 'order.paid,lead.created']))
        .to.have.property('events')
        .that.deep.equals(['order.paid', 'lead.created']);
      expect(parseInvocation(['queues', 'resume', '--queue', 'deliveries', '--json'])).to.deep.equal({
        command: 'queues',
        action: 'resume',
        queue: 'deliveries',
        json: true,
      });
    });
  });
});
