import { expect } from 'chai';
import { buyerAddress } from '../helpers/smtp.js';
import { eventually } from '../helpers/eventually.js';
import { buy, mailTo, sellerWorld } from '../emails/helpers.js';
import { P } from '../orders/helpers.js';
import { csrfOf, signIn } from './helpers.js';

interface WireSubscription {
  id: number;
  status: string;
  cancel_at_period_end: boolean;
}

describe('The buyer’s page: subscriptions (cancel at the period end or now, pay a failed renewal now)', function () {
  this.timeout(90_000);
  const world = sellerWorld({ name: 'Clube da Ana' });
  const app = () => world.app;
  const subscription = async (id: number): Promise<WireSubscription> =>
    (await app().http.get<WireSubscription>(`${P}/subscriptions/${id}`, { auth: world.tenant.panel_token }))
      .body;

  it('cancels at the period end, then at once, firing subscription.canceled as the panel does', async () => {
    const plan = world.tenant.plans.find((p) => p.status === 'active');
    const email = buyerAddress('member');
    const { order } = await buy(app(), world.tenant, {
      email,
      method: 'credit_card',
      code: plan?.code ?? '',
    });
    expect(order.status).to.equal('paid');
    const id = order.subscription_id ?? 0;
    const browser = await signIn(app(), email);
    const page = await browser.get('/account?lang=en');
    expect(page.body).to.include(`subscriptions/${id}/cancel`);
    expect(page.body).to.include('Cancel at the period end').and.include('Cancel now');

    const atEnd = await browser.post(`/account/subscriptions/${id}/cancel`, {
      _csrf: csrfOf(page.body),
      when: 'period_end',
    });
    expect(atEnd.status).to.equal(303);
    expect(await subscription(id)).to.include({ status: 'active', cancel_at_period_end: true });
    expect((await browser.get('/account?lang=en')).body).to.include('It will be canceled on');

    expect(
      (await browser.post(`/account/subscriptions/${id}/cancel`, { _csrf: csrfOf(page.body), when: 'later' }))
        .status,
    ).to.equal(400);
    const now = await browser.post(`/account/subscriptions/${id}/cancel`, {
      _csrf: csrfOf(page.body),
      when: 'now',
    });
    expect(now.status).to.equal(303);
    expect((await subscription(id)).status).to.equal('canceled');
    const event = await eventually(async () => {
      const list = await app().http.get<{
        data: Array<{ type: string; data: { subscription?: { id: number } } }>;
      }>('/v1/events?type=subscription.canceled&limit=100', { auth: world.tenant.keys.live });
      return list.body.data.find((e) => e.data.subscription?.id === id);
    });
    expect(event.type).to.equal('subscription.canceled');
    // Another buyer's subscription does not exist here.
    const other = await buy(app(), world.tenant, { method: 'credit_card', code: plan?.code ?? '' });
    const refused = await browser.post(`/account/subscriptions/${other.order.subscription_id ?? 0}/cancel`, {
      _csrf: csrfOf(page.body),
      when: 'now',
    });
    expect(refused.status).to.equal(404);
    expect((await subscription(other.order.subscription_id ?? 0)).status).to.equal('active');
  });

  it('links a past-due subscription to its pay-now page', async () => {
    const plan = world.tenant.plans.find((p) => p.status === 'active');
    const email = buyerAddress('late');
    const { order } = await buy(app(), world.tenant, {
      email,
      method: 'credit_card',
      code: plan?.code ?? '',
    });
    const id = order.subscription_id ?? 0;
    const failed = await app().http.post(`${P}/subscriptions/${id}/renew`, {
      auth: world.tenant.panel_token,
      body: { outcome: 'failed' },
    });
    expect(failed.status, failed.text).to.equal(200);
    await mailTo(email, /renovar/);
    const browser = await signIn(app(), email);
    const page = await browser.get('/account');
    const href = /href="([^"]*renewals\?token=[^"]+)"/.exec(page.body)?.[1]?.replace(/&amp;/g, '&');
    expect(href, 'the pay-now link').to.be.a('string');
    const payNow = await browser.get(`/renewals?${href?.split('?')[1] ?? ''}`);
    expect(payNow.status).to.equal(200);
    expect(payNow.body).to.include('renewals/pay');
  });
});
