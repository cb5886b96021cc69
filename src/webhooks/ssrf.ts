import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress } from '../integrations/url-guard.js';

/** One definition of "private" for save time (panel) and delivery time (here). */
export const isBlockedAddress = isPrivateAddress;

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
