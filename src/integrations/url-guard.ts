import dns from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { ValidationError } from '../shared/errors.js';

/** Resolves a host name to every address it has (the shape of `dns.lookup(host, {all: true})`). */
export type HostResolver = (host: string) => Promise<Array<{ address: string }>>;

const systemResolver: HostResolver = (host) => dnsLookup(host, { all: true, verbatim: true });

const FIELD = 'config.url';

function parseIPv4(ip: string): number[] | null {
  const parts = ip.split('.');
  if (parts.length !== 4) return null;
  const bytes = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN));
  return bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255) ? bytes : null;
}

/** Eight 16-bit groups, or null; accepts `::` compression, a trailing dotted IPv4 and a zone id. */
function parseIPv6(input: string): number[] | null {
  let ip = input.replace(/^\[|\]$/g, '').split('%')[0] ?? '';
  const lastColon = ip.lastIndexOf(':');
  if (lastColon >= 0 && ip.includes('.', lastColon)) {
    // A trailing dotted IPv4 (::ffff:10.0.0.1) becomes its two hex groups.
    const v4 = parseIPv4(ip.slice(lastColon + 1));
    if (!v4) return null;
    const hex = (hi = 0, lo = 0): string => ((hi << 8) | lo).toString(16);
    ip = `${ip.slice(0, lastColon + 1)}${hex(v4[0], v4[1])}:${hex(v4[2], v4[3])}`;
  }
  const halves = ip.split('::');
  if (halves.length > 2) return null;
  const toGroups = (s: string): number[] | null => {
    if (s === '') return [];
    const groups = s.split(':').map((g) => (/^[0-9a-fA-F]{1,4}$/.test(g) ? Number.parseInt(g, 16) : NaN));
    return groups.every((g) => !Number.isNaN(g)) ? groups : null;
  };
  const head = toGroups(halves[0] ?? '');
  const rest = halves.length === 2 ? toGroups(halves[1] ?? '') : [];
  if (!head || !rest) return null;
  const present = head.length + rest.length;
  if (halves.length === 1) return present === 8 ? head : null;
  if (present > 7) return null;
  return [...head, ...new Array<number>(8 - present).fill(0), ...rest];
}

const inV4 = (b: number[], base: [number, number, number, number], bits: number): boolean => {
  const value = (((b[0] ?? 0) << 24) | ((b[1] ?? 0) << 16) | ((b[2] ?? 0) << 8) | (b[3] ?? 0)) >>> 0;
  const net = ((base[0] << 24) | (base[1] << 16) | (base[2] << 8) | base[3]) >>> 0;
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return (value & mask) === (net & mask);
};

const PRIVATE_V4: Array<[[number, number, number, number], number]> = [
  [[0, 0, 0, 0], 8], // "this network"
  [[10, 0, 0, 0], 8],
  [[100, 64, 0, 0], 10], // carrier-grade NAT
  [[127, 0, 0, 0], 8],
  [[169, 254, 0, 0], 16], // link-local, cloud metadata endpoints
  [[172, 16, 0, 0], 12],
  [[192, 168, 0, 0], 16],
  [[224, 0, 0, 0], 4], // multicast
  [[240, 0, 0, 0], 4], // reserved and broadcast
];

const isPrivateV4 = (bytes: number[]): boolean => PRIVATE_V4.some(([base, bits]) => inV4(bytes, base, bits));

/**
 * Whether an IP address (v4 or v6, IPv4-mapped included) is one a webhook must not reach: private,
 * loopback, link-local, carrier-grade NAT, unspecified, multicast or reserved. Anything that does
 * not parse as an address counts as private, so a malformed value is never trusted.
 */
export function isPrivateAddress(ip: string): boolean {
  const v4 = parseIPv4(ip);
  if (v4) return isPrivateV4(v4);
  const g = parseIPv6(ip);
  if (!g) return true;
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const embeddedV4 = [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff];
  const upperZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (upperZero && g5 === 0xffff) return isPrivateV4(embeddedV4); // ::ffff:a.b.c.d
  if (upperZero && g5 === 0) {
    if (g6 === 0 && (g7 === 0 || g7 === 1)) return true; // :: and ::1
    return isPrivateV4(embeddedV4); // deprecated IPv4-compatible ::a.b.c.d
  }
  if ((g0 & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((g0 & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((g0 & 0xff00) === 0xff00) return true; // multicast
  // Addresses that tunnel or translate to IPv4 (or another network) behind the server's back.
  if (g0 === 0x64 && g1 === 0xff9b && (g2 === 0 || g2 === 1)) return true; // NAT64 64:ff9b::/96, 64:ff9b:1::/48
  if (g0 === 0x2002) return true; // 6to4 2002::/16
  if (g0 === 0x2001 && (g1 === 0 || g1 === 0xdb8)) return true; // Teredo 2001::/32, documentation 2001:db8::/32
  return false;
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
