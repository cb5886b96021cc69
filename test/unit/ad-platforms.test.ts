import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/shared/config.js';
import { ga4ClientId } from '../../src/integrations/kinds/ad-pixel/ga4.js';
import { metaUserData } from '../../src/integrations/kinds/ad-pixel/meta.js';
import type { Sale } from '../../src/integrations/kinds/ad-pixel/port.js';

const sale = (over: Partial<Sale> = {}): Sale => ({
  eventId: 'evt_1',
  type: 'order.paid',
  at: new Date('2026-12-07T12:00:00Z'),
  order: { code: '3f0e5a52-55a8-4c47-9d57-6b0f1c0c8d10', amount: 10 },
  items: [],
  buyer: null,
  visit: {},
  ...over,
});

/**
 * The buyer's data as Meta's customer information parameters ask it normalised and hashed, checked
 * against the worked examples of that reference
 * (https://developers.facebook.com/docs/marketing-api/conversions-api/parameters/customer-information-parameters).
 */
describe('ad platforms: Meta user_data normalisation and GA4 client ids', () => {
  it('hashes e-mail, phone and names exactly as Meta’s examples show', () => {
    const data = metaUserData(
      sale({
        buyer: {
          name: 'Mary Valéry',
          email: '  John_Smith@gmail.com ',
          phone: '+1 (650) 555-1212',
          document: null,
        },
      }),
    );
    // Meta: "John_Smith@gmail.com" → john_smith@gmail.com → 62a14e44…
    expect(data.em).to.equal('62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f');
    // Meta: "(650)555-1212" with its country code → 16505551212 → e323ec62…
    expect(data.ph).to.equal('e323ec626319ca94ee8bff2e4c87cf613be6ea19919ed1364124e16807ab3176');
    // Meta: "Mary" → mary → 6915771b…; "Valéry" → valéry → 08e1996b…
    expect(data.fn).to.equal('6915771be1c5aa0c886870b6951b03d7eafc121fea0e80a5ea83beb7c449f4ec');
    expect(data.ln).to.equal('08e1996b5dd49e62a4b4c010d44e4345592a863bb9f8e3976219bac29417149c');
    // Not a Brazilian phone: no country guessed.
    expect(data).not.to.have.property('country');
  });

  it('leaves out what is unknown, and never hashes the browser’s ids', () => {
    expect(metaUserData(sale())).to.deep.equal({});
    const data = metaUserData(
      sale({
        buyer: { name: 'Ana', email: null, phone: null, document: '52998224725' },
        visit: {
          fbclid: 'IwAR1',
          seen_at: 1_765_000_000_123,
          fbp: 'fb.1.1.2',
          ip: '203.0.113.9',
          user_agent: 'UA',
        },
      }),
    );
    expect(data).to.have.all.keys(
      'fn',
      'external_id',
      'fbc',
      'fbp',
      'client_ip_address',
      'client_user_agent',
    );
    expect(data.fbc).to.equal('fb.1.1765000000123.IwAR1');
    expect(data.client_ip_address).to.equal('203.0.113.9');
    // A cookie the browser already has wins over one built from the click id.
    expect(metaUserData(sale({ visit: { fbc: 'fb.1.5.cookie', fbclid: 'IwAR1' } })).fbc).to.equal(
      'fb.1.5.cookie',
    );
  });

  it('takes GA4’s client id from the _ga cookie, else makes a stable one from the order', () => {
    expect(ga4ClientId(sale({ visit: { ga: 'GA1.1.1234567890.1700000000' } }))).to.equal(
      '1234567890.1700000000',
    );
    const made = ga4ClientId(sale({ visit: { ga: 'garbage' } }));
    expect(made).to.match(/^\d+\.\d+$/);
    expect(ga4ClientId(sale({ type: 'order.refunded', eventId: 'evt_2' }))).to.equal(made);
  });

  it('reads the platforms’ addresses from the configuration, with Meta’s and Google’s hosts by default', () => {
    expect(loadConfig({}).adPlatforms).to.deep.equal({
      metaGraphUrl: 'https://graph.facebook.com',
      metaGraphVersion: 'v25.0',
      ga4Url: 'https://www.google-analytics.com',
      metaPixelScriptUrl: 'https://connect.facebook.net/en_US/fbevents.js',
      metaPixelOrigin: 'https://www.facebook.com',
    });
    // The browser pixel's report address is kept as an origin (what the CSP names).
    expect(
      loadConfig({
        META_PIXEL_SCRIPT_URL: 'http://127.0.0.1:7/en_US/fbevents.js',
        META_PIXEL_HOST: 'http://127.0.0.1:6/',
      }).adPlatforms,
    ).to.include({
      metaPixelScriptUrl: 'http://127.0.0.1:7/en_US/fbevents.js',
      metaPixelOrigin: 'http://127.0.0.1:6',
    });
    expect(() => loadConfig({ META_PIXEL_HOST: 'javascript:alert(1)' })).to.throw(
      ConfigError,
      /META_PIXEL_HOST/,
    );
    expect(
      loadConfig({ META_GRAPH_URL: 'http://127.0.0.1:9/', GA4_MP_URL: 'http://127.0.0.1:8' }).adPlatforms,
    ).to.include({
      metaGraphUrl: 'http://127.0.0.1:9',
      ga4Url: 'http://127.0.0.1:8',
    });
    expect(() => loadConfig({ META_GRAPH_VERSION: '25' })).to.throw(ConfigError, /META_GRAPH_VERSION/);
    expect(() => loadConfig({ GA4_MP_URL: 'ftp://x' })).to.throw(ConfigError, /GA4_MP_URL/);
  });
});
