/**
 * Every word the buyer pages show, in each language they speak (see `src/ui/messages.ts`): the keys
 * in `messages/keys.ts`, one file per language.
 */
import type { Catalogue } from '../ui/messages.js';
import { en } from './messages/en.js';
import type { Messages } from './messages/keys.js';
import { ptBR } from './messages/pt-br.js';

export const CATALOGUE: Catalogue<Messages> = { 'pt-BR': ptBR, en };

export { FIELD_PROBLEMS, isFieldProblem } from './messages/keys.js';
export type { ErrorKey, FieldProblem, Messages, NoticeKey, SentenceKey, StatusKey } from './messages/keys.js';
