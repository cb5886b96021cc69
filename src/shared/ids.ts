import { hash, randomBytes, randomUUID } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Drawing entropy in pages rather than per id keeps the crypto call off every request.
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let offset = 0;

function nextByte(): number {
  if (offset === POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  return pool[offset++] as number;
}

/** Uniform random base62 string (rejection sampling, so no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

const ID_LENGTH = 24;

export const newLinkId = (): string => `plink_${randomBase62(ID_LENGTH)}`;
export const newShortCode = (): string => randomBase62(8);
export const newEventId = (): string => `evt_${randomBase62(ID_LENGTH)}`;
export const newUuid = (): string => randomUUID();

/**
 * The shapes of the ids above, for request validation and the OpenAPI documents (`.source` is the
 * JSON Schema `pattern`). Order codes are UUIDs in any case, as PostgreSQL reads them.
 */
export const LINK_ID_PATTERN = new RegExp(`^plink_[0-9A-Za-z]{${ID_LENGTH}}$`);
export const EVENT_ID_PATTERN = new RegExp(`^evt_[0-9A-Za-z]{${ID_LENGTH}}$`);
export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** Offer and plan codes appear in checkout URLs; short, URL-safe and unique. */
export const newCatalogCode = (prefix: 'of' | 'pl'): string => `${prefix}_${randomBase62(10)}`;

// One-shot: no Hash object per call (every authenticated request hashes its key).
export const sha256Hex = (value: string): string => hash('sha256', value, 'hex');

/**
 * A UUID named by `name`: the same name always gives the same one (RFC 4122's version 5 layout over
 * SHA-256), for an idempotency key a PSP wants as a UUID but that must repeat on every retry.
 */
export function nameUuid(name: string): string {
  const hex = sha256Hex(name);
  const variant = ((Number.parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
