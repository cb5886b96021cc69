import { expect } from 'chai';
import { seed } from '../helpers/app.js';
import { activeOffer, createLink } from '../checkout/helpers.js';
import { eventually, startEngine, type Engine } from '../events/helpers.js';
import { send, signIn } from '../dashboard/helpers.js';
import { noteSecret } from '../helpers/secrets.js';
import { MetaCapiStandIn } from '../helpers/ad-platforms/meta-capi.js';
import { visitAndPay } from './helpers.js';

/** A delivery's own page as the log links it (`…/deliveries/<id>`, not an action under it). */
const DELIVERY = /\/deliveries\/(\w+)(?:\?[^"]*)?"/;
const TOKEN = 'EAAdashboardStandinToken9876543210zyx';

/** The dashboard's ad platform forms, its test conversion and its delivery log (docs/ad-conversions.md). */
describe('dashboard: ad_pixel integrations', function () {
  this.timeout(90_000);
  let engine: Engine;
  const meta = new MetaCapiStandIn(TOKEN);

  before(async () => {
    noteSecret(TOKEN);
    await meta.start();
    engine = await startEngine({ META_GRAPH_URL: meta.url });
  });
  after(async () => {
    await engine.close();
    await meta.close();
  });

  it('creates a Meta integration, shows its token masked, sends a test conversion and logs requests masked', async () => {
    const app = engine.app;
    const tenant = await seed();
    const owner = await signIn(app, tenant.panel_token);
    const form = await send(app, 'GET', '/integrations/new-ad-pixel?lang=en', { session: owner });
    expect(form.status).to.equal(200);
    expect(form.text)
      .to.include('Conversions API access token')
      .and.include('Measurement Protocol API secret')
      .and.include('Also load the Meta pixel on the order page');
    const fields = {
      provider: 'meta',
      pixel_id: '1234567890',
      access_token: TOKEN,
      test_event_code: 'TEST77',
      browser_pixel: 'true',
      measurement_id: '',
      api_secret: '',
      events: ['order.paid', 'order.created'],
      send_to_all_products: 'true',
    };
    const refused = await send(app, 'POST', '/integrations/ad-pixel?lang=en', {
      session: owner,
      form: { ...fields, pixel_id: 'not-digits' },
    });
    expect(refused.status).to.equal(400);
    expect(refused.text).to.include('Check this field.').and.include('aria-invalid="true"');
    // A refused form is shown again without the credential typed in it.
    expect(refused.text).not.to.include(TOKEN);

    const created = await send(app, 'POST', '/integrations/ad-pixel?lang=en', {
      session: owner,
      form: fields,
    });
    expect(created.status, created.text.slice(0, 400)).to.equal(303);
    const path = new URL(created.location ?? '', app.url).pathname.replace('/dashboard', '');
    const page = await send(app, 'GET', `${path}?lang=en`, { session: owner });
    expect(page.text).to.include('Meta (Conversions API)').and.include('1234567890').and.include('••••');
    expect(page.text).not.to.include(TOKEN);
    // The browser pixel as ticked: a fact, the box ticked in the form, `true` in the panel API.
    expect(page.text).to.match(/Browser pixel<\/dt>\s*<dd>On<\/dd>/);
    expect(page.text).to.match(
      /name="browser_pixel"\s+value="true"\s+aria-describedby="browser_pixel-hint"\s+checked/,
    );
    const integrationId = path.split('/').at(-1);
    const read = async () =>
      (
        await app.http.get<{ config: Record<string, unknown> }>(`/panel/v1/integrations/${integrationId}`, {
          auth: tenant.panel_token,
        })
      ).body.config;
    expect(await read()).to.include({ browser_pixel: true });

    // The form sends the mask back: the token is kept.
    const saved = await send(app, 'POST', `${path}/ad-pixel?lang=en`, {
      session: owner,
      form: { provider: 'meta', pixel_id: '222333444', access_token: '••••', test_event_code: 'TEST77' },
    });
    expect(saved.status).to.equal(303);
    // The box left unticked turns the browser pixel off.
    expect(await read()).to.include({ browser_pixel: false, pixel_id: '222333444' });

    const tested = await send(app, 'POST', `${path}/test?lang=en`, {
      session: owner,
      form: { event: 'order.paid' },
    });
    expect(tested.status).to.equal(200);
    expect(tested.text).to.include('id="test-outcome"');
    const conversion = meta.requests.at(-1);
    expect(conversion).to.include({ pixelId: '222333444', testEventCode: 'TEST77' });

    // A live sale: its attempt in the delivery log, the token masked.
    const link = await createLink(app, tenant.keys.live, { offer_code: activeOffer(tenant).code });
    const { order } = await visitAndPay(app, tenant, link, { userAgent: 'Mozilla/5.0 (dashboard)' });
    await eventually(
      async () =>
        meta.events().find((e) => e.custom_data?.order_id === order.code && e.event_name === 'Purchase'),
      15_000,
      'Purchase',
    );
    const withLog = await eventually(
      async () => {
        const p = await send(app, 'GET', `${path}?lang=en`, { session: owner });
        return DELIVERY.test(p.text) ? p : undefined;
      },
      10_000,
      'a delivery listed',
    );
    const ids = [...withLog.text.matchAll(new RegExp(DELIVERY.source, 'g'))].map((m) => m[1]);
    const details = await Promise.all(
      ids.map((id) => send(app, 'GET', `${path}/deliveries/${id}?lang=en`, { session: owner })),
    );
    const text = details.map((d) => d.text).join('\n');
    expect(text).to.include('&quot;access_token&quot;:&quot;••••&quot;');
    expect(text).to.include('events_received');
    expect(text).not.to.include(TOKEN);
  });
});
