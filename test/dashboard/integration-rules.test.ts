import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import type { SeedResult } from '../../src/cli/seed.js';
import { schema } from '../../src/shared/db/index.js';
import { createIntegration } from '../events/helpers.js';
import { seed, sharedApp, type TestApp } from '../helpers/app.js';
import { noteSecret } from '../helpers/secrets.js';
import { memberToken } from '../orders/helpers.js';

interface Answer {
  status: number;
  location: string | null;
  text: string;
}

/** The integration page's filter and headers forms, for owners, members and read-only sessions. */
describe('dashboard: an integration’s filter and headers', function () {
  this.timeout(30_000);
  let app: TestApp;
  let tenant: SeedResult;
  let integrationId: number;
  const VALUE = `dash-token-${Date.now()}-secret`;

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
    noteSecret(VALUE);
    integrationId = await createIntegration(app, tenant, {
      url: 'http://127.0.0.1:9/hook',
      events: ['order.paid'],
      sendToAllProducts: true,
    });
  });

  async function send(
    path: string,
    options: { cookie?: string; form?: Record<string, string> } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (options.cookie) headers.cookie = options.cookie;
    let body: string | undefined;
    if (options.form) {
      body = new URLSearchParams(options.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers['sec-fetch-site'] = 'same-origin';
      headers.origin = app.url;
    }
    const res = await fetch(`${app.url}/dashboard${path}?lang=en`, {
      method: options.form ? 'POST' : 'GET',
      headers,
      redirect: 'manual',
      ...(body !== undefined ? { body } : {}),
    });
    return { status: res.status, location: res.headers.get('location'), text: await res.text() };
  }

  async function signIn(credential: string): Promise<{ cookie: string; csrf: string }> {
    const cookie = await fetchCookie(credential);
    expect(cookie, 'a session cookie').to.not.equal('');
    return { cookie, csrf: await csrfOf(cookie) };
  }
  async function fetchCookie(credential: string): Promise<string> {
    const res = await fetch(`${app.url}/dashboard/sign-in`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'same-origin',
        origin: app.url,
      },
      body: new URLSearchParams({ credential }).toString(),
      redirect: 'manual',
    });
    const cookie = res.headers.getSetCookie()[0]?.split(';')[0] ?? '';
    noteSecret(cookie.split('=')[1] ?? '');
    return cookie;
  }
  async function csrfOf(cookie: string): Promise<string> {
    const page = await send('/integrations', { cookie });
    return /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
  }
  const stored = async () => {
    const [row] = await app.ctx.db
      .select({ filter: schema.integrations.filter, headers: schema.integrations.headers })
      .from(schema.integrations)
      .where(eq(schema.integrations.id, integrationId));
    return row;
  };

  it('lets an owner and a member set the filter and the headers, shown back masked', async () => {
    const owner = await signIn(tenant.panel_token);
    const saved = await send(`/integrations/${integrationId}/filter`, {
      cookie: owner.cookie,
      form: {
        _csrf: owner.csrf,
        filter: 'data.order.payment_method = pix, boleto\ndata.order.installments = 3\nlivemode = true',
      },
    });
    expect(saved.status, saved.text).to.equal(303);
    expect((await stored())?.filter).to.deep.equal({
      'data.order.payment_method': ['pix', 'boleto'],
      'data.order.installments': 3,
      livemode: true,
    });
    const member = await signIn(await memberToken(app, tenant));
    const headers = await send(`/integrations/${integrationId}/headers`, {
      cookie: member.cookie,
      form: { _csrf: member.csrf, headers: `Authorization: Bearer ${VALUE}\nX-Channel: web` },
    });
    expect(headers.status, headers.text).to.equal(303);
    const page = await send(`/integrations/${integrationId}`, { cookie: member.cookie });
    expect(page.text).to.include('data.order.payment_method = pix, boleto');
    expect(page.text).to.include('Authorization: ••••');
    expect(page.text).not.to.include(VALUE);
    // The form sent back as shown keeps the value.
    const before = (await stored())?.headers?.Authorization;
    const again = await send(`/integrations/${integrationId}/headers`, {
      cookie: member.cookie,
      form: { _csrf: member.csrf, headers: 'Authorization: ••••\nX-Channel: ••••' },
    });
    expect(again.status).to.equal(303);
    expect((await stored())?.headers?.Authorization).to.equal(before);

    // A path no event has, and a header of ours: a 400 page in the page's language, nothing changed.
    const badPath = await send(`/integrations/${integrationId}/filter`, {
      cookie: owner.cookie,
      form: { _csrf: owner.csrf, filter: 'data.order.colour = blue' },
    });
    expect(badPath.status).to.equal(400);
    expect(badPath.text).to.include('Check the filter');
    const badHeader = await send(`/integrations/${integrationId}/headers`, {
      cookie: owner.cookie,
      form: { _csrf: owner.csrf, headers: 'Host: evil.example' },
    });
    expect(badHeader.status).to.equal(400);
    expect(badHeader.text).to.include('Check the headers');
    expect(Object.keys((await stored())?.headers ?? {})).to.have.members(['Authorization', 'X-Channel']);
  });

  it('shows a read-only session the filter and the header names, no form, and refuses its posts', async () => {
    const reader = await signIn(tenant.keys.read_only);
    const page = await send(`/integrations/${integrationId}`, { cookie: reader.cookie });
    expect(page.status).to.equal(200);
    expect(page.text).to.include('id="current-filter"');
    expect(page.text).not.to.include('name="filter"');
    expect(page.text).not.to.include('name="headers"');
    for (const path of ['filter', 'headers']) {
      const posted = await send(`/integrations/${integrationId}/${path}`, {
        cookie: reader.cookie,
        form: { _csrf: reader.csrf, filter: '', headers: '' },
      });
      expect(posted.status, path).to.equal(403);
    }
    expect((await stored())?.filter).to.not.equal(null);
  });
});
