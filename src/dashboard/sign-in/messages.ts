/** The sign-in page's words, in each language the dashboard speaks (joined into `../messages.ts`). */
import type { Language } from '../../ui/language.js';

export interface SignInMessages {
  signIn: {
    title: string;
    intro: string;
    credential: string;
    hint: string;
    submit: string;
    refused: string;
  };
}

const ptBR: SignInMessages = {
  signIn: {
    title: 'Entrar no painel',
    intro: 'Use um token do painel (pt_…) ou uma chave somente leitura da sua empresa.',
    credential: 'Token do painel ou chave somente leitura',
    hint: 'O token não fica guardado no navegador: ele é trocado por uma sessão que expira.',
    submit: 'Entrar',
    refused: 'Token ou chave inválido, revogado ou sem acesso ao painel.',
  },
};

const en: SignInMessages = {
  signIn: {
    title: 'Sign in to the dashboard',
    intro: "Use one of your company's panel tokens (pt_…) or a read-only key.",
    credential: 'Panel token or read-only key',
    hint: 'The token is not kept in the browser: it is exchanged for a session that expires.',
    submit: 'Sign in',
    refused: 'Invalid or revoked token or key, or one without panel access.',
  },
};

export const SIGN_IN_WORDS: Record<Language, SignInMessages> = { 'pt-BR': ptBR, en };
