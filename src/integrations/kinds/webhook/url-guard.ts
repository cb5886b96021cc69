import dns from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ValidationError } from '../../../shared/errors.js';

/** Resolves a host name to every address it has (the shape of `dns.lookup(host, {all: true})`). */
export type HostResolver = (host: string) => Promise<Array<{ address: string }>>;

const systemResolver: HostResolver = (host) => dnsLookup(host, { all: true, verbatim: true });

const FIELD = 'config.url';

/** The IPv6 space handed out for public hosts (global unicast); everything outside it is special. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Whether an IP address (v4 or v6, IPv4-mapped included) is one a webhook must not reach. Only a
 * plain public unicast address passes: every special-purpose range ipaddr.js names (private,
 * loopback, link-local, carrier-grade NAT, unspecified, multicast, broadcast, reserved and
 * documentation, benchmarking, NAT64, 6to4, Teredo, IPv4-translated...) is refused, and so is IPv6
 * outside 2000::/3. Only the canonical text forms count as addresses: anything else (`1.2.3`,
 * octal `0177.0.0.1`, hex `0x7f.0.0.1`, whose meaning depends on the parser) is refused, so a value
 * read differently elsewhere is never trusted.
 */
export function isPrivateAddress(input: string): boolean {
  const ip = input.replace(/^\[|\]$/g, '').split('%')[0] ?? '';
  if (isIP(ip) === 0 || !ipaddr.isValid(ip)) return true;
  // process() reads an IPv4-mapped IPv6 address (::ffff:a.b.c.d) as the IPv4 address it carries.
  const address = ipaddr.process(ip);
  if (address.range() !== 'unicast') return true;
  return address.kind() === 'ipv6' && !address.match(GLOBAL_UNICAST_V6);
}

/** A target this service refuses to send to; the message says what is accepted. */
export class UnsafeTargetError extends Error {
  override name = 'UnsafeTargetError';
}

/** What the configuration accepts, for messages that tell the caller how to fix the URL. */
const accepted = (allowPrivate: boolean): string =>
  allowPrivate
    ? 'an absolute http or https URL without credentials'
    : 'an absolute https URL without credentials whose host resolves only to public addresses';

/**
 * The part of the outbound-URL rule that needs no DNS: an absolute URL, https (http too when private
 * targets are allowed), no credentials (they would travel in every request and land in logs), and no
 * private IP literal. Returns the parsed URL.
 */
export function checkUrlShape(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeTargetError(`must be ${accepted(allowPrivate)}`);
  }
  const schemeOk = url.protocol === 'https:' || (allowPrivate && url.protocol === 'http:');
  if (!schemeOk || url.username || url.password)
    throw new UnsafeTargetError(`must be ${accepted(allowPrivate)}`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) {
    throw new UnsafeTargetError(
      `must not point to a private, loopback or link-local address (${accepted(allowPrivate)})`,
    );
  }
  return url;
}

/**
 * At save time: the shape rule, then every address the host resolves to must be public (a name with
 * one public and one private record would otherwise be a way in). Errors are 400 under `config.url`.
 */
export async function assertSafeWebhookUrl(
  url: string,
  allowPrivate: boolean,
  resolve: HostResolver = systemResolver,
): Promise<void> {
  let parsed: URL;
  try {
    parsed = checkUrlShape(url, allowPrivate);
  } catch (err) {
    throw ValidationError.field(FIELD, err instanceof Error ? err.message : String(err));
  }
  if (allowPrivate) return;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return;
  let addresses: string[];
  try {
    addresses = (await resolve(host)).map((a) => a.address);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) throw ValidationError.field(FIELD, `host ${host} does not resolve`);
  if (addresses.some(isPrivateAddress)) {
    throw ValidationError.field(
      FIELD,
      `must not point to a private, loopback or link-local address (${accepted(false)})`,
    );
  }
}

/**
 * At delivery time, inside the HTTP agent: a DNS lookup that refuses a name when ANY of its addresses
 * is private, so a name cannot be re-pointed at an internal address between save and request.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) {
        callback(err, '', 0);
        return;
      }
      const bad = allowPrivate ? undefined : addresses.find((a) => isPrivateAddress(a.address));
      if (bad) {
        callback(new UnsafeTargetError(`${hostname} resolves to private address ${bad.address}`), '', 0);
        return;
      }
      if (options.all) {
        callback(null, addresses);
        return;
      }
      const first = addresses[0];
      if (!first) {
        callback(new UnsafeTargetError(`${hostname} has no address`), '', 0);
        return;
      }
      callback(null, first.address, first.family);
    });
  };
}
