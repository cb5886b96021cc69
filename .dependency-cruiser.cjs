/**
 * Folders depend one way: each layer may import only the layers listed before it (and itself).
 * docs/architecture.md explains each folder; `npm run lint` runs this check.
 */
const LAYERS = [
  ['queues', 'queues/'],
  ['shared', 'src/shared/'],
  // What both browser surfaces share (the escaping html tag, languages, plurals, message shapes,
  // static files): below every domain folder, so the buyer pages and the dashboard both reach it.
  ['ui', 'src/ui/'],
  // Running the stores: embedded PostgreSQL (as root too), the private redis-server, the supervisor,
  // and the start-up every process shares.
  ['infra', 'src/infra/'],
  ['events', 'src/events/'],
  // The catalog comes before the integrations: their product_ids cache follows its products.
  ['catalog', 'src/catalog/'],
  ['integrations', 'src/integrations/'],
  // Delivery needs only the outbox, the receivers and the plumbing below it.
  ['webhooks', 'src/webhooks/'],
  ['keys', 'src/keys/'],
  ['companies', 'src/companies/'],
  ['auth', 'src/auth/'],
  ['payment-links', 'src/payment-links/'],
  // Payment gateways: the port (gateways/port.ts), its adapters (the dev gateway, Mercado Pago), the
  // companies' PSP accounts and their OAuth (gateways/accounts/: the `gateway` integration kind, which
  // the integration core reaches through its connection port, filled at start-up by
  // gateways/install.ts) and the choice of a company's gateway. The orders charge, read and refund
  // through them.
  ['gateways', 'src/gateways/'],
  ['orders', 'src/orders/'],
  // E-mail to buyers: fed from the outbox, about orders and subscriptions; the checkout (consent,
  // unsubscribe, pay now) and the dashboard (settings, previews) sit above it.
  ['emails', 'src/emails/'],
  // Service invoices: fed from the outbox about paid, refunded and charged-back orders, issued through
  // the company's invoice integration on a queue of their own; the panel and dashboard sit above.
  ['invoices', 'src/invoices/'],
  ['sweeps', 'src/sweeps/'],
  ['simulate', 'src/simulate/'],
  ['checkout', 'src/checkout/'],
  // The buyer's page (`/pay/account`): a buyer's purchases across companies, drawn in the buyer
  // pages' layout, acting through the orders' services.
  ['buyer-account', 'src/buyer-account/'],
  // The dashboard: the panel's services behind a browser session.
  ['dashboard', 'src/dashboard/'],
  ['apps', 'src/apps/'],
  ['workers', 'workers/'],
  // Entry points: the processes and the CLI.
  ['entry', 'src/[^/]+\\.ts$|src/cli/'],
];

const upward = LAYERS.slice(0, -1).map(([name, path], index) => ({
  name: `${name}-imports-upward`,
  comment: `${name} may import only: ${LAYERS.slice(0, index + 1)
    .map(([n]) => n)
    .join(', ')}`,
  severity: 'error',
  from: { path: `^(${path})` },
  to: {
    path: `^(${LAYERS.slice(index + 1)
      .map(([, p]) => p)
      .join('|')})`,
  },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'no-circular',
      comment: 'A module cycle makes load order and ownership unclear',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'integration-kinds-below-their-core',
      comment:
        'An integration kind (src/integrations/kinds/) is used by the integration core and the delivery engine; ' +
        'it must not reach back into the core it plugs into',
      severity: 'error',
      from: { path: '^src/integrations/kinds/' },
      to: { path: '^src/integrations/[^/]+\\.ts$' },
    },
    {
      name: 'psp-adapters-behind-the-port',
      comment:
        'The orders and the checkout charge, read and refund through the gateway port (gateways/port.ts) ' +
        'and its registry (gateways/index.ts), never through a PSP adapter such as gateways/mercadopago/',
      severity: 'error',
      from: { path: '^src/(orders|checkout)/' },
      to: { path: '^src/gateways/mercadopago/' },
    },
    { name: 'not-to-unresolvable', severity: 'error', from: {}, to: { couldNotResolve: true } },
    {
      name: 'unlayered',
      comment: 'Every folder of src/ has a place in the layer order (add new folders to LAYERS)',
      severity: 'error',
      from: { path: '^src/', pathNot: `^(${LAYERS.map(([, p]) => p).join('|')})` },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js'],
      conditionNames: ['import', 'require', 'node', 'default'],
      // Subpath imports (`@opentelemetry/otlp-exporter-base/node-http`) exist only in a package's exports map.
      exportsFields: ['exports'],
    },
  },
};
