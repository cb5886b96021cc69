/**
 * Every word of the e-mails to buyers, in both languages the checkout speaks: one typed catalogue,
 * so a language that misses a message does not compile. Plain text: the templates escape it.
 */
import type { PaymentMethod } from '../shared/enums/payment-methods.js';
import type { Language } from '../ui/language.js';
import type { EmailKind } from './kinds.js';

export interface EmailWords {
  locale: string;
  hello: (name: string | null) => string;
  methods: Record<PaymentMethod, string>;
  cycles: Record<string, string>;
  instalments: (n: number) => string;
  labels: {
    item: string;
    amount: string;
    method: string;
    order: string;
    seller: string;
    cnpj: string;
    dueDate: string;
    expiresAt: string;
    renewsOn: string;
    pixCode: string;
    pixQrAlt: string;
    digitableLine: string;
    /** The service invoice (NFS-e) and its number. */
    invoice: string;
  };
  links: {
    orderPage: string;
    boletoPage: string;
    payNow: string;
    buyAgain: string;
    unsubscribe: string;
    /** The buyer's page (`{checkout_url}/account`): every purchase, content, subscriptions, refunds. */
    account: string;
    /** The service invoice's PDF (the DANFSe, at the fiscal provider). */
    invoicePdf: string;
  };
  /** The receipt sent again once the order's service invoice is issued. */
  invoiceSubject: (item: string) => string;
  subjects: Record<
    EmailKind,
    (item: string, extra: { method: PaymentMethod | null; date: string }) => string
  >;
  intro: {
    instructionsPix: string;
    instructionsBoleto: string;
    reminderPix: (when: string) => string;
    reminderBoleto: (when: string) => string;
    receipt: string;
    refund: string;
    renewalNotice: (when: string) => string;
    renewalByCard: string;
    renewalByInstructions: string;
    renewalFailed: string;
    renewalRetry: string;
    canceled: (reason: string | null) => string;
    recovery: string;
    invoiceIssued: string;
  };
  footer: {
    sentBecause: (seller: string) => string;
    reply: string;
    recoveryWhy: string;
  };
}

const PT: EmailWords = {
  locale: 'pt-BR',
  hello: (name) => (name ? `Olá, ${name}!` : 'Olá!'),
  methods: { credit_card: 'Cartão de crédito', pix: 'Pix', boleto: 'Boleto' },
  cycles: {
    weekly: 'semanal',
    monthly: 'mensal',
    quarterly: 'trimestral',
    semiannual: 'semestral',
    yearly: 'anual',
  },
  instalments: (n) => (n > 1 ? `em ${n}x sem juros` : 'à vista'),
  labels: {
    item: 'Item',
    amount: 'Valor',
    method: 'Forma de pagamento',
    order: 'Pedido',
    seller: 'Vendedor',
    cnpj: 'CNPJ',
    dueDate: 'Vencimento',
    expiresAt: 'Válido até',
    renewsOn: 'Renovação em',
    pixCode: 'Pix copia e cola',
    pixQrAlt: 'QR code do Pix',
    digitableLine: 'Linha digitável',
    invoice: 'Nota fiscal (NFS-e)',
  },
  links: {
    orderPage: 'Ver o pedido',
    boletoPage: 'Abrir o boleto para imprimir',
    payNow: 'Pagar agora',
    buyAgain: 'Concluir a compra',
    unsubscribe: 'Não quero mais receber estes lembretes',
    account: 'Minhas compras',
    invoicePdf: 'Baixar a nota fiscal (PDF)',
  },
  invoiceSubject: (item) => `Nota fiscal: ${item}`,
  subjects: {
    instructions: (item, { method }) =>
      method === 'boleto' ? `Seu boleto de ${item}` : `Seu Pix de ${item} para pagar`,
    reminder: (item, { method }) =>
      method === 'boleto'
        ? `Lembrete: o boleto de ${item} vence amanhã`
        : `Lembrete: o Pix de ${item} vence amanhã`,
    receipt: (item) => `Recibo: ${item}`,
    refund: (item) => `Reembolso: ${item}`,
    renewal_notice: (item, { date }) => `Sua assinatura de ${item} renova em ${date}`,
    renewal_failed: (item) => `Não conseguimos renovar sua assinatura de ${item}`,
    canceled: (item) => `Sua assinatura de ${item} foi cancelada`,
    recovery: (item) => `Você deixou ${item} para depois`,
  },
  intro: {
    instructionsPix: 'Recebemos seu pedido. Para concluir, pague o Pix abaixo no app do seu banco.',
    instructionsBoleto: 'Recebemos seu pedido. Para concluir, pague o boleto abaixo até o vencimento.',
    reminderPix: (when) => `Seu Pix ainda não foi pago e vale até ${when}.`,
    reminderBoleto: (when) => `Seu boleto ainda não foi pago e vence em ${when}.`,
    receipt: 'Pagamento confirmado. Este é o seu recibo.',
    refund: 'Seu pedido foi reembolsado. O valor volta pela mesma forma de pagamento.',
    renewalNotice: (when) => `Sua assinatura renova em ${when}.`,
    renewalByCard: 'A cobrança será feita no cartão usado na compra.',
    renewalByInstructions: 'Você receberá por e-mail as instruções para pagar.',
    renewalFailed: 'A cobrança da renovação da sua assinatura não foi aprovada.',
    renewalRetry: 'Vamos tentar de novo nos próximos dias; se preferir, pague agora pelo link abaixo.',
    canceled: (reason) =>
      reason === 'payment_failed'
        ? 'Sua assinatura foi cancelada porque a renovação não foi paga.'
        : 'Sua assinatura foi cancelada e não será mais cobrada.',
    recovery: 'Seu pedido ficou sem pagamento. Se ainda quiser, é só concluir a compra.',
    invoiceIssued: 'A nota fiscal de serviço (NFS-e) da sua compra foi emitida.',
  },
  footer: {
    sentBecause: (seller) => `Você recebeu esta mensagem por causa de um pedido seu a ${seller}.`,
    reply: 'Dúvidas? Responda a este e-mail para falar com o vendedor.',
    recoveryWhy: 'Você pediu, ao fazer o pedido, para ser lembrado se ele ficasse sem pagamento.',
  },
};

const EN: EmailWords = {
  locale: 'en',
  hello: (name) => (name ? `Hi ${name},` : 'Hi,'),
  methods: { credit_card: 'Credit card', pix: 'Pix', boleto: 'Boleto' },
  cycles: {
    weekly: 'weekly',
    monthly: 'monthly',
    quarterly: 'quarterly',
    semiannual: 'every six months',
    yearly: 'yearly',
  },
  instalments: (n) => (n > 1 ? `in ${n} interest-free instalments` : 'in full'),
  labels: {
    item: 'Item',
    amount: 'Amount',
    method: 'Payment method',
    order: 'Order',
    seller: 'Seller',
    cnpj: 'CNPJ',
    dueDate: 'Due date',
    expiresAt: 'Valid until',
    renewsOn: 'Renews on',
    pixCode: 'Pix copy and paste code',
    pixQrAlt: 'Pix QR code',
    digitableLine: 'Boleto number',
    invoice: 'Service invoice (NFS-e)',
  },
  links: {
    orderPage: 'See your order',
    boletoPage: 'Open the printable boleto',
    payNow: 'Pay now',
    buyAgain: 'Complete your purchase',
    unsubscribe: 'Stop these reminders',
    account: 'My purchases',
    invoicePdf: 'Download the invoice (PDF)',
  },
  invoiceSubject: (item) => `Service invoice: ${item}`,
  subjects: {
    instructions: (item, { method }) =>
      method === 'boleto' ? `Your boleto for ${item}` : `Your Pix for ${item}, ready to pay`,
    reminder: (item, { method }) =>
      method === 'boleto'
        ? `Reminder: the boleto for ${item} is due tomorrow`
        : `Reminder: the Pix for ${item} expires tomorrow`,
    receipt: (item) => `Receipt: ${item}`,
    refund: (item) => `Refund: ${item}`,
    renewal_notice: (item, { date }) => `Your ${item} subscription renews on ${date}`,
    renewal_failed: (item) => `We could not renew your ${item} subscription`,
    canceled: (item) => `Your ${item} subscription was canceled`,
    recovery: (item) => `You left ${item} behind`,
  },
  intro: {
    instructionsPix: 'We received your order. To complete it, pay the Pix below in your bank’s app.',
    instructionsBoleto: 'We received your order. To complete it, pay the boleto below by its due date.',
    reminderPix: (when) => `Your Pix is still unpaid and valid until ${when}.`,
    reminderBoleto: (when) => `Your boleto is still unpaid and due on ${when}.`,
    receipt: 'Payment confirmed. This is your receipt.',
    refund: 'Your order was refunded. The amount goes back the way you paid.',
    renewalNotice: (when) => `Your subscription renews on ${when}.`,
    renewalByCard: 'The card you paid with will be charged.',
    renewalByInstructions: 'You will receive the payment instructions by e-mail.',
    renewalFailed: 'The charge that renews your subscription was not approved.',
    renewalRetry: 'We will try again in the next days; or pay now with the link below.',
    canceled: (reason) =>
      reason === 'payment_failed'
        ? 'Your subscription was canceled because its renewal was not paid.'
        : 'Your subscription was canceled and will not be charged again.',
    recovery: 'Your order was left unpaid. If you still want it, you can complete your purchase.',
    invoiceIssued: 'The service invoice (NFS-e) of your purchase was issued.',
  },
  footer: {
    sentBecause: (seller) => `You received this message because of an order of yours with ${seller}.`,
    reply: 'Questions? Reply to this e-mail to reach the seller.',
    recoveryWhy: 'When you ordered, you asked to be reminded if the order was left unpaid.',
  },
};

export const EMAIL_WORDS: Record<Language, EmailWords> = { 'pt-BR': PT, en: EN };
