import { expect } from 'chai';
import { exampleEventData } from '../../src/events/examples.js';
import { EVENT_KINDS } from '../../src/events/kinds.js';
import { sharedApp } from '../helpers/app.js';
import { servedWebhookValidator, takeWebhookViolations } from '../helpers/webhook-validator.js';
import { Receiver, sampleEventData } from '../events/helpers.js';

interface Doc {
  webhooks: Record<
    string,
    { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }
  >;
  components: { schemas: Record<string, { properties: { type: { const: string } } }> };
}

const envelope = (type: string, data: Record<string, unknown>) => ({
  id: 'evt_0123456789abcdefghijABCD',
  type,
  created_at: '2026-01-02T03:04:05.000Z',
  livemode: true,
  test: false,
  sandbox: false,
  data,
});

describe('OpenAPI webhooks: one entry per event kind, and the receivers check every body against it', () => {
  it('lists every kind of src/events/kinds.ts under webhooks, each with its own envelope schema', async () => {
    const app = await sharedApp();
    const doc = (await app.http.get<Doc>('/v1/openapi.json')).body;
    expect(Object.keys(doc.webhooks).sort()).to.deep.equal([...EVENT_KINDS].sort());
    expect(EVENT_KINDS).to.include('order.payment_declined');
    for (const kind of EVENT_KINDS) {
      const ref = doc.webhooks[kind]?.post.requestBody.content['application/json']?.schema.$ref ?? '';
      const name = ref.replace('#/components/schemas/', '');
      expect(doc.components.schemas[name]?.properties.type.const, kind).to.equal(kind);
    }
    // The panel document does not describe the events.
    const panel = (await app.http.get<Partial<Doc>>('/panel/v1/openapi.json')).body;
    expect(panel).not.to.have.property('webhooks');
  });

  it('accepts a body of the documented shape and names what is wrong with one that drifts', async () => {
    const validator = await servedWebhookValidator();
    const paid = sampleEventData('order.paid', 7);
    expect(validator.problem(JSON.stringify(envelope('order.paid', paid)))).to.equal(undefined);
    expect(
      validator.problem(JSON.stringify(envelope('lead.created', sampleEventData('lead.created', null)))),
    ).to.equal(undefined);

    const drifts: Array<[string, unknown]> = [
      ['an unknown field in data', envelope('order.paid', { ...paid, extra: 1 })],
      ['a missing field', envelope('order.paid', { ...paid, purchase: undefined })],
      [
        'another kind’s order status',
        envelope('order.paid', { ...paid, order: { ...(paid.order as object), status: 'pending' } }),
      ],
      [
        'an amount that is a number',
        envelope('order.paid', { ...paid, order: { ...(paid.order as object), amount: 10 } }),
      ],
      ['both offer and plan', envelope('order.paid', { ...paid, plan: null, subscription: null })],
      [
        'a lead without its e-mail',
        envelope('lead.created', { ...sampleEventData('lead.created', 1), lead: { name: 'x' } }),
      ],
      [
        'an order on an expired link made up as real',
        envelope('order.expired', { ...paid, order: paid.order }),
      ],
      ['an unknown kind', envelope('order.shipped', paid)],
      ['an envelope without sandbox', { ...envelope('order.paid', paid), sandbox: undefined }],
    ];
    for (const [what, body] of drifts) {
      expect(validator.problem(JSON.stringify(body)), what).to.be.a('string');
    }
    expect(validator.problem('not json')).to.match(/not JSON/);
  });

  it('accepts the example of every kind (what a test send delivers), and holds subscription events to their state', async () => {
    const validator = await servedWebhookValidator();
    for (const kind of EVENT_KINDS) {
      for (const simulated of [false, true]) {
        const data = exampleEventData(kind, { productId: 7, simulated });
        expect(validator.problem(JSON.stringify(envelope(kind, data))), `${kind} ${simulated}`).to.equal(
          undefined,
        );
      }
    }
    const pastDue = exampleEventData('subscription.past_due');
    const canceled = exampleEventData('subscription.canceled');
    const subscriptionOf = (data: Record<string, unknown>) => data.subscription as Record<string, unknown>;
    const drifts: Array<[string, unknown]> = [
      [
        'a past_due event about an active subscription',
        envelope('subscription.past_due', {
          ...pastDue,
          subscription: { ...subscriptionOf(pastDue), status: 'active' },
        }),
      ],
      [
        'a canceled event without its reason',
        envelope('subscription.canceled', {
          ...canceled,
          subscription: { ...subscriptionOf(canceled), cancel_reason: null },
        }),
      ],
      [
        'a subscription event without the panel fields',
        envelope('subscription.canceled', {
          ...canceled,
          subscription: { id: 1, status: 'canceled', current_period_end: '2026-01-01T00:00:00.000Z' },
        }),
      ],
      ['a subscription event with an order', envelope('subscription.past_due', { ...pastDue, order: null })],
      [
        'a chargeback of an order still paid',
        envelope('order.chargeback', {
          ...exampleEventData('order.chargeback'),
          order: { ...(exampleEventData('order.paid').order as object) },
        }),
      ],
    ];
    for (const [what, body] of drifts) {
      expect(validator.problem(JSON.stringify(body)), what).to.be.a('string');
    }
  });

  it('a test receiver records a body off its schema, so the running test fails', async () => {
    const receiver = await new Receiver().start();
    try {
      const res = await fetch(receiver.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'webhook-id': 'evt_drift' },
        body: JSON.stringify(envelope('order.paid', { order: null })),
      });
      expect(res.status).to.equal(200);
      expect(receiver.violations).to.have.length(1);
      expect(receiver.violations[0]).to.match(/^webhook evt_drift: order\.paid body does not match/);
      // waitFor refuses to hand the test a drifted body.
      let thrown: unknown;
      await receiver.waitFor(1).catch((err: unknown) => (thrown = err));
      expect(String(thrown)).to.match(/does not match/);
    } finally {
      await receiver.close();
      // Taken here so the root afterEach hook, which would fail this test with it, sees nothing.
      expect(takeWebhookViolations()).to.have.length(1);
    }
  });
});
