import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parseInvocation, UsageError } from '../../src/cli/arguments.js';
import { seed } from '../helpers/app.js';
import { testEnvironment } from '../helpers/environment.js';

const run = promisify(execFile);

/** The CLI as a user runs it, against the run's database, with a deployment default of 1.5 % + R$ 0.30. */
function cli(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    env: {
      ...process.env,
      DATABASE_URL: testEnvironment().databaseUrl,
      REDIS_URL: testEnvironment().redis.url,
      LOG_LEVEL: 'warn',
      PLATFORM_FEE_PERCENT: '1.5',
      PLATFORM_FEE_FIXED: '0.30',
    },
    timeout: 60_000,
  });
}

describe('CLI: company fee', function () {
  this.timeout(120_000);

  it('sets a company’s platform fee, part by part, says what it did, and resets it to the deployment’s', async () => {
    const tenant = await seed();
    const id = String(tenant.company.id);
    const name = tenant.company.name;
    const both = await cli('company', 'fee', '--company', id, '--percent', '4.99', '--fixed', '0.5');
    expect(both.stdout.trim()).to.equal(
      `Company ${id} "${name}": platform fee 4.99% (the company’s) + R$ 0.50 (the company’s) on each Mercado Pago payment from now on`,
    );
    const percentOnly = await cli('company', 'fee', '--company', id, '--percent', '10');
    expect(percentOnly.stdout).to.include('platform fee 10.00% (the company’s) + R$ 0.50 (the company’s)');
    const reset = await cli('company', 'fee', '--company', id, '--reset');
    expect(reset.stdout).to.include('platform fee 1.50% (the deployment’s) + R$ 0.30 (the deployment’s)');
  });

  it('fails naming the company when it does not exist, changing nothing', async () => {
    const err = await cli('company', 'fee', '--company', '987654321', '--percent', '1').then(
      () => undefined,
      (e: unknown) => e as { code: number; stderr: string },
    );
    expect(err?.code).to.equal(1);
    expect(err?.stderr).to.include('No company 987654321');
  });

  it('refuses a percent above 50, a fee with three decimals, a negative one, and no part at all', () => {
    const bad = [
      ['--percent', '50.01'],
      ['--percent', '-1'],
      ['--fixed', '0.333'],
      ['--fixed', 'abc'],
      [],
      ['--reset', '--percent', '1'],
    ];
    for (const args of bad)
      expect(() => parseInvocation(['company', 'fee', '--company', '1', ...args]), args.join(' ')).to.throw(
        UsageError,
      );
    expect(
      parseInvocation(['company', 'fee', '--company', '1', '--percent', '50', '--fixed', '0']),
    ).to.deep.equal({
      command: 'company fee',
      companyId: 1,
      percent: '50.00',
      fixed: '0.00',
      reset: false,
    });
  });
});
