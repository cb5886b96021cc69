/**
 * Credentials at rest (gateway tokens, and any other secret a company hands the service): sealed with
 * AES-256-GCM under a key ring (CREDENTIALS_ENCRYPTION_KEYS, newest first; or the single
 * CREDENTIALS_ENCRYPTION_KEY, a ring of one), so a database dump or backup holds no usable secret.
 *
 * A sealed value is `v2.<key id>.<iv>.<tag>.<ciphertext>` (base64url): new values are sealed with the
 * ring's newest key, and any key still in the ring opens the values it sealed, so a key can rotate
 * (docs/operations.md, "Rotating the credentials key"). Values sealed before the ring were
 * `v1.<iv>.<tag>.<ciphertext>` and open with whichever key of the ring sealed them. The `purpose`
 * (for example `gateway_account:12:access_token`) is bound as additional data: a value copied into
 * another row or column fails to open instead of passing for that row's secret.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** A sealed value that does not open: another key, another purpose, or altered bytes. */
export class CredentialUnreadableError extends Error {
  override name = 'CredentialUnreadableError';
}

/** The keys that seal and open credentials, newest first: the first seals, every one opens. */
export interface KeyRing {
  readonly keys: ReadonlyArray<{ readonly id: string; readonly key: Buffer }>;
}

/** The id CREDENTIALS_ENCRYPTION_KEY's key has, alone or once named in CREDENTIALS_ENCRYPTION_KEYS. */
export const SINGLE_KEY_ID = 'default';

/**
 * Reads CREDENTIALS_ENCRYPTION_KEYS: `id:base64key` pairs, comma-separated, newest first; each key 32
 * bytes, each id 1–32 of `A-Za-z0-9_-` and used once. Throws an Error saying what is wrong.
 */
export function parseKeyRing(text: string): KeyRing {
  const keys = text.split(',').map((entry, index) => {
    const [id = '', encoded = '', extra] = entry.trim().split(':');
    if (extra !== undefined || !KEY_ID.test(id))
      throw new Error(`entry ${index + 1} must be id:base64key, the id 1-32 letters, digits, _ or -`);
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== 32 || key.toString('base64') !== encoded.replace(/\s/g, ''))
      throw new Error(`key "${id}" must be 32 random bytes in base64 (openssl rand -base64 32)`);
    return { id, key };
  });
  const ids = keys.map((k) => k.id);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice !== undefined) throw new Error(`key id "${twice}" is given twice`);
  return { keys };
}

/** What is wrong with a CREDENTIALS_ENCRYPTION_KEYS value, if anything (for the config's message). */
export function keyRingProblem(text: string): string | undefined {
  try {
    parseKeyRing(text);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** CREDENTIALS_ENCRYPTION_KEY as a ring of one. */
export const singleKeyRing = (key: Buffer): KeyRing => ({ keys: [{ id: SINGLE_KEY_ID, key }] });

/** The id of the key that sealed a value (null for a value sealed before the ring, or not sealed). */
export function sealedKeyId(sealed: string): string | null {
  const parts = sealed.split('.');
  return parts[0] === 'v2' && parts.length === 5 ? (parts[1] ?? null) : null;
}

export interface CredentialSealer {
  seal(plaintext: string, purpose: string): string;
  open(sealed: string, purpose: string): string;
  /** Whether a value is sealed under the ring's newest key (else `cli credentials reseal` moves it). */
  isCurrent(sealed: string): boolean;
}

function openWith(key: Buffer, [iv, tag, body]: string[], purpose: string): string | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv ?? '', 'base64url'), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(purpose, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag ?? '', 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body ?? '', 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    return undefined;
  }
}

/** The sealer of a ring; without one (production with no gateway configured) every use throws. */
export function credentialSealer(ring: KeyRing | undefined): CredentialSealer {
  const requireRing = (): KeyRing['keys'] => {
    if (!ring || ring.keys.length === 0) {
      throw new Error('CREDENTIALS_ENCRYPTION_KEY(S) is not set: no credential can be stored or read');
    }
    return ring.keys;
  };
  return {
    seal(plaintext, purpose) {
      const [newest] = requireRing();
      if (!newest) throw new Error('unreachable: an empty key ring');
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', newest.key, iv);
      cipher.setAAD(Buffer.from(purpose, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url'));
      return ['v2', newest.id, ...parts].join('.');
    },
    open(sealed, purpose) {
      const keys = requireRing();
      const parts = sealed.split('.');
      const v1 = parts[0] === 'v1' && parts.length === 4;
      const v2 = parts[0] === 'v2' && parts.length === 5;
      if (!v1 && !v2) throw new CredentialUnreadableError(`not a sealed credential (${purpose})`);
      const id = v2 ? parts[1] : undefined;
      // The named key first; then the others, so a key given another id than it sealed under opens too
      // (GCM's tag tells a wrong key apart).
      const ordered = [...keys.filter((k) => k.id === id), ...keys.filter((k) => k.id !== id)];
      for (const { key } of ordered) {
        const plaintext = openWith(key, parts.slice(v2 ? 2 : 1), purpose);
        if (plaintext !== undefined) return plaintext;
      }
      throw new CredentialUnreadableError(`a sealed credential did not open (${purpose})`);
    },
    isCurrent(sealed) {
      return sealedKeyId(sealed) === requireRing()[0]?.id;
    },
  };
}
