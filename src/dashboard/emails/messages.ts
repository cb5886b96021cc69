/** The dashboard's words about e-mail to buyers (the e-mail page, an order's page), in each language. */
import type { EmailKind, ShownEmailState } from '../../emails/kinds.js';
import type { Language } from '../../ui/language.js';

export interface EmailsWords {
  title: string;
  intro: string;
  senderName: string;
  senderNameHint: (companyName: string) => string;
  replyTo: string;
  replyToHint: string;
  messagesLegend: string;
  save: string;
  saved: string;
  readOnly: string;
  problems: { heading: string; sender_name: string; reply_to: string; other: string };
  kinds: Record<EmailKind, { name: string; when: string }>;
  previewHeading: string;
  previewIntro: string;
  subject: string;
  textPart: string;
  openHtml: (kind: string) => string;
  off: string;
  order: {
    title: (code: string) => string;
    back: string;
    status: string;
    amount: string;
    platformFee: string;
    gatewayFee: string;
    net: string;
    method: string;
    buyer: string;
    product: string;
    created: string;
    paid: string;
    refunded: string;
    /** Who asked for the refund: the seller (panel, dashboard) or the buyer (their page, within the guarantee). */
    refundedBy: Record<'seller' | 'buyer', string>;
    refundReason: string;
    /** A buyer's refund queued while the gateway did not answer (the order is still paid). */
    refundQueued: string;
    emailsHeading: string;
    emailsCaption: string;
    none: string;
    kind: string;
    to: string;
    state: string;
    sentAt: string;
    states: Record<ShownEmailState, string>;
  };
}

export const EMAILS_WORDS: Record<Language, EmailsWords> = {
  'pt-BR': {
    title: 'E-mails',
    intro:
      'As mensagens que seus compradores recebem por e-mail, no idioma em que compraram. Pedidos de teste nunca enviam e-mail.',
    senderName: 'Nome do remetente',
    senderNameHint: (name) => `Aparece como remetente das mensagens. Em branco: ${name}.`,
    replyTo: 'E-mail de atendimento',
    replyToHint: 'Para onde vão as respostas dos compradores. Em branco: o e-mail do proprietário da conta.',
    messagesLegend: 'Mensagens enviadas',
    save: 'Salvar',
    saved: 'Configurações salvas.',
    readOnly: 'Esta sessão é somente leitura: as configurações não podem ser alteradas.',
    problems: {
      heading: 'Corrija o formulário:',
      sender_name: 'O nome do remetente deve ter de 1 a 100 caracteres, em uma linha.',
      reply_to: 'Informe um e-mail válido de atendimento.',
      other: 'Não foi possível salvar. Confira os campos.',
    },
    kinds: {
      instructions: { name: 'Instruções de pagamento', when: 'Pix ou boleto de um pedido novo' },
      reminder: {
        name: 'Lembrete de vencimento',
        when: 'Na véspera do vencimento de um boleto ou Pix ainda não pago',
      },
      receipt: { name: 'Recibo', when: 'Pagamento confirmado, e cada renovação paga' },
      refund: { name: 'Reembolso', when: 'Um pedido reembolsado' },
      renewal_notice: { name: 'Aviso de renovação', when: 'Três dias antes de uma assinatura renovar' },
      renewal_failed: {
        name: 'Renovação recusada',
        when: 'Cobrança de renovação recusada, com link para pagar agora',
      },
      canceled: { name: 'Assinatura cancelada', when: 'Uma assinatura encerrada (nunca por chargeback)' },
      recovery: {
        name: 'Recuperação de carrinho',
        when: 'Um lembrete a quem deixou o pedido sem pagar e autorizou no checkout',
      },
    },
    previewHeading: 'Prévia das mensagens',
    previewIntro: 'Cada mensagem como seus compradores a recebem, com um pedido de exemplo.',
    subject: 'Assunto',
    textPart: 'Texto da mensagem',
    openHtml: (kind) => `Ver ${kind} como o comprador vê`,
    off: 'desligada',
    order: {
      title: (code) => `Pedido ${code}`,
      back: 'Voltar aos pedidos',
      status: 'Situação',
      amount: 'Valor',
      platformFee: 'Taxa da plataforma',
      gatewayFee: 'Taxa do processador de pagamentos',
      net: 'Valor líquido',
      method: 'Forma de pagamento',
      buyer: 'Comprador',
      product: 'Produto',
      created: 'Criado em',
      paid: 'Pago em',
      refunded: 'Reembolsado em',
      refundedBy: { seller: 'Pelo vendedor', buyer: 'Pelo comprador (direito de arrependimento)' },
      refundReason: 'Motivo do comprador',
      refundQueued: 'Reembolso pedido pelo comprador, aguardando a operadora de pagamento, desde',
      emailsHeading: 'E-mails ao comprador',
      emailsCaption: 'E-mails enviados ao comprador sobre este pedido',
      none: 'Nenhum e-mail sobre este pedido.',
      kind: 'Mensagem',
      to: 'Para',
      state: 'Situação',
      sentAt: 'Enviado em',
      states: { queued: 'Na fila', sent: 'Enviado', failed: 'Falhou', bounced: 'Recusado' },
    },
  },
  en: {
    title: 'E-mails',
    intro:
      'The messages your buyers receive by e-mail, in the language they bought in. Test orders never send e-mail.',
    senderName: 'Sender name',
    senderNameHint: (name) => `Shown as the sender of the messages. Blank: ${name}.`,
    replyTo: 'Support e-mail',
    replyToHint: 'Where buyers’ replies go. Blank: the e-mail of the account’s owner.',
    messagesLegend: 'Messages sent',
    save: 'Save',
    saved: 'Settings saved.',
    readOnly: 'This session is read-only: the settings cannot be changed.',
    problems: {
      heading: 'Please fix the form:',
      sender_name: 'The sender name must be 1 to 100 characters, on one line.',
      reply_to: 'Enter a valid support e-mail.',
      other: 'The settings could not be saved. Check the fields.',
    },
    kinds: {
      instructions: { name: 'Payment instructions', when: 'The Pix or boleto of a new order' },
      reminder: { name: 'Due-date reminder', when: 'The day before an unpaid boleto or Pix falls due' },
      receipt: { name: 'Receipt', when: 'A confirmed payment, and every paid renewal' },
      refund: { name: 'Refund', when: 'A refunded order' },
      renewal_notice: { name: 'Renewal notice', when: 'Three days before a subscription renews' },
      renewal_failed: { name: 'Renewal declined', when: 'A declined renewal charge, with a link to pay now' },
      canceled: { name: 'Subscription canceled', when: 'A subscription that ended (never for a chargeback)' },
      recovery: {
        name: 'Cart recovery',
        when: 'One reminder to a buyer who left an order unpaid and agreed to it at the checkout',
      },
    },
    previewHeading: 'Message previews',
    previewIntro: 'Each message as your buyers receive it, with an example order.',
    subject: 'Subject',
    textPart: 'Message text',
    openHtml: (kind) => `See ${kind} as the buyer does`,
    off: 'off',
    order: {
      title: (code) => `Order ${code}`,
      back: 'Back to orders',
      status: 'Status',
      amount: 'Amount',
      platformFee: 'Platform fee',
      gatewayFee: 'Payment processor fee',
      net: 'Net amount',
      method: 'Payment method',
      buyer: 'Buyer',
      product: 'Product',
      created: 'Created',
      paid: 'Paid',
      refunded: 'Refunded',
      refundedBy: { seller: 'By the seller', buyer: 'By the buyer (right of regret)' },
      refundReason: "Buyer's reason",
      refundQueued: 'Refund asked by the buyer, waiting for the payment gateway, since',
      emailsHeading: 'E-mails to the buyer',
      emailsCaption: 'E-mails sent to the buyer about this order',
      none: 'No e-mail about this order.',
      kind: 'Message',
      to: 'To',
      state: 'State',
      sentAt: 'Sent',
      states: { queued: 'Queued', sent: 'Sent', failed: 'Failed', bounced: 'Bounced' },
    },
  },
};
