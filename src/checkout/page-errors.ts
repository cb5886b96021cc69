import type Joi from 'joi';
import {
  ConflictError,
  NotFoundError,
  ServiceUnavailableError,
  ValidationError,
  type AppError,
  type FieldErrors,
} from '../shared/errors.js';
import { fieldErrors } from '../shared/validation/fields.js';
import { CATALOGUE, isFieldProblem, type FieldProblem, type SentenceKey } from './messages.js';

/**
 * Errors the buyer pages raise carry the catalogue sentence that explains them, so the error page
 * says it in the buyer's language; the error's own message (English) is what logs and tests read.
 */
const sentences = new WeakMap<AppError, SentenceKey>();

function worded<E extends AppError>(error: E, key: SentenceKey): E {
  sentences.set(error, key);
  return error;
}

export const sentenceOf = (error: AppError): SentenceKey | undefined => sentences.get(error);

const english = (key: SentenceKey): string => CATALOGUE.en.sentences[key];

export const notFound = (key: SentenceKey): NotFoundError => worded(new NotFoundError(english(key)), key);
export const conflict = (key: SentenceKey): ConflictError => worded(new ConflictError(english(key)), key);
export const invalidField = (field: string, key: SentenceKey): ValidationError =>
  worded(ValidationError.field(field, english(key)), key);

/**
 * The gateway did not answer the pay step: nothing is paid, and the same form posted again asks for
 * the same charge (the route shows a page that posts it again). 503, so nothing caches it.
 */
export class GatewayUnavailablePageError extends ServiceUnavailableError {
  constructor(readonly orderCode: string) {
    super(english('gateway_unavailable'), 5);
  }
}

export const gatewayUnavailable = (orderCode: string): GatewayUnavailablePageError =>
  worded(new GatewayUnavailablePageError(orderCode), 'gateway_unavailable');

/** The PSP refused the charge because of what the buyer entered: the form again, that field marked. */
export function refusedByGateway(field: 'document' | 'address' | 'card'): PayFormError {
  const problem: FieldProblem =
    field === 'document' ? 'document_refused' : field === 'address' ? 'address_refused' : 'card_refused';
  const name = field === 'address' ? 'zip_code' : field;
  return PayFormError.of({ [name]: problem });
}

/** What is wrong with one field, in the buyer's terms, from Joi's detail about it. */
function problemOf(detail: Joi.ValidationErrorItem): FieldProblem {
  const missing = detail.type === 'any.required' || detail.type === 'string.empty';
  switch (String(detail.path[0] ?? '')) {
    case 'name':
      if (missing) return 'name_required';
      if (detail.type === 'string.pattern.name' && detail.context?.name === 'full')
        return 'name_full_required';
      return detail.type === 'string.maxChars' ? 'name_too_long' : 'name_invalid';
    case 'email':
      return missing ? 'email_required' : 'email_invalid';
    case 'phone':
      return 'phone_invalid';
    case 'document': {
      if (missing) return 'document_required';
      // The shape was right but the check digits were not: say which document failed.
      if (detail.type !== 'custom') return 'document_shape';
      const chars = String(detail.context?.value ?? '').replace(/[^\dA-Za-z]/g, '').length;
      return chars === 11 ? 'cpf_invalid' : chars === 14 ? 'cnpj_invalid' : 'document_shape';
    }
    case 'payment_method':
      return 'payment_method_invalid';
    case 'installments':
      return 'installments_invalid';
    case 'zip_code':
      return missing ? 'zip_code_required' : 'zip_code_invalid';
    case 'street_name':
      return missing ? 'street_name_required' : 'address_field_invalid';
    case 'street_number':
      return missing ? 'street_number_required' : 'address_field_invalid';
    case 'neighborhood':
      return missing ? 'neighborhood_required' : 'address_field_invalid';
    case 'city':
      return missing ? 'city_required' : 'address_field_invalid';
    case 'state':
      return 'state_invalid';
    case 'card_token':
    case 'card_payment_method_id':
    case 'card_issuer_id':
      return 'card_incomplete';
    default:
      return 'unexpected_field';
  }
}

/** One problem per field (Joi may report a field twice: its shape, then its check). */
export type FormProblems = Partial<Record<string, FieldProblem>>;

/**
 * The pay form was filled in wrongly: `fields` as the API would name them (logs, tests), and
 * `problems`, the catalogue's words for each field, for the form shown again.
 */
export class PayFormError extends ValidationError {
  readonly problems: FormProblems;

  constructor(error: Joi.ValidationError | { fields: FieldErrors; problems: FormProblems }) {
    const fromJoi = !('problems' in error);
    const fields: FieldErrors = fromJoi ? fieldErrors(error, { root: 'form' }) : error.fields;
    super('Please check the highlighted fields.', fields);
    if (!fromJoi) {
      this.problems = error.problems;
      return;
    }
    const problems: FormProblems = {};
    const byField = fieldErrors(error, { root: 'form', describe: problemOf });
    for (const [field, found] of Object.entries(byField)) {
      const first = found.find(isFieldProblem);
      if (first) problems[field] = first;
    }
    this.problems = problems;
  }

  /** Problems found after the form's own checks (a PSP's refusal of what was entered). */
  static of(problems: FormProblems): PayFormError {
    const fields: FieldErrors = {};
    for (const [field, problem] of Object.entries(problems))
      if (problem !== undefined) fields[field] = [CATALOGUE.en.problems[problem]];
    return new PayFormError({ fields, problems });
  }
}
