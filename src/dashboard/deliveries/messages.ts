/** A delivery's page's words, in each language the dashboard speaks (joined into `../messages.ts`). */
import type { Language } from '../../ui/language.js';

export interface DeliveriesMessages {
  delivery: {
    title: (id: number) => string;
    back: string;
    event: string;
    nextAttempt: string;
    resend: string;
    attempt: (n: number) => string;
    requestedAt: string;
    responseStatus: string;
    noResponse: string;
    duration: (ms: number) => string;
    error: string;
    request: string;
    headers: string;
    body: string;
    response: string;
    emptyBody: string;
    notKept: string;
    noAttempts: string;
  };
}

const ptBR: DeliveriesMessages = {
  delivery: {
    title: (id) => `Entrega ${id}`,
    back: 'Voltar à integração',
    event: 'Evento',
    nextAttempt: 'Próxima tentativa',
    resend: 'Reenviar esta entrega',
    attempt: (n) => `Tentativa ${n}`,
    requestedAt: 'Enviada em',
    responseStatus: 'Resposta',
    noResponse: 'Sem resposta',
    duration: (ms) => `${ms} ms`,
    error: 'Erro',
    request: 'Requisição',
    headers: 'Cabeçalhos',
    body: 'Corpo',
    response: 'Corpo da resposta',
    emptyBody: '(vazio)',
    notKept: 'Não guardada (tentativa antiga).',
    noAttempts: 'Nenhuma tentativa ainda.',
  },
};

const en: DeliveriesMessages = {
  delivery: {
    title: (id) => `Delivery ${id}`,
    back: 'Back to the integration',
    event: 'Event',
    nextAttempt: 'Next attempt',
    resend: 'Resend this delivery',
    attempt: (n) => `Attempt ${n}`,
    requestedAt: 'Sent',
    responseStatus: 'Response',
    noResponse: 'No response',
    duration: (ms) => `${ms} ms`,
    error: 'Error',
    request: 'Request',
    headers: 'Headers',
    body: 'Body',
    response: 'Response body',
    emptyBody: '(empty)',
    notKept: 'Not kept (an older attempt).',
    noAttempts: 'No attempts yet.',
  },
};

export const DELIVERIES_WORDS: Record<Language, DeliveriesMessages> = { 'pt-BR': ptBR, en };
