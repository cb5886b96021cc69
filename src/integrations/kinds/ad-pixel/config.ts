/**
 * The config of `ad_pixel` integrations (docs/ad-conversions.md): which ad platform (`provider`) and
 * its ids in the clear; its credential (Meta's access token, GA4's API secret) in the sealed
 * `secrets` group, masked in every answer (send the mask back in a PATCH to keep it).
 */
import { v } from '../../../shared/validation/typed.js';
import { SECRET_MASK } from '../sealed.js';

export const AD_PROVIDERS = ['meta', 'google_analytics'] as const;
export type AdProvider = (typeof AD_PROVIDERS)[number];

/** A credential: visible ASCII, or the mask that keeps the stored one. */
const credential = (max: number) =>
  v
    .string()
    .max(max)
    .pattern(new RegExp(`^(?:[\\x21-\\x7e]+|${SECRET_MASK})$`))
    .messages({ 'string.pattern.base': 'must be visible ASCII characters (or the mask, to keep it)' });

/** A key only `provider`'s config has: required (or optional) there, refused otherwise. */
const only = <T>(provider: AdProvider, schema: import('../../../shared/validation/typed.js').Typed<T>) =>
  v.when('provider', [provider], schema, v.string().forbidden());

export const adPixelConfig = v
  .object({
    provider: v.required(v.enum(AD_PROVIDERS)).description('The ad platform conversions go to'),
    pixel_id: only(
      'meta',
      v.required(
        v
          .string()
          .pattern(/^\d{5,20}$/)
          .description('Meta: the dataset (pixel) id, digits, from Events Manager'),
      ),
    ),
    access_token: only(
      'meta',
      v
        .required(credential(512))
        .description('Meta: a Conversions API access token; stored encrypted, shown masked'),
    ),
    test_event_code: only(
      'meta',
      v
        .nullable(
          v
            .string()
            .max(64)
            .pattern(/^[A-Za-z0-9_-]*$/),
        )
        .description('Meta: Events Manager’s test code; sent only with a test conversion from the dashboard'),
    ),
    browser_pixel: only(
      'meta',
      v
        .strictBoolean()
        .description('Meta: the buyer pages also load the pixel (same event ids). Default false'),
    ),
    measurement_id: only(
      'google_analytics',
      v.required(
        v
          .string()
          .pattern(/^G-[A-Z0-9]{4,20}$/)
          .description('GA4: the web stream’s measurement id (`G-…`)'),
      ),
    ),
    api_secret: only(
      'google_analytics',
      v
        .required(credential(256))
        .description('GA4: a Measurement Protocol API secret; stored encrypted, shown masked'),
    ),
  })
  .description('`ad_pixel`: `provider` `meta` or `google_analytics` and that provider’s keys');

/** The credential of each provider, by its name in the sealed `secrets` group. */
export const SECRET_OF: Record<AdProvider, 'access_token' | 'api_secret'> = {
  meta: 'access_token',
  google_analytics: 'api_secret',
};
