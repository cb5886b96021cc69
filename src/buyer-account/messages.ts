/**
 * Every word of the buyer's page, in both languages of the buyer pages: one typed catalogue, so a
 * language that misses a sentence does not compile. Plain text: the views escape it.
 */
import type { OrderStatus } from '../shared/enums/order-statuses.js';
import type { PaymentMethod } from '../shared/enums/payment-methods.js';
import type { SubscriptionStatus } from '../shared/enums/subscription-statuses.js';
import type { Language } from '../ui/language.js';

export interface AccountWords {
  title: string;
  signIn: {
    intro: string;
    email: string;
    send: string;
    sent: string;
    sentTitle: string;
    limited: string;
    invalidEmail: string;
    linkTitle: string;
    linkIntro: string;
    linkButton: string;
    linkRefused: string;
    askAgain: string;
  };
  signedInAs: (email: string) => string;
  signOut: string;
  none: string;
  shownAtMost: (n: number) => string;
  statuses: Record<OrderStatus, string>;
  methods: Record<PaymentMethod, string>;
  subscriptionStatuses: Record<SubscriptionStatus, string>;
  labels: {
    seller: string;
    status: string;
    amount: string;
    method: string;
    date: string;
    paidAt: string;
    order: string;
    pixCode: string;
    pixExpires: string;
    digitableLine: string;
    dueDate: string;
    receipt: string;
    refundedAt: string;
    reason: string;
    content: string;
    subscription: string;
    renewsOn: string;
    endsOn: string;
  };
  orderPage: string;
  /** The purchase's service invoice (NFS-e), once issued: its label and the PDF link's text. */
  invoice: { label: string; pdf: (number: string | null) => string };
  instalments: (n: number) => string;
  refund: {
    heading: string;
    until: (date: string) => string;
    reasonLabel: string;
    reasonHint: string;
    button: string;
    done: string;
    over: (date: string) => string;
    contact: (seller: string, address: string | null) => string;
    reasonTooLong: string;
    notRefundable: string;
    queued: string;
    requested: (date: string) => string;
  };
  subscriptions: {
    cancelNow: string;
    cancelAtEnd: string;
    payNow: string;
    switchTo: (method: string) => string;
    canceled: string;
    willCancel: (date: string) => string;
    renewsBy: (method: string) => string;
    changeMethod: string;
  };
  /** The page that switches how a subscription renews. */
  renewalMethod: {
    title: string;
    intro: (product: string) => string;
    legend: string;
    save: string;
    done: string;
    cardLocal: string;
    cardCurrent: string;
    back: string;
  };
  notFound: string;
  contentHeading: string;
  contentOf: (product: string, seller: string) => string;
  purchasesHeading: string;
}

const PT: AccountWords = {
  title: 'Minhas compras',
  signIn: {
    intro: 'Informe o e-mail usado na compra. Enviaremos um link para entrar, sem senha.',
    email: 'E-mail',
    send: 'Enviar o link',
    sent: 'Se houver compras com este e-mail, um link para entrar chegará em instantes. Ele vale por 15 minutos.',
    sentTitle: 'Confira seu e-mail',
    limited: 'Muitos pedidos de link. Tente de novo mais tarde.',
    invalidEmail: 'Informe um e-mail válido.',
    linkTitle: 'Entrar em Minhas compras',
    linkIntro: 'Clique no botão para entrar. O link funciona uma só vez.',
    linkButton: 'Entrar',
    linkRefused: 'Este link não vale mais: já foi usado, expirou ou está incompleto.',
    askAgain: 'Pedir um novo link',
  },
  signedInAs: (email) => `Você entrou como ${email}.`,
  signOut: 'Sair',
  none: 'Nenhuma compra com este e-mail.',
  shownAtMost: (n) => `Mostrando as ${n} compras mais recentes.`,
  statuses: {
    pending: 'Aguardando pagamento',
    paid: 'Pago',
    failed: 'Recusado',
    refunded: 'Reembolsado',
    charged_back: 'Contestado',
    abandoned: 'Não pago',
  },
  methods: { credit_card: 'Cartão de crédito', pix: 'Pix', boleto: 'Boleto' },
  subscriptionStatuses: { active: 'Ativa', past_due: 'Pagamento pendente', canceled: 'Cancelada' },
  labels: {
    seller: 'Vendedor',
    status: 'Situação',
    amount: 'Valor',
    method: 'Forma de pagamento',
    date: 'Data',
    paidAt: 'Pago em',
    order: 'Pedido',
    pixCode: 'Pix copia e cola',
    pixExpires: 'Válido até',
    digitableLine: 'Linha digitável',
    dueDate: 'Vencimento',
    receipt: 'Recibo',
    refundedAt: 'Reembolsado em',
    reason: 'Motivo',
    content: 'Conteúdo',
    subscription: 'Assinatura',
    renewsOn: 'Renova em',
    endsOn: 'Termina em',
  },
  orderPage: 'Ver o pedido',
  invoice: { label: 'Nota fiscal', pdf: (n) => (n ? `NFS-e nº ${n} (PDF)` : 'NFS-e (PDF)') },
  instalments: (n) => (n > 1 ? `em ${n}x` : 'à vista'),
  refund: {
    heading: 'Direito de arrependimento',
    until: (date) => `Você pode pedir o reembolso até ${date}.`,
    reasonLabel: 'Motivo (opcional)',
    reasonHint: 'Até 500 caracteres. O vendedor verá o que você escrever.',
    button: 'Pedir o reembolso',
    done: 'Reembolso feito. O valor volta pela mesma forma de pagamento.',
    over: (date) => `O prazo de arrependimento terminou em ${date}.`,
    contact: (seller, address) =>
      address
        ? `Para falar com ${seller}, escreva para ${address}.`
        : `Para falar com ${seller}, responda a um e-mail da compra.`,
    reasonTooLong: 'O motivo passa de 500 caracteres.',
    notRefundable: 'Este pedido não pode mais ser reembolsado por aqui.',
    queued:
      'Reembolso pedido. A operadora de pagamento não respondeu agora; o reembolso será feito assim que ela responder, sem que você precise pedir de novo.',
    requested: (date) =>
      `Reembolso pedido em ${date}: será feito assim que a operadora de pagamento responder.`,
  },
  subscriptions: {
    cancelNow: 'Cancelar agora',
    cancelAtEnd: 'Cancelar no fim do período',
    payNow: 'Pagar a renovação agora',
    switchTo: (method) => `Renovar por ${method}`,
    canceled: 'Assinatura cancelada.',
    willCancel: (date) => `Será cancelada em ${date}.`,
    renewsBy: (method) => `Renova por ${method}.`,
    changeMethod: 'Mudar a forma de renovação',
  },
  renewalMethod: {
    title: 'Forma de renovação',
    intro: (product) => `Como a assinatura de ${product} será paga nas próximas renovações.`,
    legend: 'Renovar por',
    save: 'Salvar',
    done: 'Pronto: as próximas renovações usam a forma escolhida.',
    cardLocal: 'O cartão é cobrado na próxima renovação.',
    cardCurrent: 'Para trocar o cartão, informe o novo abaixo.',
    back: 'Voltar para Minhas compras',
  },
  notFound: 'Compra não encontrada.',
  contentHeading: 'Seu conteúdo',
  contentOf: (product, seller) => `${product} (${seller})`,
  purchasesHeading: 'Compras',
};

const EN: AccountWords = {
  title: 'My purchases',
  signIn: {
    intro: 'Enter the e-mail you bought with. We will send you a link to sign in, no password needed.',
    email: 'E-mail',
    send: 'Send the link',
    sent: 'If this e-mail has purchases, a sign-in link is on its way. It is valid for 15 minutes.',
    sentTitle: 'Check your e-mail',
    limited: 'Too many link requests. Please try again later.',
    invalidEmail: 'Enter a valid e-mail address.',
    linkTitle: 'Sign in to My purchases',
    linkIntro: 'Press the button to sign in. The link works once.',
    linkButton: 'Sign in',
    linkRefused: 'This link no longer works: it was used, it expired, or it is incomplete.',
    askAgain: 'Ask for a new link',
  },
  signedInAs: (email) => `Signed in as ${email}.`,
  signOut: 'Sign out',
  none: 'No purchases with this e-mail.',
  shownAtMost: (n) => `Showing the ${n} most recent purchases.`,
  statuses: {
    pending: 'Awaiting payment',
    paid: 'Paid',
    failed: 'Declined',
    refunded: 'Refunded',
    charged_back: 'Disputed',
    abandoned: 'Not paid',
  },
  methods: { credit_card: 'Credit card', pix: 'Pix', boleto: 'Boleto' },
  subscriptionStatuses: { active: 'Active', past_due: 'Payment due', canceled: 'Canceled' },
  labels: {
    seller: 'Seller',
    status: 'Status',
    amount: 'Amount',
    method: 'Payment method',
    date: 'Date',
    paidAt: 'Paid on',
    order: 'Order',
    pixCode: 'Pix copy and paste code',
    pixExpires: 'Valid until',
    digitableLine: 'Boleto line',
    dueDate: 'Due date',
    receipt: 'Receipt',
    refundedAt: 'Refunded on',
    reason: 'Reason',
    content: 'Content',
    subscription: 'Subscription',
    renewsOn: 'Renews on',
    endsOn: 'Ends on',
  },
  orderPage: 'View the order',
  invoice: { label: 'Service invoice', pdf: (n) => (n ? `NFS-e no. ${n} (PDF)` : 'NFS-e (PDF)') },
  instalments: (n) => (n > 1 ? `in ${n} instalments` : 'in full'),
  refund: {
    heading: 'Right of regret',
    until: (date) => `You may ask for a refund until ${date}.`,
    reasonLabel: 'Reason (optional)',
    reasonHint: 'Up to 500 characters. The seller will see what you write.',
    button: 'Ask for a refund',
    done: 'Refunded. The money goes back the way you paid.',
    over: (date) => `The right of regret ended on ${date}.`,
    contact: (seller, address) =>
      address
        ? `To reach ${seller}, write to ${address}.`
        : `To reach ${seller}, reply to an e-mail about the purchase.`,
    reasonTooLong: 'The reason is longer than 500 characters.',
    notRefundable: 'This order can no longer be refunded here.',
    queued:
      'Refund requested. The payment provider did not answer just now; the refund is made as soon as it does, with no need to ask again.',
    requested: (date) => `Refund requested on ${date}: it is made as soon as the payment provider answers.`,
  },
  subscriptions: {
    cancelNow: 'Cancel now',
    cancelAtEnd: 'Cancel at the period end',
    payNow: 'Pay the renewal now',
    switchTo: (method) => `Renew by ${method}`,
    canceled: 'Subscription canceled.',
    willCancel: (date) => `It will be canceled on ${date}.`,
    renewsBy: (method) => `Renews by ${method}.`,
    changeMethod: 'Change how it renews',
  },
  renewalMethod: {
    title: 'How it renews',
    intro: (product) => `How the subscription to ${product} is paid at its next renewals.`,
    legend: 'Renew by',
    save: 'Save',
    done: 'Done: the next renewals use the method you chose.',
    cardLocal: 'The card is charged at the next renewal.',
    cardCurrent: 'To change the card, enter the new one below.',
    back: 'Back to My purchases',
  },
  notFound: 'Purchase not found.',
  contentHeading: 'Your content',
  contentOf: (product, seller) => `${product} (${seller})`,
  purchasesHeading: 'Purchases',
};

export const ACCOUNT_WORDS: Record<Language, AccountWords> = { 'pt-BR': PT, en: EN };
