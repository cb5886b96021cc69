/** The checkout's pay form: its fields (the buyer, the address a boleto or a card needs, the card's token from the PSP's browser script), checked once, and the payment it asks for. */
import { type CheckoutNeeds, type PayerAddress } from '../gateways/port.js';
import { type OrderRow } from '../orders/repository.js';
import { CHECKOUT_OPTIONS } from '../payment-links/schemas.js';
import { customerFields, text } from '../payment-links/customer.js';
import type { OrderCustomer } from '../shared/db/schema.js';
import { PAYMENT_METHODS, type PaymentMethod } from '../shared/enums/payment-methods.js';
import { UUID_PATTERN } from '../shared/ids.js';
import { v } from '../shared/validation/typed.js';
import { invalidField, PayFormError } from './page-errors.js';
import type { CheckoutView } from './view-models.js';

const blankToUndefined = (value: unknown): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

/** Brazil's federal units, as a boleto payer's address names its state. */
export const FEDERAL_UNITS = [
  'AC',
  'AL',
  'AP',
  'AM',
  'BA',
  'CE',
  'DF',
  'ES',
  'GO',
  'MA',
  'MT',
  'MS',
  'MG',
  'PA',
  'PB',
  'PR',
  'PE',
  'PI',
  'RJ',
  'RN',
  'RS',
  'RO',
  'RR',
  'SC',
  'SP',
  'SE',
  'TO',
] as const;

/** The address fields a PSP needs for a boleto, in the form's names (docs/mercadopago.md). */
export const ADDRESS_FIELDS = [
  'zip_code',
  'street_name',
  'street_number',
  'neighborhood',
  'city',
  'state',
] as const;

const addressField = {
  zip_code: () =>
    v
      .string()
      .trim()
      .pattern(/^\d{5}-?\d{3}$/),
  street_name: () => text().trim().min(1).max(200),
  street_number: () => text().trim().min(1).max(20),
  neighborhood: () => text().trim().min(1).max(100),
  city: () => text().trim().min(1).max(100),
  state: () => v.enum(FEDERAL_UNITS),
};

/** Required when the buyer chose one of `methods`, optional (and unused) otherwise. */
const requiredFor = <T, S extends import('joi').Schema>(
  methods: readonly PaymentMethod[],
  schema: import('../shared/validation/typed.js').Typed<T, S>,
) => v.when('payment_method', methods, v.required(schema), schema);

/**
 * A boleto payer's first and last name (MP registers a boleto with `first_name` and `last_name`):
 * at least two words.
 */
const fullName = () =>
  customerFields
    .name()
    .pattern(/\S\s+\S/u, { name: 'full' })
    .messages({ 'string.pattern.name': 'must give the first and the last name' });

/** The card as the PSP's browser script tokenized it: a token and the brand, never the number. */
const cardToken = () =>
  v
    .string()
    .max(256)
    .pattern(/^[A-Za-z0-9_-]+$/);

const cardBrand = () =>
  v
    .string()
    .max(40)
    .pattern(/^[a-z0-9_]+$/);

/**
 * The card as the PSP's browser script (`static/mercadopago-card.js`) posts it, required when the
 * chosen `payment_method` is a card: the checkout's pay form and the buyer's renewal method form.
 */
export const cardTokenFields = () => ({
  card_token: requiredFor(['credit_card'], cardToken()),
  card_payment_method_id: requiredFor(['credit_card'], cardBrand()),
  card_issuer_id: v.string().max(20).pattern(/^\d+$/),
});

/** The pay form: who pays and how. Name and email are required; phone and document are optional. */
const payFields = {
  plink: v.string().max(64),
  /** The page's own id of this payment attempt: posting it again never charges twice. */
  attempt: v.string().max(64),
  name: v.required(customerFields.name()),
  email: v.required(customerFields.email()),
  phone: customerFields.phone(),
  document: customerFields.document(),
  payment_method: v.defaulted(v.enum(PAYMENT_METHODS), 'credit_card'),
  installments: v.integer().min(1).max(CHECKOUT_OPTIONS.maxInstallments.max),
  /** The box "remind me by e-mail if I do not finish" (ticked: `yes`). */
  recovery_consent: v.enum(['yes'] as const),
};

const localPayForm = v.object(payFields);

/**
 * With a PSP that needs them: a boleto asks for the payer's CPF/CNPJ and address, a card for the
 * token its script made in the browser.
 */
const pspPayForm = v.object({
  ...payFields,
  name: v.when('payment_method', ['boleto'], v.required(fullName()), v.required(customerFields.name())),
  document: requiredFor(['boleto'], customerFields.document()),
  zip_code: requiredFor(['boleto'], addressField.zip_code()),
  street_name: requiredFor(['boleto'], addressField.street_name()),
  street_number: requiredFor(['boleto'], addressField.street_number()),
  neighborhood: requiredFor(['boleto'], addressField.neighborhood()),
  city: requiredFor(['boleto'], addressField.city()),
  state: requiredFor(['boleto'], addressField.state()),
  ...cardTokenFields(),
});

export type PayFormValues = Record<string, string>;

export interface Payment {
  order: OrderRow;
  view: CheckoutView;
  /** True when the payment was completed during the request (a card approved at once). */
  paid: boolean;
}

export interface PayForm {
  attempt: string | undefined;
  customer: OrderCustomer;
  paymentMethod: PaymentMethod;
  installments: number | undefined;
  address: PayerAddress | null;
  card: { token: string; paymentMethodId: string; issuerId: string | null } | null;
  recoveryConsent: boolean;
}

const nonBlank = (value: string | undefined): string | undefined =>
  value === undefined || value === '' ? undefined : value;

export function parsePayForm(values: PayFormValues, needs: CheckoutNeeds): PayForm {
  const cleaned = Object.fromEntries(
    Object.entries(values).map(([k, value]) => [k, blankToUndefined(value)]),
  );
  const psp = needs.boletoPayer || needs.cardTokenizer !== null;
  const { value, error } = (psp ? pspPayForm : localPayForm).validate(cleaned, { abortEarly: false });
  if (error) throw new PayFormError(error);
  const fields = value as Record<string, string | number | undefined>;
  const str = (name: string): string | undefined => {
    const found = fields[name];
    return typeof found === 'string' ? nonBlank(found) : undefined;
  };
  const method = value.payment_method;
  const zipCode = str('zip_code');
  const address: PayerAddress | null =
    needs.boletoPayer && method === 'boleto' && zipCode !== undefined
      ? {
          zipCode: zipCode.replace(/\D/g, ''),
          streetName: str('street_name') ?? '',
          streetNumber: str('street_number') ?? '',
          neighborhood: str('neighborhood') ?? '',
          city: str('city') ?? '',
          state: str('state') ?? '',
        }
      : null;
  const token = str('card_token');
  const brand = str('card_payment_method_id');
  return {
    attempt: UUID_PATTERN.test(value.attempt ?? '') ? value.attempt : undefined,
    customer: {
      name: value.name,
      email: value.email,
      phone: value.phone ?? null,
      document: value.document ?? null,
    },
    paymentMethod: method,
    installments: value.installments,
    address,
    card:
      needs.cardTokenizer && method === 'credit_card' && token !== undefined && brand !== undefined
        ? { token, paymentMethodId: brand, issuerId: str('card_issuer_id') ?? null }
        : null,
    recoveryConsent: value.recovery_consent === 'yes',
  };
}

/**
 * How the buyer pays, as the checkout offers it: one of the link's methods (a form that sends another
 * did not come from its page: a 400 page), and for a card 1 to the link's most instalments.
 */
export function chosenPayment(
  view: CheckoutView,
  form: PayForm,
): { method: PaymentMethod; installments: number | null } {
  if (!view.methods.includes(form.paymentMethod)) throw invalidField('payment_method', 'method_not_offered');
  if (form.paymentMethod !== 'credit_card') return { method: form.paymentMethod, installments: null };
  const installments = form.installments ?? 1;
  if (installments > view.maxInstallments) throw invalidField('installments', 'installments_not_offered');
  return { method: form.paymentMethod, installments };
}
