import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { purgeExpiredSessions } from '../../src/dashboard/sessions.js';
import { sha256Hex } from '../../src/shared/ids.js';
import { noteSecret } from '../helpers/secrets.js';
import { seed, sharedApp, startTestApp, type TestApp } from '../helpers/app.js';
import { createIntegration } from '../events/helpers.js';
import { memberToken } from '../orders/helpers.js';

interface Answer {
  status: number;
  location: string | null;
  setCookie: string[];
  text: string;
}

/**
 * The dashboard's session and form rules over plain HTTP: the cookie's attributes, what is stored,
 * CSRF tokens, same-origin posts, read-only sessions, sign-out.
 */
describe('dashboard sessions and forms', function () {
  this.timeout(30_000);
  let app: TestApp;
  let tenant: SeedResult;
  let integrationId: number;

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
    integrationId = await createIntegration(app, tenant, {
      url: 'http://127.0.0.1:9/hook',
      events: ['order.paid'],
      isActive: false,
    });
  });

  async function send(
    method: 'GET' | 'POST',
    path: string,
    options: { cookie?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.cookie) headers.cookie = options.cookie;
    let body: string | undefined;
    if (options.form) {
      body = new URLSearchParams(options.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(`${app.url}/dashboard${path}`, {
      method,
      headers,
      redirect: 'manual',
      ...(body !== undefined ? { body } : {}),
    });
    return {
      status: res.status,
      location: res.headers.get('location'),
      setCookie: res.headers.getSetCookie(),
      text: await res.text(),
    };
  }

  /** Signs in with `credential`; the cookie to send back and the page's CSRF token. */
  async function signIn(credential: string): Promise<{ cookie: string; csrf: string; setCookie: string }> {
    const answer = await send('POST', '/sign-in', { form: { credential } });
    expect(answer.status, answer.text).to.equal(303);
    expect(answer.location).to.equal('/dashboard');
    const setCookie = answer.setCookie[0] ?? '';
    const cookie = setCookie.split(';')[0] ?? '';
    noteSecret(cookie.split('=')[1] ?? '');
    const page = await send('GET', '/integrations', { cookie });
    expect(page.status).to.equal(200);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
    expect(csrf, 'a CSRF token in the page').to.be.a('string');
    return { cookie, csrf: csrf ?? '', setCookie };
  }

  it('sends a page without a session to the sign-in page', async () => {
    const answer = await send('GET', '/integrations');
    expect(answer.status).to.equal(303);
    expect(answer.location).to.equal('/dashboard/sign-in');
    const signInPage = await send('GET', '/sign-in?lang=en');
    expect(signInPage.status).to.equal(200);
    expect(signInPage.text).to.include('Sign in to the dashboard');
  });

  it('exchanges a panel token for an HttpOnly, SameSite=Strict, Secure, expiring cookie stored only hashed', async () => {
    const { cookie, setCookie } = await signIn(tenant.panel_token);
    const attributes = setCookie.split(';').map((a) => a.trim().toLowerCase());
    expect(attributes).to.include.members(['httponly', 'samesite=strict', 'secure', 'path=/dashboard']);
    expect(attributes.some((a) => a.startsWith('max-age=28800'))).to.equal(true);
    const id = cookie.split('=')[1] ?? '';
    const rows = await app.ctx.pool.query<{ session_hash: string; expires_at: Date }>(
      'SELECT session_hash, expires_at FROM dashboard_sessions WHERE company_id = $1',
      [tenant.company.id],
    );
    expect(rows.rows.map((r) => r.session_hash)).to.include(sha256Hex(id));
    expect(rows.rows.map((r) => r.session_hash)).not.to.include(id);
  });

  it('leaves Secure off the cookie in development only (plain http://localhost), and nothing else', async () => {
    const development = await startTestApp({ NODE_ENV: 'development' });
    try {
      const answer = await fetch(`${development.url}/dashboard/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ credential: tenant.panel_token }).toString(),
        redirect: 'manual',
      });
      expect(answer.status).to.equal(303);
      const setCookie = answer.headers.getSetCookie()[0] ?? '';
      noteSecret(setCookie.split(';')[0]?.split('=')[1] ?? '');
      const attributes = setCookie.split(';').map((a) => a.trim().toLowerCase());
      expect(attributes).to.include.members(['httponly', 'samesite=strict', 'path=/dashboard']);
      expect(attributes.some((a) => a.startsWith('max-age=28800'))).to.equal(true);
      expect(attributes).not.to.include('secure');
    } finally {
      await development.close();
    }
  });

  it('refuses a payments key or a wrong token at sign-in with the form again', async () => {
    for (const credential of [tenant.keys.test, 'pt_nothing', '']) {
      const answer = await send('POST', '/sign-in', { form: { credential } });
      expect(answer.status, credential).to.be.oneOf([400, 401]);
      expect(answer.setCookie).to.deep.equal([]);
      expect(answer.text).to.include('id="credential"');
    }
  });

  it('refuses a POST without the CSRF token, with another session’s, or from another site (403)', async () => {
    const owner = await signIn(tenant.panel_token);
    const other = await signIn(tenant.panel_token);
    const path = `/integrations/${integrationId}/enable`;
    const refused = [
      await send('POST', path, { cookie: owner.cookie, form: {} }),
      await send('POST', path, { cookie: owner.cookie, form: { _csrf: other.csrf } }),
      await send('POST', path, {
        cookie: owner.cookie,
        form: { _csrf: owner.csrf },
        headers: { 'sec-fetch-site': 'cross-site' },
      }),
      await send('POST', path, {
        cookie: owner.cookie,
        form: { _csrf: owner.csrf },
        headers: { origin: 'https://evil.example' },
      }),
      await send('POST', path, {
        cookie: owner.cookie,
        form: { _csrf: owner.csrf },
        headers: { 'sec-fetch-site': 'same-site', origin: app.url },
      }),
      await send('POST', path, { form: { _csrf: owner.csrf } }),
    ];
    expect(refused.map((a) => a.status)).to.deep.equal([403, 403, 403, 403, 403, 403]);
    const [row] = (
      await app.ctx.pool.query<{ is_active: boolean }>('SELECT is_active FROM integrations WHERE id = $1', [
        integrationId,
      ])
    ).rows;
    expect(row?.is_active).to.equal(false);
    const accepted = await send('POST', path, {
      cookie: owner.cookie,
      form: { _csrf: owner.csrf },
      headers: { 'sec-fetch-site': 'same-origin', origin: app.url },
    });
    expect(accepted.status, accepted.text).to.equal(303);
    expect(accepted.location).to.equal(`/dashboard/integrations/${integrationId}?done=enabled`);
  });

  it('lets a read-only key look, shows it no changing form, and answers 403 when it posts anyway', async () => {
    const reader = await signIn(tenant.keys.read_only);
    const page = await send('GET', `/integrations/${integrationId}`, { cookie: reader.cookie });
    expect(page.status).to.equal(200);
    const actions = [...page.text.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1]);
    expect(actions).to.deep.equal(['/dashboard/sign-out']);
    const posted = await send('POST', `/integrations/${integrationId}/rotate-secret`, {
      cookie: reader.cookie,
      form: { _csrf: reader.csrf },
    });
    expect(posted.status).to.equal(403);
    expect(posted.text).not.to.include('whsec_');
  });

  it('keeps every new form and confirmation page from read-only sessions and stale forms (403)', async () => {
    const reader = await signIn(tenant.keys.read_only);
    const owner = await signIn(tenant.panel_token);
    const posts = [
      '/integrations',
      `/integrations/${integrationId}/settings`,
      `/integrations/${integrationId}/test`,
      `/integrations/${integrationId}/delete`,
    ];
    for (const path of posts) {
      const asReader = await send('POST', path, {
        cookie: reader.cookie,
        form: { _csrf: reader.csrf, url: 'https://example.com/hook', event: 'order.paid' },
      });
      expect(asReader.status, `read-only ${path}`).to.equal(403);
      const withoutCsrf = await send('POST', path, { cookie: owner.cookie, form: { event: 'order.paid' } });
      expect(withoutCsrf.status, `no CSRF ${path}`).to.equal(403);
    }
    for (const path of [
      '/integrations/new',
      `/integrations/${integrationId}/delete`,
      `/integrations/${integrationId}/rotate-secret`,
      '/orders/00000000-0000-4000-8000-000000000000/refund',
      '/subscriptions/1/cancel',
      '/keys/1/revoke',
    ]) {
      const page = await send('GET', path, { cookie: reader.cookie });
      expect(page.status, `read-only GET ${path}`).to.equal(403);
    }
    const still = await app.ctx.pool.query('SELECT 1 FROM integrations WHERE id = $1', [integrationId]);
    expect(still.rowCount).to.equal(1);
  });

  it('words every refusal in Portuguese on a pt-BR page', async () => {
    const owner = await signIn(tenant.panel_token);
    const answers = [
      await send('GET', `/integrations/${integrationId}?status=lost&lang=pt-BR`, { cookie: owner.cookie }),
      await send('GET', '/integrations/999999?lang=pt-BR', { cookie: owner.cookie }),
      await send('POST', `/integrations/${integrationId}/recover?lang=pt-BR`, {
        cookie: owner.cookie,
        form: { _csrf: owner.csrf, since: 'yesterday' },
      }),
      await send('POST', `/integrations/${integrationId}/settings?lang=pt-BR`, {
        cookie: owner.cookie,
        form: { _csrf: owner.csrf, rate_limit_per_second: 'fast', events: 'order.nothing' },
      }),
      await send('POST', `/integrations/${integrationId}/enable?lang=pt-BR`, {
        cookie: owner.cookie,
        form: {},
      }),
    ];
    expect(answers.map((a) => a.status)).to.deep.equal([400, 404, 400, 400, 403]);
    for (const answer of answers) {
      const main = /<main>([\s\S]*)<\/main>/.exec(answer.text)?.[1] ?? '';
      const shown = main.replace(/<[^>]+>/g, ' ');
      expect(shown, shown).not.to.match(/\b(must|is not|required|Not found|No integration|stale|refused)\b/);
    }
    expect(answers[3]?.text).to.include('O limite por segundo deve ser um número inteiro');
    expect(answers[3]?.text).to.include('Escolha eventos da lista');
  });

  it('ends the session at sign-out: the cookie no longer opens a page or posts', async () => {
    const { cookie, csrf } = await signIn(tenant.panel_token);
    const out = await send('POST', '/sign-out', { cookie, form: { _csrf: csrf } });
    expect(out.status).to.equal(303);
    expect(out.location).to.equal('/dashboard/sign-in?done=signed_out');
    expect(out.setCookie[0]).to.match(/^plinks_dashboard=;/);
    expect((await send('GET', '/integrations', { cookie })).status).to.equal(303);
    const posted = await send('POST', `/integrations/${integrationId}/enable`, {
      cookie,
      form: { _csrf: csrf },
    });
    expect(posted.status).to.equal(403);
  });

  it('purges expired sessions, revoked or not, and keeps live ones', async () => {
    const own = await seed();
    for (let i = 0; i < 3; i++) await signIn(own.panel_token);
    const ids = async () =>
      (
        await app.ctx.pool.query<{ id: string }>(
          'SELECT id FROM dashboard_sessions WHERE company_id = $1 ORDER BY id',
          [own.company.id],
        )
      ).rows.map((r) => r.id);
    const [expired, revoked, live] = await ids();
    await app.ctx.pool.query(
      "UPDATE dashboard_sessions SET expires_at = now() - interval '1 minute' WHERE id = ANY($1)",
      [[expired, revoked]],
    );
    await app.ctx.pool.query('UPDATE dashboard_sessions SET revoked_at = now() WHERE id = $1', [revoked]);
    expect(await purgeExpiredSessions(app.ctx.db, new Date(), 1)).to.be.at.least(2);
    expect(await ids()).to.deep.equal([live]);
    // The purge's index covers revoked rows too (migration 0706).
    const indexes = await app.ctx.pool.query<{ indexdef: string }>(
      "SELECT indexdef FROM pg_indexes WHERE tablename = 'dashboard_sessions' AND indexdef LIKE '%(expires_at)%'",
    );
    expect(indexes.rows.map((r) => r.indexdef)).to.have.length(1);
    expect(indexes.rows[0]?.indexdef).not.to.include('WHERE');
  });

  it('ends every session of a token when the token is revoked', async () => {
    const own = await seed();
    const { cookie } = await signIn(own.panel_token);
    await app.ctx.pool.query('UPDATE panel_tokens SET revoked_at = now() WHERE token_hash = $1', [
      sha256Hex(own.panel_token),
    ]);
    expect((await send('GET', '/integrations', { cookie })).status).to.equal(303);
  });

  it('answers another company’s integration, or a bad filter, with an error page', async () => {
    const stranger = await seed();
    const { cookie } = await signIn(stranger.panel_token);
    const other = await send('GET', `/integrations/${integrationId}`, { cookie });
    expect(other.status).to.equal(404);
    expect(other.text).to.include('<main>');
    const own = await signIn(tenant.panel_token);
    const bad = await send('GET', `/integrations/${integrationId}?status=lost`, { cookie: own.cookie });
    expect(bad.status).to.equal(400);
  });

  it('lists orders with filters and keeps refunds to owners and members', async () => {
    const owner = await signIn(tenant.panel_token);
    expect((await send('GET', '/orders?status=paid&mode=live', { cookie: owner.cookie })).status).to.equal(
      200,
    );
    expect((await send('GET', '/orders?mode=sandbox', { cookie: owner.cookie })).status).to.equal(400);
    const unknown = await send('POST', '/orders/00000000-0000-4000-8000-000000000000/refund', {
      cookie: owner.cookie,
      form: { _csrf: owner.csrf },
    });
    expect(unknown.status).to.equal(404);
    const reader = await signIn(tenant.keys.read_only);
    const page = await send('GET', '/orders', { cookie: reader.cookie });
    expect(page.text).not.to.include('/refund');
    const refused = await send('POST', '/orders/00000000-0000-4000-8000-000000000000/refund', {
      cookie: reader.cookie,
      form: { _csrf: reader.csrf },
    });
    expect(refused.status).to.equal(403);
  });

  it('keeps subscription cancels to owners and members, with a valid at_period_end', async () => {
    const owner = await signIn(tenant.panel_token);
    expect((await send('GET', '/subscriptions?status=past_due', { cookie: owner.cookie })).status).to.equal(
      200,
    );
    expect((await send('GET', '/subscriptions?status=paused', { cookie: owner.cookie })).status).to.equal(
      400,
    );
    const bad = await send('POST', '/subscriptions/1/cancel', {
      cookie: owner.cookie,
      form: { _csrf: owner.csrf, at_period_end: 'soon' },
    });
    expect(bad.status).to.equal(400);
    const reader = await signIn(tenant.keys.read_only);
    const refused = await send('POST', '/subscriptions/1/cancel', {
      cookie: reader.cookie,
      form: { _csrf: reader.csrf },
    });
    expect(refused.status).to.equal(403);
  });

  it('keeps API keys to the owner: a member sees them but may not create or revoke', async () => {
    const member = await signIn(await memberToken(app, tenant));
    const page = await send('GET', '/keys?lang=en', { cookie: member.cookie });
    expect(page.status).to.equal(200);
    expect(page.text).to.include('Only the company owner');
    expect(page.text).not.to.include('/revoke');
    const created = await send('POST', '/keys', {
      cookie: member.cookie,
      form: { _csrf: member.csrf, name: 'x', kind: 'read_only', mode: 'test' },
    });
    expect(created.status).to.equal(403);
    const owner = await signIn(tenant.panel_token);
    const bad = await send('POST', '/keys', {
      cookie: owner.cookie,
      form: { _csrf: owner.csrf, name: 'x', kind: 'admin', mode: 'test' },
    });
    expect(bad.status).to.equal(400);
  });
});
