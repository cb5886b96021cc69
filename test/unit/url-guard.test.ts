import { expect } from 'chai';
import {
  assertSafeWebhookUrl,
  checkUrlShape,
  isPrivateAddress,
  type HostResolver,
} from '../../src/integrations/kinds/webhook/url-guard.js';
import { ValidationError } from '../../src/shared/errors.js';

const resolvesTo =
  (...addresses: string[]): HostResolver =>
  async () =>
    addresses.map((address) => ({ address }));

/** A resolver that must not be asked: the rule refuses before any DNS lookup. */
const unasked: HostResolver = async () => {
  throw new Error('no lookup expected');
};

async function refusal(promise: Promise<void>): Promise<ValidationError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error('expected a ValidationError');
}

describe('webhook URL guard', () => {
  describe('isPrivateAddress', () => {
    it('flags private, loopback, link-local, CGNAT and "this network" IPv4 ranges', () => {
      for (const ip of [
        '10.0.0.1',
        '10.255.255.255',
        '172.16.0.1',
        '172.31.255.254',
        '192.168.1.1',
        '127.0.0.1',
        '127.8.9.10',
        '169.254.169.254',
        '100.64.0.1',
        '100.127.255.255',
        '0.0.0.0',
        '0.1.2.3',
        '255.255.255.255',
        '224.0.0.1',
      ]) {
        expect(isPrivateAddress(ip), ip).to.equal(true);
      }
    });

    it('lets public IPv4 addresses through, including neighbours of the private ranges', () => {
      for (const ip of [
        '8.8.8.8',
        '1.1.1.1',
        '172.15.255.255',
        '172.32.0.1',
        '100.63.255.255',
        '100.128.0.1',
        '11.0.0.1',
        '169.253.1.1',
        '192.169.0.1',
      ]) {
        expect(isPrivateAddress(ip), ip).to.equal(false);
      }
    });

    it('flags IPv6 loopback, unspecified, unique-local, link-local and multicast addresses', () => {
      for (const ip of [
        '::1',
        '::',
        '0:0:0:0:0:0:0:1',
        'fc00::1',
        'fd12:3456::1',
        'fe80::1',
        'fe80::1%eth0',
        'febf::1',
        'ff02::1',
        '[::1]',
      ]) {
        expect(isPrivateAddress(ip), ip).to.equal(true);
      }
    });

    it('judges IPv4-mapped IPv6 addresses by their IPv4 part', () => {
      expect(isPrivateAddress('::ffff:127.0.0.1')).to.equal(true);
      expect(isPrivateAddress('::ffff:10.1.2.3')).to.equal(true);
      expect(isPrivateAddress('::ffff:7f00:1')).to.equal(true);
      expect(isPrivateAddress('::ffff:169.254.169.254')).to.equal(true);
      expect(isPrivateAddress('::ffff:8.8.8.8')).to.equal(false);
    });

    it('lets public IPv6 addresses through', () => {
      for (const ip of ['2001:4860:4860::8888', '2606:4700:4700::1111', '2a00:1450:4001:82a::200e']) {
        expect(isPrivateAddress(ip), ip).to.equal(false);
      }
    });

    it('flags addresses that tunnel or translate to another network: NAT64, 6to4, Teredo', () => {
      for (const ip of [
        '64:ff9b::a00:1',
        '64:ff9b::7f00:1',
        '64:ff9b:1::1',
        '2002:a00:1::1',
        '2001:0:4136:e378::1',
      ]) {
        expect(isPrivateAddress(ip), ip).to.equal(true);
      }
    });

    it('treats something that is not an address as unsafe', () => {
      for (const ip of ['', 'localhost', '1.2.3', '1.2.3.256', '1::2::3', 'gggg::1']) {
        expect(isPrivateAddress(ip), ip).to.equal(true);
      }
    });

    it('treats octal, hex and integer spellings of an IPv4 address as unsafe, whatever they would name', () => {
      // 017.0.0.1 is 17.0.0.1 to one parser and 15.0.0.1 to another: neither reading is trusted.
      for (const ip of ['0177.0.0.1', '0x7f.0.0.1', '0x7f000001', '2130706433', '017.0.0.1', '08.8.8.8']) {
        expect(isPrivateAddress(ip), ip).to.equal(true);
      }
    });

    it('flags the other special-purpose ranges: documentation, benchmarking, reserved, IPv6 outside 2000::/3', () => {
      for (const ip of [
        '192.0.2.1',
        '198.51.100.7',
        '203.0.113.9',
        '198.18.0.1',
        '192.0.0.8',
        '2001:db8::1',
        '2001:2::1',
        '::ffff:0:a00:1',
        '::10.0.0.1',
        '100::1',
        'fec0::1',
      ]) {
        expect(isPrivateAddress(ip), ip).to.equal(true);
      }
    });
  });

  describe('assertSafeWebhookUrl', () => {
    it('accepts an https URL whose host resolves only to public addresses', async () => {
      await assertSafeWebhookUrl(
        'https://hooks.example.com/x',
        false,
        resolvesTo('93.184.216.34', '2606:2800:220:1::1'),
      );
      await assertSafeWebhookUrl('https://93.184.216.34/hook', false, resolvesTo());
    });

    it('refuses plain http unless private targets are allowed, under config.url', async () => {
      const err = await refusal(
        assertSafeWebhookUrl('http://hooks.example.com/x', false, resolvesTo('93.184.216.34')),
      );
      expect(err.fields).to.have.property('config.url');
      await assertSafeWebhookUrl('http://127.0.0.1:9/x', true);
    });

    it('refuses a host when any one of its addresses is private', async () => {
      const err = await refusal(
        assertSafeWebhookUrl('https://mixed.example.com', false, resolvesTo('93.184.216.34', '10.0.0.5')),
      );
      expect(err.fields).to.have.property('config.url');
    });

    it('refuses private IP literals, v4 and v6, without resolving them', async () => {
      const never: HostResolver = async () => {
        throw new Error('must not resolve an IP literal');
      };
      for (const url of [
        'https://127.0.0.1/x',
        'https://169.254.169.254/latest',
        'https://[::1]/x',
        'https://[::ffff:10.0.0.1]/x',
        'https://[fe80::1]/x',
        // The URL parser reads these as 127.0.0.1: the host it will connect to is what is judged.
        'https://0177.0.0.1/x',
        'https://0x7f.0.0.1/x',
        'https://0x7f000001/x',
        'https://2130706433/x',
        'https://127.1/x',
        'https://[::ffff:7f00:1]/x',
        'https://[64:ff9b::7f00:1]/x',
      ]) {
        const err = await refusal(assertSafeWebhookUrl(url, false, never));
        expect(err.fields, url).to.have.property('config.url');
      }
    });

    it('refuses a host that does not resolve, and a name that resolves to loopback through the system resolver', async () => {
      const failing: HostResolver = async () => {
        throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
      };
      await refusal(assertSafeWebhookUrl('https://nowhere.invalid/x', false, failing));
      await refusal(assertSafeWebhookUrl('https://localhost/x', false));
    });

    it('refuses what is not an http(s) URL even when private targets are allowed', async () => {
      await refusal(assertSafeWebhookUrl('ftp://example.com/x', true));
      await refusal(assertSafeWebhookUrl('not a url', true));
    });

    it('refuses credentials in the URL at save, as the delivery does, whatever the configuration', async () => {
      for (const allowPrivate of [true, false]) {
        const err = await refusal(
          assertSafeWebhookUrl('https://user:pw@hooks.example.com/x', allowPrivate, unasked),
        );
        expect(err.fields?.['config.url']?.[0]).to.match(/without credentials/);
        expect(() => checkUrlShape('https://user:pw@hooks.example.com/x', allowPrivate)).to.throw(
          /without credentials/,
        );
      }
    });

    it('says in its message what this configuration accepts', async () => {
      const strict = await refusal(assertSafeWebhookUrl('http://hooks.example.com/x', false, unasked));
      expect(strict.message).to.match(/https URL .* public addresses/);
      const lax = await refusal(assertSafeWebhookUrl('ftp://hooks.example.com/x', true));
      expect(lax.message).to.match(/http or https URL/);
    });
  });
});
