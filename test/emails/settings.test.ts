import { expect } from 'chai';
import { seed, sharedApp } from '../helpers/app.js';
import { expectError } from '../panel/helpers.js';
import { P, panelRoles } from '../orders/helpers.js';
import { send, signIn } from '../dashboard/helpers.js';

interface Settings {
  object: 'email_settings';
  sender_name: string;
  reply_to: string | null;
  messages: Record<string, boolean>;
}

const DEFAULTS = {
  instructions: true,
  reminder: true,
  receipt: true,
  refund: true,
  renewal_notice: true,
  renewal_failed: true,
  canceled: true,
  recovery: false,
};

describe('Panel: /email-settings (every role) and the dashboard’s E-mails page', function () {
  this.timeout(30_000);

  it('shows the defaults to owners, members and read-only keys: the company’s name, no support address, recovery off', async () => {
    const app = await sharedApp();
    const tenant = await seed({ name: 'Estúdio Luz' });
    const roles = await panelRoles(app, tenant);
    for (const auth of [roles.owner, roles.member, roles.readOnly]) {
      const res = await app.http.get<Settings>(`${P}/email-settings`, { auth });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        object: 'email_settings',
        sender_name: 'Estúdio Luz',
        reply_to: null,
        messages: DEFAULTS,
      });
    }
  });

  it('lets owners and members change them (a kind left out keeps its value, null is the default); a read-only key is refused', async () => {
    const app = await sharedApp();
    const tenant = await seed({ name: 'Casa Verde' });
    const roles = await panelRoles(app, tenant);
    const owner = await app.http.patch<Settings>(`${P}/email-settings`, {
      auth: roles.owner,
      body: {
        sender_name: 'Casa Verde Atendimento',
        reply_to: 'Ajuda@Casa.Example',
        messages: { recovery: true },
      },
    });
    expect(owner.status).to.equal(200);
    expect(owner.body).to.deep.equal({
      object: 'email_settings',
      sender_name: 'Casa Verde Atendimento',
      reply_to: 'Ajuda@casa.example',
      messages: { ...DEFAULTS, recovery: true },
    });
    const member = await app.http.patch<Settings>(`${P}/email-settings`, {
      auth: roles.member,
      body: { sender_name: null, messages: { receipt: false } },
    });
    expect(member.status).to.equal(200);
    expect(member.body).to.deep.include({ sender_name: 'Casa Verde', reply_to: 'Ajuda@casa.example' });
    expect(member.body.messages).to.deep.equal({ ...DEFAULTS, recovery: true, receipt: false });
    expectError(
      await app.http.patch(`${P}/email-settings`, {
        auth: roles.readOnly,
        body: { messages: { receipt: true } },
      }),
      403,
      'permission_error',
    );
    expect(
      (await app.http.get<Settings>(`${P}/email-settings`, { auth: roles.readOnly })).body.messages.receipt,
    ).to.equal(false);
    // Another company's settings are its own.
    const other = await seed();
    expect(
      (await app.http.get<Settings>(`${P}/email-settings`, { auth: other.panel_token })).body.messages,
    ).to.deep.equal(DEFAULTS);
  });

  it('refuses what could break a header or is no address, naming each field, and changes nothing', async () => {
    const app = await sharedApp();
    const tenant = await seed();
    for (const body of [
      { sender_name: 'Shop\r\nBcc: x@example.com' },
      { sender_name: '' },
      { reply_to: 'not an address' },
      { reply_to: 'a@example.com, b@example.com' },
      { messages: { receipt: 'yes' } },
      { messages: { newsletter: true } },
      { messages: {} },
      {},
    ]) {
      const res = await app.http.patch(`${P}/email-settings`, { auth: tenant.panel_token, body });
      expectError(res, 400, 'validation_error');
    }
    const res = await app.http.get<Settings>(`${P}/email-settings`, { auth: tenant.panel_token });
    expect(res.body.messages).to.deep.equal(DEFAULTS);
    expect(res.body.reply_to).to.equal(null);
  });

  it('documents both routes in the panel document, from the same schema', async () => {
    const app = await sharedApp();
    const doc = await app.http.get<{ paths: Record<string, Record<string, { requestBody?: unknown }>> }>(
      `${P}/openapi.json`,
    );
    const path = doc.body.paths['/email-settings'];
    expect(path).to.have.keys('get', 'patch');
    expect(JSON.stringify(path?.patch?.requestBody)).to.include('sender_name').and.include('recovery');
  });

  it('serves the dashboard page: the form for owners, the settings alone for a read-only session, a preview of each message', async () => {
    const app = await sharedApp();
    const tenant = await seed({ name: 'Loja <Azul>' });
    const owner = await signIn(app, tenant.panel_token);
    const page = await send(app, 'GET', '/emails?lang=en', { session: owner });
    expect(page.status).to.equal(200);
    expect(page.text)
      .to.include('name="sender_name"')
      .and.match(/name="messages"\s+value="recovery"/);
    expect(page.text).to.include('Loja &lt;Azul&gt;').and.not.include('Loja <Azul>');
    expect(page.text.match(/<section aria-labelledby="preview-/g)).to.have.length(8);
    const saved = await send(app, 'POST', '/emails?lang=en', {
      session: owner,
      form: {
        sender_name: 'Azul',
        reply_to: 'help@azul.example',
        messages: ['instructions', 'receipt', 'recovery'],
      },
    });
    expect(saved.status).to.equal(303);
    const after = await send(app, 'GET', (saved.location ?? '').replace(/^\/dashboard/, ''), {
      session: owner,
    });
    expect(after.text).to.include('Settings saved.');
    const api = await app.http.get<Settings>(`${P}/email-settings`, { auth: tenant.panel_token });
    expect(api.body).to.deep.equal({
      object: 'email_settings',
      sender_name: 'Azul',
      reply_to: 'help@azul.example',
      messages: {
        ...DEFAULTS,
        reminder: false,
        refund: false,
        renewal_notice: false,
        renewal_failed: false,
        canceled: false,
        recovery: true,
      },
    });
    const refused = await send(app, 'POST', '/emails', {
      session: owner,
      form: { sender_name: 'a\u0007b', reply_to: 'nope', messages: [] },
    });
    expect(refused.status).to.equal(400);
    expect(refused.text).to.include('aria-invalid="true"').and.include('Informe um e-mail válido');
    const preview = await send(app, 'GET', '/emails/preview/instructions?lang=en', { session: owner });
    expect(preview.status).to.equal(200);
    expect(preview.headers.get('content-security-policy')).to.include("default-src 'none'");
    expect(preview.text).to.include('<html lang="en">').and.include('src="data:image/png;base64,');
    expect((await send(app, 'GET', '/emails/preview/newsletter', { session: owner })).status).to.equal(404);

    const readOnly = await signIn(app, tenant.keys.read_only);
    const shown = await send(app, 'GET', '/emails?lang=en', { session: readOnly });
    expect(shown.text).to.include('read-only').and.not.include('name="sender_name"');
    expect(
      (await send(app, 'POST', '/emails', { session: readOnly, form: { sender_name: 'x' } })).status,
    ).to.equal(403);
  });
});
