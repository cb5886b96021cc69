/** The API keys page's words, in each language the dashboard speaks (joined into `../messages.ts`). */
import type { Language } from '../../ui/language.js';

export interface KeysMessages {
  keys: {
    title: string;
    none: string;
    name: string;
    kind: string;
    kinds: Record<'payments' | 'read_only', string>;
    mode: string;
    key: string;
    lastUsed: string;
    state: string;
    active: string;
    revoked: string;
    never: string;
    ownerOnly: string;
    create: string;
    createSubmit: string;
    newKey: string;
    newKeyHint: string;
    revoke: string;
    revokeLabel: (name: string) => string;
  };
}

const ptBR: KeysMessages = {
  keys: {
    title: 'Chaves de API',
    none: 'Nenhuma chave ainda.',
    name: 'Nome',
    kind: 'Tipo',
    kinds: { payments: 'Pagamentos', read_only: 'Somente leitura' },
    mode: 'Modo',
    key: 'Chave',
    lastUsed: 'Último uso',
    state: 'Estado',
    active: 'Ativa',
    revoked: 'Revogada',
    never: 'Nunca',
    ownerOnly: 'Só o proprietário da empresa cria ou revoga chaves.',
    create: 'Nova chave',
    createSubmit: 'Criar chave',
    newKey: 'Nova chave',
    newKeyHint: 'Copie agora: ela não será mostrada de novo.',
    revoke: 'Revogar',
    revokeLabel: (name) => `Revogar a chave ${name}`,
  },
};

const en: KeysMessages = {
  keys: {
    title: 'API keys',
    none: 'No keys yet.',
    name: 'Name',
    kind: 'Kind',
    kinds: { payments: 'Payments', read_only: 'Read-only' },
    mode: 'Mode',
    key: 'Key',
    lastUsed: 'Last used',
    state: 'State',
    active: 'Active',
    revoked: 'Revoked',
    never: 'Never',
    ownerOnly: 'Only the company owner creates or revokes keys.',
    create: 'New key',
    createSubmit: 'Create key',
    newKey: 'New key',
    newKeyHint: 'Copy it now: it will not be shown again.',
    revoke: 'Revoke',
    revokeLabel: (name) => `Revoke key ${name}`,
  },
};

export const KEYS_WORDS: Record<Language, KeysMessages> = { 'pt-BR': ptBR, en };
