import { Joi, Segments } from 'celebrate';
import { BILLING_CYCLES } from '../shared/db/schema.js';

const PRICE = /^\d{1,10}(\.\d{1,2})?$/;
const PERCENT = /^\d{1,3}(\.\d{1,2})?$/;

/** A decimal amount as a string or a JSON number with at most two decimals; stored as "97.00". */
const decimal = (pattern: RegExp, describe: string) =>
  Joi.alternatives()
    .try(Joi.string(), Joi.number())
    .custom((value: string | number, helpers) => {
      const text = typeof value === 'number' ? String(value) : value.trim();
      if (!pattern.test(text)) return helpers.message({ custom: describe });
      return Number(text).toFixed(2);
    });

const price = decimal(PRICE, 'must be a decimal amount with at most two decimals, such as "97.00"');
const name = Joi.string().trim().min(1).max(200);
const status = Joi.string().valid('active', 'inactive');
const productId = Joi.number().integer().min(1).max(2_147_483_647);
const code = Joi.string().min(1).max(100);

export const productIdSchema = { [Segments.PARAMS]: Joi.object({ id: productId.required() }) };
export const codeParamSchema = { [Segments.PARAMS]: Joi.object({ code: code.required() }) };

export const createProductSchema = {
  [Segments.BODY]: Joi.object({ name: name.required(), status }).required(),
};
export const updateProductSchema = {
  ...productIdSchema,
  [Segments.BODY]: Joi.object({ name, status }).min(1).required(),
};

export const createOfferSchema = {
  [Segments.BODY]: Joi.object({
    product_id: productId.required(),
    name: name.required(),
    price: price.required(),
    status,
  }).required(),
};
export const updateOfferSchema = {
  ...codeParamSchema,
  [Segments.BODY]: Joi.object({ name, price, status }).min(1).required(),
};

export const createPlanSchema = {
  [Segments.BODY]: Joi.object({
    product_id: productId.required(),
    name: name.required(),
    price: price.required(),
    billing_cycle: Joi.string()
      .valid(...BILLING_CYCLES)
      .required(),
    status,
  }).required(),
};
export const updatePlanSchema = updateOfferSchema;

export const createCouponSchema = {
  [Segments.BODY]: Joi.object({
    code: Joi.string()
      .pattern(/^[A-Za-z0-9_-]{1,40}$/)
      .required()
      .messages({ 'string.pattern.base': 'must be 1-40 letters, digits, "-" or "_"' }),
    percent_off: decimal(PERCENT, 'must be a percentage above 0 and at most 100, two decimals at most'),
    amount_off: decimal(PRICE, 'must be a decimal amount with at most two decimals'),
    status,
  }).required(),
};
export const updateCouponSchema = {
  ...codeParamSchema,
  [Segments.BODY]: Joi.object({ status: status.required() }).required(),
};
