/**
 * The credentials an integration holds (a webhook's custom header values, an ad platform's access
 * token, a fiscal provider's API token): sealed under the credentials key ring
 * (src/shared/credentials.ts) in the integration's row, opened only to make a request, and masked in
 * every answer and page; a PATCH that sends the mask back keeps the stored value.
 */
import { credentialSealer, type KeyRing } from '../../shared/credentials.js';
import { ValidationError } from '../../shared/errors.js';
import type { SealedGroup, SealedValues } from './kind.js';

/** What every answer shows in place of a sealed value, and what a PATCH sends to keep it. */
export const SECRET_MASK = '••••';

/** Where a group's validation errors are reported, and whether its names ignore case (HTTP headers do). */
const GROUPS: Record<SealedGroup, { field: string; ignoreCase: boolean; purpose: string }> = {
  headers: { field: 'config.headers', ignoreCase: true, purpose: 'header' },
  secrets: { field: 'config', ignoreCase: false, purpose: 'secret' },
};

const nameKey = (group: SealedGroup, name: string): string =>
  GROUPS[group].ignoreCase ? name.toLowerCase() : name;

/** Bound to each sealed value: one copied to another integration, group or name does not open. */
const purpose = (integrationId: number, group: SealedGroup, name: string): string =>
  `integration:${integrationId}:${GROUPS[group].purpose}:${nameKey(group, name)}`;

const fieldOf = (group: SealedGroup, name: string): string =>
  group === 'headers' ? GROUPS.headers.field : `${GROUPS.secrets.field}.${name}`;

/**
 * The values to store: each sealed, or the stored sealed value kept where the request sent the mask
 * back. A mask with no stored value, two names differing only in case (headers), or a deployment
 * without CREDENTIALS_ENCRYPTION_KEY are 400s naming the field. `{}` stores nothing (null).
 */
export function sealValues(
  key: KeyRing | undefined,
  integrationId: number,
  group: SealedGroup,
  given: Record<string, string>,
  stored: SealedValues | null,
): SealedValues | null {
  const entries = Object.entries(given);
  if (entries.length === 0) return null;
  const keys = entries.map(([name]) => nameKey(group, name));
  if (new Set(keys).size !== keys.length)
    throw ValidationError.field(GROUPS[group].field, 'names the same header twice (names ignore case)');
  if (key === undefined)
    throw ValidationError.field(
      fieldOf(group, entries[0]?.[0] ?? ''),
      'cannot be stored: the server has no CREDENTIALS_ENCRYPTION_KEY to encrypt it with',
    );
  const sealer = credentialSealer(key);
  const storedByName = new Map(
    Object.entries(stored ?? {}).map(([name, value]) => [nameKey(group, name), value]),
  );
  const sealed: SealedValues = {};
  for (const [name, value] of entries) {
    if (value === SECRET_MASK) {
      const kept = storedByName.get(nameKey(group, name));
      if (kept === undefined)
        throw ValidationError.field(
          fieldOf(group, name),
          `${name} has no stored value to keep: send its value`,
        );
      sealed[name] = kept;
    } else {
      sealed[name] = sealer.seal(value, purpose(integrationId, group, name));
    }
  }
  return sealed;
}

/** The values opened, to make a request; throws CredentialUnreadableError when one does not open. */
export function openValues(
  key: KeyRing | undefined,
  integrationId: number,
  group: SealedGroup,
  stored: SealedValues | null,
): Record<string, string> {
  if (!stored) return {};
  const sealer = credentialSealer(key);
  return Object.fromEntries(
    Object.entries(stored).map(([name, value]) => [
      name,
      sealer.open(value, purpose(integrationId, group, name)),
    ]),
  );
}

/** The names with their values masked: what every answer and page shows. */
export const maskedValues = (stored: SealedValues | null): Record<string, string> =>
  Object.fromEntries(Object.keys(stored ?? {}).map((name) => [name, SECRET_MASK]));

/**
 * The stored values with every one not under the ring's newest key opened and sealed again
 * (`cli credentials reseal`); undefined when all already are.
 */
export function resealValues(
  key: KeyRing | undefined,
  integrationId: number,
  group: SealedGroup,
  stored: SealedValues | null,
): SealedValues | undefined {
  const sealer = credentialSealer(key);
  const entries = Object.entries(stored ?? {});
  if (entries.every(([, value]) => sealer.isCurrent(value))) return undefined;
  return Object.fromEntries(
    entries.map(([name, value]) => {
      const bound = purpose(integrationId, group, name);
      return [name, sealer.isCurrent(value) ? value : sealer.seal(sealer.open(value, bound), bound)];
    }),
  );
}
