import dns from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** Loopback, private, link-local, CGNAT, multicast and reserved ranges a webhook must never reach. */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** True for any address a webhook may not reach (IPv4-mapped IPv6 is checked as IPv4). */
export function isBlockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) return blocked.check(address, 'ipv6');
  return true;
}

export class UnsafeTargetError extends Error {
  override name = 'UnsafeTargetError';
}

/** Checks scheme and IP-literal hosts before a request; names are checked when they resolve. */
export function assertDeliverableUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeTargetError('invalid URL');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    throw new UnsafeTargetError(`scheme ${url.protocol} not allowed`);
  }
  if (url.username || url.password) throw new UnsafeTargetError('credentials in URL not allowed');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(host) !== 0 && isBlockedAddress(host)) {
    throw new UnsafeTargetError(`address ${host} is private`);
  }
  return url;
}

/**
 * A DNS lookup for the HTTP agent that refuses a name when ANY of its addresses is private, so a
 * name cannot be re-pointed at an internal address between the save-time check and the request.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) {
        callback(err, '', 0);
        return;
      }
      const list = addresses;
      const bad = allowPrivate ? undefined : list.find((a) => isBlockedAddress(a.address));
      if (bad) {
        callback(new UnsafeTargetError(`${hostname} resolves to private address ${bad.address}`), '', 0);
        return;
      }
      if (options.all) {
        (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
        return;
      }
      const first = list[0];
      if (!first) {
        callback(new UnsafeTargetError(`${hostname} has no address`), '', 0);
        return;
      }
      callback(null, first.address, first.family);
    });
  };
}
