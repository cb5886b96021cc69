/**
 * The panel and payments APIs' validation messages in the page's language. The link and catalog
 * forms are checked by the APIs' own schemas and services, so a refused form says what the API
 * would have said about the same value: word for word in English, and in Portuguese by this table
 * (each pattern one message of src/shared/validation, src/payment-links or src/catalog). A message
 * the table does not know reads as a plain "not valid" in Portuguese, never in English.
 */
import { ConflictError, ValidationError } from '../shared/errors.js';
import type { FormProblems } from './forms.js';
import type { DashboardLocale } from './locale.js';

type Rule = [RegExp, (...groups: string[]) => string];

const kindPt = (kind: string): string => (kind === 'offer' ? 'oferta' : kind === 'plan' ? 'plano' : kind);
const genderPt = (kind: string): string => (kind === 'plan' ? 'este' : 'esta');

const PT_BR: Rule[] = [
  [/^is required$/, () => 'é obrigatório.'],
  [/^is not allowed to be empty$/, () => 'não pode ficar vazio.'],
  [/^must be a number$/, () => 'deve ser um número.'],
  [/^must be an integer$/, () => 'deve ser um número inteiro.'],
  [/^must be a string$/, () => 'deve ser um texto.'],
  [/^must be a boolean$/, () => 'deve ser sim ou não.'],
  [/^must be greater than or equal to (\S+)$/, (n) => `deve ser no mínimo ${n}.`],
  [/^must be less than or equal to (\S+)$/, (n) => `deve ser no máximo ${n}.`],
  [/^must be greater than (\S+)$/, (n) => `deve ser maior que ${n}.`],
  [
    /^length must be less than or equal to (\d+) characters? long$/,
    (n) => `deve ter no máximo ${n} caracteres.`,
  ],
  [/^length must be at least (\d+) characters? long$/, (n) => `deve ter ao menos ${n} caracteres.`],
  [/^must contain at least (\d+) items?$/, (n) => `escolha ao menos ${n}.`],
  [/^contains a duplicate value$/, () => 'tem um valor repetido.'],
  [/^must be a valid email$/, () => 'deve ser um e-mail válido.'],
  [/^must be one of \[.*\]$/, () => 'escolha uma opção da lista.'],
  [/^is not a valid date-time$/, () => 'deve ser uma data e hora válidas.'],
  [/^must be an ISO 8601 date-time with an offset/, () => 'deve ser uma data e hora válidas.'],
  [/^must be in the future$/, () => 'deve estar no futuro.'],
  [/^must be at most (\d+) days after creation$/, (n) => `deve ser no máximo ${n} dias depois da criação.`],
  [/^must not contain the NUL character/, () => 'não pode conter o caractere NUL.'],
  [
    /^no (offer|plan) with this code in your company$/,
    (k) => `não há ${kindPt(k)} com esse código na sua empresa.`,
  ],
  [
    /^this (offer|plan) is not on sale \(its product is inactive\)$/,
    (k) => `${genderPt(k)} ${kindPt(k)} não está à venda (o produto está inativo).`,
  ],
  [
    /^this (offer|plan) is not active$/,
    (k) => `${genderPt(k)} ${kindPt(k)} não está ativ${k === 'plan' ? 'o' : 'a'}.`,
  ],
  [/^one of offer_code or plan_code is required$/, () => 'escolha uma oferta ou um plano.'],
  [/^send offer_code or plan_code, not both$/, () => 'escolha uma oferta ou um plano, não os dois.'],
  [/^no coupon with this code in your company$/, () => 'não há cupom com esse código na sua empresa.'],
  [/^this coupon is not active$/, () => 'este cupom não está ativo.'],
  [/^must be an https URL$/, () => 'deve ser um endereço https.'],
  [
    /^must be an absolute http or https URL without spaces$/,
    () => 'deve ser um endereço http ou https completo, sem espaços.',
  ],
  [/^must be an absolute URL$/, () => 'deve ser um endereço completo.'],
  [/^must be an http or https URL$/, () => 'deve ser um endereço http ou https.'],
  [/^must not carry credentials$/, () => 'não pode conter usuário e senha.'],
  [/^must have at most (\d+) key\/value pairs$/, (n) => `pode ter no máximo ${n} pares chave=valor.`],
  [/^key (".*") (.*)$/, (key, rest) => `a chave ${key} ${translate(rest ?? '')}`],
  [/^value of (".*") (.*)$/, (key, rest) => `o valor de ${key} ${translate(rest ?? '')}`],
  [/^each line must be key=value$/, () => 'cada linha deve ser chave=valor.'],
  [
    /^must contain only digits, letters and \. - \/ separators$/,
    () => 'deve ter só dígitos, letras e os separadores . - /.',
  ],
  [/^is not a valid CPF$/, () => 'não é um CPF válido.'],
  [/^is not a valid CNPJ$/, () => 'não é um CNPJ válido.'],
  [
    /^must be a CPF \(11 digits\) or a CNPJ \(14 characters/,
    () => 'deve ser um CPF (11 dígitos) ou um CNPJ (14 caracteres: 12 dígitos ou letras e 2 dígitos).',
  ],
  [
    /^must be digits \(country code, area code, number\)/,
    () => 'deve ter dígitos (país, DDD e número), com + e separadores opcionais.',
  ],
  [/^must have 10 to 15 digits/, () => 'deve ter de 10 a 15 dígitos: país, DDD e número.'],
  [
    /^must be a decimal amount with at most two decimals/,
    () => 'deve ser um valor com no máximo duas casas decimais, como 97,00.',
  ],
  [
    /^must be a percentage above 0 and at most 100/,
    () => 'deve ser um percentual acima de 0 e até 100, com no máximo duas casas decimais.',
  ],
  [
    /^must be a decimal amount above 0 with at most two decimals$/,
    () => 'deve ser um valor acima de 0 com no máximo duas casas decimais.',
  ],
  [
    /^send exactly one of percent_off and amount_off$/,
    () => 'informe o percentual ou o valor do desconto, só um deles.',
  ],
  [/^must be 1-40 letters, digits, "-" or "_"$/, () => 'deve ter de 1 a 40 letras, dígitos, "-" ou "_".'],
  [/^no product (\d+) in this company$/, (id) => `não há produto ${id} na sua empresa.`],
  [/^product (\d+) is inactive$/, (id) => `o produto ${id} está inativo.`],
  [/^the company already has this coupon$/, () => 'a empresa já tem um cupom com esse código.'],
];

function translate(message: string): string {
  for (const [pattern, words] of PT_BR) {
    const match = pattern.exec(message);
    if (match) return words(...match.slice(1).map((g) => g ?? ''));
  }
  return 'não é válido.';
}

/** One of the APIs' messages as the page's language says it. */
export const apiMessage = (page: DashboardLocale, message: string): string =>
  page.lang === 'en' ? message : translate(message);

/**
 * A refused form's problems, each under the form field it belongs to: `fieldOf` maps the API's
 * field (`customer.email`, `offer_code`) to the form's, `labels` names each form field. Each reads
 * "Label: message" in the page's language.
 */
export function apiProblems(
  page: DashboardLocale,
  err: ValidationError,
  labels: Record<string, string>,
  fieldOf: (apiField: string) => string = (f) => f,
): FormProblems {
  const problems: FormProblems = new Map();
  for (const [apiField, messages] of Object.entries(err.fields ?? {})) {
    const field = fieldOf(apiField);
    const label = labels[field];
    const said = (messages ?? []).map((m) => apiMessage(page, m)).join(' ');
    if (label === undefined) problems.set('', `${problems.get('') ?? ''} ${said}`.trim());
    else if (!problems.has(field)) problems.set(field, `${label}: ${said}`);
  }
  if (problems.size === 0) problems.set('', apiMessage(page, err.message));
  return problems;
}

/** A field the API refuses as taken (a coupon's code), as a validation problem of that field. */
export const takenAs = (field: string, err: unknown): ValidationError | undefined =>
  err instanceof ConflictError
    ? ValidationError.field(field, 'the company already has this coupon')
    : undefined;
