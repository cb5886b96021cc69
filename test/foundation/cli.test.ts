import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
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

  it('key create, key revoke, token create and company deactivate print what they did and take effect', async () => {
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

  it('exits with status 2 and the usage on an unknown command', async () => {
    try {
      await cli('frobnicate');
      expect.fail('the CLI should have failed');
    } catch (err) {
      const failure = err as { code: number; stderr: string };
      expect(failure.code).to.equal(2);
      expect(failure.stderr).to.match(/Unknown command "frobnicate"/);
    }
  });
});
