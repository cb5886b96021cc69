import type Joi from 'joi';
import {
  ConflictError,
  NotFoundError,
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

/** What is wrong with one field, in the buyer's terms, from Joi's detail about it. */
function problemOf(detail: Joi.ValidationErrorItem): FieldProblem {
  const missing = detail.type === 'any.required' || detail.type === 'string.empty';
  switch (String(detail.path[0] ?? '')) {
    case 'name':
      if (missing) return 'name_required';
      return detail.type === 'string.maxChars' ? 'name_too_long' : 'name_invalid';
    case 'email':
      return missing ? 'email_required' : 'email_invalid';
    case 'phone':
      return 'phone_invalid';
    case 'document': {
      // The shape was right but the check digits were not: say which document failed.
      if (detail.type !== 'custom') return 'document_shape';
      const digits = String(detail.context?.value ?? '').replace(/\D/g, '').length;
      return digits === 11 ? 'cpf_invalid' : digits === 14 ? 'cnpj_invalid' : 'document_shape';
    }
    case 'payment_method':
      return 'payment_method_invalid';
    case 'installments':
      return 'installments_invalid';
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

  constructor(error: Joi.ValidationError) {
    const fields: FieldErrors = fieldErrors(error, { root: 'form' });
    super('Please check the highlighted fields.', fields);
    const problems: FormProblems = {};
    const byField = fieldErrors(error, { root: 'form', describe: problemOf });
    for (const [field, found] of Object.entries(byField)) {
      const first = found.find(isFieldProblem);
      if (first) problems[field] = first;
    }
    this.problems = problems;
  }
}
