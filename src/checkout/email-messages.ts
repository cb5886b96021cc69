/**
 * The buyer pages' words about e-mail, in each language they speak: the checkout's consent box, the
 * unsubscribe page of the recovery message, and the pay-now page of a failed renewal.
 */
import type { Language } from '../ui/language.js';

export interface EmailPageWords {
  consent: string;
  unsubscribe: {
    title: string;
    question: (seller: string) => string;
    confirm: string;
    done: (seller: string) => string;
    unknown: string;
  };
  renewal: {
    title: (item: string) => string;
    intro: (seller: string) => string;
    notDue: string;
    paid: string;
  };
}

export const EMAIL_PAGE_WORDS: Record<Language, EmailPageWords> = {
  'pt-BR': {
    consent: 'Quero receber um lembrete por e-mail se eu não concluir este pagamento.',
    unsubscribe: {
      title: 'Cancelar lembretes',
      question: (seller) => `Parar de receber lembretes de pedidos não pagos de ${seller}?`,
      confirm: 'Parar os lembretes',
      done: (seller) => `Pronto: você não receberá mais lembretes de pedidos não pagos de ${seller}.`,
      unknown: 'Este link de cancelamento não é válido.',
    },
    renewal: {
      title: (item) => `Renovar ${item}`,
      intro: (seller) =>
        `A cobrança da renovação não foi aprovada. Pague agora para manter sua assinatura com ${seller}.`,
      notDue: 'Esta renovação não está mais pendente: não há nada a pagar por este link.',
      paid: 'Pagamento recebido: sua assinatura foi renovada.',
    },
  },
  en: {
    consent: 'Send me a reminder by e-mail if I do not complete this payment.',
    unsubscribe: {
      title: 'Stop reminders',
      question: (seller) => `Stop receiving reminders about unpaid orders from ${seller}?`,
      confirm: 'Stop the reminders',
      done: (seller) => `Done: you will not receive reminders about unpaid orders from ${seller} again.`,
      unknown: 'This unsubscribe link is not valid.',
    },
    renewal: {
      title: (item) => `Renew ${item}`,
      intro: (seller) =>
        `The renewal charge was not approved. Pay now to keep your subscription with ${seller}.`,
      notDue: 'This renewal is no longer pending: there is nothing to pay through this link.',
      paid: 'Payment received: your subscription was renewed.',
    },
  },
};
