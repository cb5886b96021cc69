import type { CustomHelpers, ErrorReport } from 'joi';
import { BILLING_CYCLES } from '../shared/enums/billing-cycles.js';
import { references } from '../shared/validation/references.js';
import { v, type Output } from '../shared/validation/typed.js';
import type { ItemKind } from './repository.js';

const MAX_INT4 = 2_147_483_647;
const MAX_PRICE = 9_999_999_999.99;

/** At most two decimals, read from the number as JSON wrote it ("284938037.79"), never by float arithmetic. */
function isCents(n: number): boolean {
  const text = String(n);
  if (/e/i.test(text)) return Number.isInteger(n);
  return (text.split('.')[1] ?? '').length <= 2;
}

/**
 * A decimal amount sent as a string ("97.00") or a JSON number (97), at most two decimals; always
 * produced as a string with two decimals. `positive` refuses zero. The string form states its range
 * in its pattern so the OpenAPI document says it too.
 */
function amount(options: { positive: boolean; max: number; pattern: RegExp; describe: string }) {
  const number = v
    .number()
    .strict()
    .max(options.max)
    .custom((n: number, helpers: CustomHelpers): number | ErrorReport =>
      isCents(n) ? n : helpers.message({ custom: options.describe }),
    )
    .meta({ multipleOf: 0.01 });
  const produced = (value: string | number): string => Number(value).toFixed(2);
  return v.produces<string>()(
    v
      .oneOf(
        v.string().pattern(options.pattern).messages({ 'string.pattern.base': options.describe }),
        options.positive ? number.greater(0) : number.min(0),
      )
      .custom((value: string | number) => produced(value))
      .description(options.describe),
  );
}

const price = () =>
  amount({
    positive: false,
    max: MAX_PRICE,
    pattern: /^\d{1,10}(\.\d{1,2})?$/,
    describe: 'must be a decimal amount with at most two decimals, such as "97.00"',
  });

const name = () => v.string().trim().min(1).max(200);
const status = () => v.enum(['active', 'inactive'] as const);
const id = () => v.integer().min(1).max(MAX_INT4);

export const productParams = v.object({
  id: v
    .required(id())
    .description('Product id')
    .meta(references({ operationId: 'listProducts', property: 'id' })),
});
/** The code of an offer, plan or coupon, as listed by `operationId`. */
export const codeParams = (operationId: string) =>
  v.object({ code: v.required(v.string().max(100)).meta(references({ operationId, property: 'code' })) });

/** Most items a product's content lists (a builtin members area shows them to its buyers). */
export const MAX_CONTENT_ITEMS = 50;

/** What buying the product gives access to: each item a title, an https address, a short text. */
const content = () =>
  v
    .array(
      // Not `required`: in Joi a required item would make an empty list (no content) invalid.
      v.object({
        title: v.required(v.string().trim().min(1).max(200)),
        url: v
          .required(
            v
              .string()
              .max(2048)
              .pattern(/^https:\/\/[^\s/?#@]+(?:[/?#][^\s]*)?$/),
          )
          .messages({ 'string.pattern.base': 'must be an absolute https URL without credentials' })
          .meta({ format: 'uri' }),
        description: v.string().trim().allow('').max(500),
      }),
    )
    .max(MAX_CONTENT_ITEMS)
    .description(
      "What buying the product gives access to (at most 50 items), shown on the buyer's page to a buyer who " +
        'holds access through a `members_area` integration with the builtin provider. Replaced as a whole.',
    );

export const createProductBody = v.required(
  v.object({ name: v.required(name()), status: status(), content: content() }),
);
export const updateProductBody = v.required(
  v.object({ name: name(), status: status(), content: content() }).min(1),
);
export type ProductInput = Output<typeof updateProductBody>;

/** The buyer's right of regret: at least the 7 days the law gives to purchases made online, at most 30. */
export const GUARANTEE_DAYS = { min: 7, max: 30, default: 7 } as const;
const guaranteeDays = () =>
  v
    .strictInteger()
    .min(GUARANTEE_DAYS.min)
    .max(GUARANTEE_DAYS.max)
    .description(
      `Days after payment within which the buyer may ask for a refund from their own page ` +
        `(${GUARANTEE_DAYS.min}–${GUARANTEE_DAYS.max})`,
    );

const createItemBody = (kind: ItemKind) =>
  v.required(
    v.object({
      product_id: v
        .required(v.strictInteger().min(1).max(MAX_INT4))
        .description('An active product of the company')
        .meta(references({ operationId: 'listProducts', property: 'id', where: { status: 'active' } })),
      name: v.required(name()),
      price: v.required(price()),
      status: status(),
      guarantee_days: guaranteeDays().meta({ default: GUARANTEE_DAYS.default }),
      ...(kind === 'plan' ? { billing_cycle: v.required(v.enum(BILLING_CYCLES)) } : {}),
    }),
  );
export const createOfferBody = createItemBody('offer');
export const createPlanBody = createItemBody('plan');
export type ItemInput = Output<typeof createOfferBody> & {
  billing_cycle?: Output<typeof createPlanBody>['billing_cycle'];
};

export const updateItemBody = v.required(
  v.object({ name: name(), price: price(), status: status(), guarantee_days: guaranteeDays() }).min(1),
);
export type ItemUpdate = Output<typeof updateItemBody>;

export const createCouponBody = v.required(
  v
    .object({
      code: v.required(
        v
          .string()
          .pattern(/^[A-Za-z0-9_-]{1,40}$/)
          .messages({ 'string.pattern.base': 'must be 1-40 letters, digits, "-" or "_"' }),
      ),
      percent_off: amount({
        positive: true,
        max: 100,
        pattern: /^(?=.*[1-9])(100(\.0{1,2})?|\d{1,2}(\.\d{1,2})?)$/,
        describe: 'must be a percentage above 0 and at most 100, two decimals at most',
      }),
      amount_off: amount({
        positive: true,
        max: MAX_PRICE,
        pattern: /^(?=.*[1-9])\d{1,10}(\.\d{1,2})?$/,
        describe: 'must be a decimal amount above 0 with at most two decimals',
      }),
      status: status(),
    })
    .xor('percent_off', 'amount_off')
    .messages({
      'object.missing': 'send exactly one of percent_off and amount_off',
      'object.xor': 'send exactly one of percent_off and amount_off',
    }),
);
export type CouponInput = Output<typeof createCouponBody>;

export const updateCouponBody = v.required(v.object({ status: v.required(status()) }));
