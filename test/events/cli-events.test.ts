import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parseInvocation, UsageError } from '../../src/cli/arguments.js';
import { listCompanyEvents } from '../../src/cli/events.js';
import { recordEvent } from '../../src/events/outbox.js';
import { seed, sharedApp } from '../helpers/app.js';
import { testEnvironment } from '../helpers/environment.js';
import { sampleEventData } from './helpers.js';

const run = promisify(execFile);

async function record(
  companyId: number,
  type: 'order.paid' | 'lead.created',
  livemode: boolean,
): Promise<string> {
  const app = await sharedApp();
  return app.ctx.db.transaction(
    async (tx) =>
      (
        await recordEvent(tx, {
          companyId,
          type,
          livemode,
          test: false,
          productId: null,
          data: sampleEventData(type, null),
        })
      ).id,
  );
}

describe('cli events list', function () {
  this.timeout(60_000);

  it('prints one webhook body per line when piped, newest first, both modes, filtered by --type and --since', async () => {
    const tenant = await seed();
    const paid = await record(tenant.company.id, 'order.paid', true);
    const lead = await record(tenant.company.id, 'lead.created', false);
    const newest = await record(tenant.company.id, 'order.paid', false);
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'events',
        'list',
        '--company',
        String(tenant.company.id),
        '--type',
        'order.paid',
      ],
      {
        env: { ...process.env, DATABASE_URL: testEnvironment().databaseUrl, LOG_LEVEL: 'warn' },
        timeout: 60_000,
      },
    );
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; livemode: boolean });
    expect(lines.map((l) => l.id)).to.deep.equal([newest, paid]);
    expect(lines.map((l) => l.livemode)).to.deep.equal([false, true]);
    const app = await sharedApp();
    const one = await app.http.get(`/v1/events/${paid}`, { auth: tenant.keys.live });
    expect(stdout.split('\n')[1]).to.equal(one.text);

    const since = new Date(Date.now() + 60_000).toISOString();
    const none: string[] = [];
    await listCompanyEvents(app.ctx.db, {
      companyId: tenant.company.id,
      types: [],
      since: new Date(since),
      limit: 50,
      table: false,
      out: (line) => none.push(line),
    });
    expect(none).to.deep.equal([]);
    expect(lead).to.be.a('string');
  });

  it('prints a table for a terminal', async () => {
    const tenant = await seed();
    const id = await record(tenant.company.id, 'lead.created', false);
    const app = await sharedApp();
    const out: string[] = [];
    await listCompanyEvents(app.ctx.db, {
      companyId: tenant.company.id,
      types: [],
      since: undefined,
      limit: 50,
      table: true,
      out: (l) => out.push(l),
    });
    const [header, row] = out.join('\n').split('\n');
    expect(header).to.match(/^created_at\s+id\s+type\s+mode$/);
    expect(row).to.include(id).and.to.include('lead.created').and.to.match(/test$/);
  });

  it('refuses an unknown kind, a bad --since and a missing --company before starting anything', () => {
    for (const argv of [
      ['events', 'list', '--company', '1', '--type', 'order.nope'],
      ['events', 'list', '--company', '1', '--since', 'yesterday'],
      ['events', 'list'],
      ['events', 'list', '--company', '1', '--json'],
    ])
      expect(() => parseInvocation(argv), argv.join(' ')).to.throw(UsageError);
    expect(
      parseInvocation([
        'events',
        'list',
        '--company',
        '7',
        '--type',
        'order.paid,lead.created',
        '--since',
        '2026-11-24',
      ]),
    ).to.deep.include({
      command: 'events list',
      companyId: 7,
      types: ['order.paid', 'lead.created'],
      limit: 50,
    });
  });
});
