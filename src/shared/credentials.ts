/**
 * Credentials at rest (gateway tokens, and any other secret a company hands the service): sealed with
 * AES-256-GCM under CREDENTIALS_ENCRYPTION_KEY, so a database dump or backup holds no usable secret.
 *
 * A sealed value is `v1.<iv>.<tag>.<ciphertext>` (base64url). The `purpose` (for example
 * `gateway_account:12:access_token`) is bound as additional data: a value copied into another row or
 * column fails to open instead of passing for that row's secret.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed value that does not open: another key, another purpose, or altered bytes. */
export class CredentialUnreadableError extends Error {
  override name = 'CredentialUnreadableError';
}

export interface CredentialSealer {
  seal(plaintext: string, purpose: string): string;
  open(sealed: string, purpose: string): string;
}

/** The sealer of one key; without a key (production with no gateway configured) every use throws. */
export function credentialSealer(key: Buffer | undefined): CredentialSealer {
  const requireKey = (): Buffer => {
    if (key?.length !== 32) {
      throw new Error('CREDENTIALS_ENCRYPTION_KEY is not set: no credential can be stored or read');
    }
    return key;
  };
  return {
    seal(plaintext, purpose) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', requireKey(), iv);
      cipher.setAAD(Buffer.from(purpose, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url'));
      return [VERSION, ...parts].join('.');
    },
    open(sealed, purpose) {
      const [version, iv, tag, body, extra] = sealed.split('.');
      if (
        version !== VERSION ||
        iv === undefined ||
        tag === undefined ||
        body === undefined ||
        extra !== undefined
      )
        throw new CredentialUnreadableError(`not a sealed credential (${purpose})`);
      try {
        const decipher = createDecipheriv('aes-256-gcm', requireKey(), Buffer.from(iv, 'base64url'), {
          authTagLength: TAG_BYTES,
        });
        decipher.setAAD(Buffer.from(purpose, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw new CredentialUnreadableError(`a sealed credential did not open (${purpose})`);
      }
    },
  };
}
