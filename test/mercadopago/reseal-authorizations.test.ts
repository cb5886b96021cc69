import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { resealGatewayCredentials } from '../../src/gateways/accounts/reseal.js';
import { credentialSealer, parseKeyRing, sealedKeyId } from '../../src/shared/credentials.js';
import { seed, startTestApp, type TestApp } from '../helpers/app.js';
import { noteSecret } from '../helpers/secrets.js';

const newKey = (): string => randomBytes(32).toString('base64');

/**
 * A gateway waiting for its authorization keeps a sealed PKCE verifier (gateway_authorizations,
 * migration 0923): `cli credentials reseal` moves it to the ring's newest key like every other sealed
 * value, and it still opens, to the same verifier, once the older key is gone.
 */
describe('cli credentials reseal: the verifiers of pending gateway authorizations', function () {
  this.timeout(120_000);
  const OLD = newKey();
  const NEW = newKey();
  for (const key of [OLD, NEW]) noteSecret(key);
  let app: TestApp;

  before(async () => {
    app = await startTestApp({ CREDENTIALS_ENCRYPTION_KEYS: `old:${OLD}` });
  });
  after(() => app.close());

  it('reseals a pending verifier under the newest key, to the same value, and skips it the second time', async () => {
    const tenant = await seed();
    const created = await app.http.post<{ id: number }>('/panel/v1/integrations/', {
      auth: tenant.panel_token,
      body: { type: 'gateway', config: { provider: 'dev' }, events: [] },
    });
    expect(created.status, created.text).to.equal(201);
    const read = async () => {
      const { rows } = await app.ctx.pool.query<{ state: string; code_verifier: string }>(
        'SELECT state, code_verifier FROM gateway_authorizations WHERE integration_id = $1',
        [created.body.id],
      );
      const [row] = rows;
      if (!row) throw new Error('the gateway waits for no authorization');
      return row;
    };
    const before = await read();
    expect(sealedKeyId(before.code_verifier)).to.equal('old');
    const purpose = `oauth_state:${before.state}:code_verifier`;
    const verifier = credentialSealer(parseKeyRing(`old:${OLD}`)).open(before.code_verifier, purpose);

    const rotated = { ...app.ctx.config, credentialsKey: parseKeyRing(`new:${NEW},old:${OLD}`) };
    const done = await resealGatewayCredentials({ db: app.ctx.db, config: rotated }, 2, () => undefined);
    const authorizations = done.find((p) => p.table === 'gateway_authorizations');
    // The suite's database also holds other tests' pending gateways, sealed under keys this ring does
    // not have: those stay unreadable to it; this one is resealed.
    expect(authorizations?.resealed).to.equal(1);
    expect(authorizations?.unreadable).not.to.include(created.body.id);

    const after = await read();
    expect(after.state).to.equal(before.state);
    expect(sealedKeyId(after.code_verifier)).to.equal('new');
    expect(credentialSealer(parseKeyRing(`new:${NEW}`)).open(after.code_verifier, purpose)).to.equal(
      verifier,
    );

    const again = await resealGatewayCredentials({ db: app.ctx.db, config: rotated }, 2, () => undefined);
    expect(again.find((p) => p.table === 'gateway_authorizations')).to.deep.include({ resealed: 0 });
  });
});
