import { expect } from 'chai';
import { databaseBefore } from '../helpers/migration-database.js';

const AUTHORIZATIONS = '0923_gateway_authorizations';

/**
 * Migration 0923 on a database with gateway integrations from before it: the pending one keeps its
 * OAuth state, expiry and sealed verifier (moved as they were, so the sealed value still opens under
 * its purpose, which names the state), the others have nothing pending, and the integrations table
 * no longer carries the OAuth columns.
 */
describe(`migration ${AUTHORIZATIONS}`, function () {
  this.timeout(60_000);
  const database = databaseBefore(AUTHORIZATIONS);

  it('moves the pending OAuth state of gateway integrations to gateway_authorizations', async () => {
    const db = database();
    await db.migrate();
    const q = db.query;
    const [company] = await q<{ id: string }>(`INSERT INTO companies (name) VALUES ('Old') RETURNING id`);
    const expires = new Date('2026-12-07T20:00:00.000Z');
    const integration = async (values: string, params: unknown[]): Promise<number> => {
      const [row] = await q<{ id: number }>(
        `INSERT INTO integrations (company_id, type, config, is_active, oauth_pending, oauth_state,
                                   oauth_state_expires_at, oauth_code_verifier)
         VALUES ($1, ${values}) RETURNING id`,
        [company?.id, ...params],
      );
      return row?.id ?? 0;
    };
    const pending = await integration(`'gateway', '{"provider":"mercadopago"}', true, true, $2, $3, $4`, [
      'S'.repeat(31) + 'a',
      expires,
      'v2.default.sealed-verifier',
    ]);
    await integration(`'gateway', '{"provider":"dev"}', false, false, NULL, NULL, NULL`, []);
    await integration(`'webhook', '{"url":"https://example.com/hook"}', true, false, NULL, NULL, NULL`, []);

    await db.addMigration();
    expect(await db.migrate()).to.deep.equal([AUTHORIZATIONS]);

    const moved = await q(
      'SELECT integration_id, state, state_expires_at, code_verifier FROM gateway_authorizations',
    );
    expect(moved).to.deep.equal([
      {
        integration_id: pending,
        state: 'S'.repeat(31) + 'a',
        state_expires_at: expires,
        code_verifier: 'v2.default.sealed-verifier',
      },
    ]);
    const left = await q<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns
        WHERE table_name = 'integrations' AND column_name LIKE 'oauth%'`,
    );
    expect(left).to.deep.equal([]);
    // The authorization goes with its integration.
    await q('DELETE FROM integrations WHERE id = $1', [pending]);
    expect(await q('SELECT 1 FROM gateway_authorizations')).to.deep.equal([]);
  });
});
