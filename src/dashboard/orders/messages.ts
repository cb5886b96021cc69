/** The orders pages' words and the orders export's, in each language the dashboard speaks (joined into `../messages.ts`). */
import type { Language } from '../../ui/language.js';

export interface OrdersCsvMessages {
  download: string;
  downloadHint: string;
  /** The file's name, without extension. */
  file: string;
  columns: {
    code: string;
    created: string;
    buyerName: string;
    buyerEmail: string;
    product: string;
    amount: string;
    platformFee: string;
    gatewayFee: string;
    net: string;
    method: string;
    installments: string;
    status: string;
    paid: string;
    refunded: string;
    invoice: string;
    invoiceNumber: string;
  };
  methods: Record<'credit_card' | 'pix' | 'boleto', string>;
}

const csvPtBR: OrdersCsvMessages = {
  download: 'Baixar planilha (CSV)',
  downloadHint: 'Os pedidos destes filtros, em CSV com ponto e vírgula, para o Excel ou o Google Planilhas.',
  file: 'pedidos',
  columns: {
    code: 'Pedido',
    created: 'Criado em (Brasília)',
    buyerName: 'Comprador',
    buyerEmail: 'E-mail do comprador',
    product: 'Produto',
    amount: 'Valor (R$)',
    platformFee: 'Taxa da plataforma (R$)',
    gatewayFee: 'Taxa do processador (R$)',
    net: 'Valor líquido (R$)',
    method: 'Forma de pagamento',
    installments: 'Parcelas',
    status: 'Estado',
    paid: 'Pago em (Brasília)',
    refunded: 'Reembolsado em (Brasília)',
    invoice: 'Nota fiscal',
    invoiceNumber: 'Número da nota',
  },
  methods: { credit_card: 'Cartão de crédito', pix: 'Pix', boleto: 'Boleto' },
};

const csvEn: OrdersCsvMessages = {
  download: 'Download spreadsheet (CSV)',
  downloadHint: 'The orders of these filters as comma-separated values, for Excel or Google Sheets.',
  file: 'orders',
  columns: {
    code: 'Order',
    created: 'Created (Brasília)',
    buyerName: 'Buyer',
    buyerEmail: 'Buyer e-mail',
    product: 'Product',
    amount: 'Amount (BRL)',
    platformFee: 'Platform fee (BRL)',
    gatewayFee: 'Processor fee (BRL)',
    net: 'Net amount (BRL)',
    method: 'Payment method',
    installments: 'Instalments',
    status: 'Status',
    paid: 'Paid (Brasília)',
    refunded: 'Refunded (Brasília)',
    invoice: 'Invoice',
    invoiceNumber: 'Invoice number',
  },
  methods: { credit_card: 'Credit card', pix: 'Pix', boleto: 'Boleto' },
};

export const ORDERS_CSV_WORDS: Record<Language, OrdersCsvMessages> = { 'pt-BR': csvPtBR, en: csvEn };

export interface OrdersPageMessages {
  orders: {
    title: string;
    filter: string;
    status: string;
    anyStatus: string;
    mode: string;
    anyMode: string;
    live: string;
    test: string;
    apply: string;
    none: string;
    order: string;
    buyer: string;
    product: string;
    amount: string;
    created: string;
    action: string;
    refund: string;
    refundLabel: (code: string) => string;
    more: string;
  };

  subscriptions: {
    title: string;
    filter: string;
    none: string;
    subscription: string;
    plan: string;
    periodEnd: string;
    endsAtPeriodEnd: string;
    cancelNow: string;
    cancelNowLabel: (id: number) => string;
    cancelAtEnd: string;
    cancelAtEndLabel: (id: number) => string;
    more: string;
  };
}

const ptBR: OrdersPageMessages = {
  orders: {
    title: 'Pedidos',
    filter: 'Filtrar pedidos',
    status: 'Estado',
    anyStatus: 'Qualquer estado',
    mode: 'Modo',
    anyMode: 'Produção e teste',
    live: 'Produção',
    test: 'Teste',
    apply: 'Filtrar',
    none: 'Nenhum pedido com esses filtros.',
    order: 'Pedido',
    buyer: 'Comprador',
    product: 'Produto',
    amount: 'Valor',
    created: 'Criado em',
    action: 'Ação',
    refund: 'Reembolsar',
    refundLabel: (code) => `Reembolsar o pedido ${code}`,
    more: 'Mais antigos',
  },
  subscriptions: {
    title: 'Assinaturas',
    filter: 'Filtrar assinaturas',
    none: 'Nenhuma assinatura com esses filtros.',
    subscription: 'Assinatura',
    plan: 'Plano',
    periodEnd: 'Fim do período',
    endsAtPeriodEnd: 'Termina no fim do período',
    cancelNow: 'Cancelar agora',
    cancelNowLabel: (id) => `Cancelar agora a assinatura ${id}`,
    cancelAtEnd: 'Cancelar no fim do período',
    cancelAtEndLabel: (id) => `Cancelar no fim do período a assinatura ${id}`,
    more: 'Mais antigas',
  },
};

const en: OrdersPageMessages = {
  orders: {
    title: 'Orders',
    filter: 'Filter orders',
    status: 'Status',
    anyStatus: 'Any status',
    mode: 'Mode',
    anyMode: 'Live and test',
    live: 'Live',
    test: 'Test',
    apply: 'Filter',
    none: 'No orders match these filters.',
    order: 'Order',
    buyer: 'Buyer',
    product: 'Product',
    amount: 'Amount',
    created: 'Created',
    action: 'Action',
    refund: 'Refund',
    refundLabel: (code) => `Refund order ${code}`,
    more: 'Older',
  },
  subscriptions: {
    title: 'Subscriptions',
    filter: 'Filter subscriptions',
    none: 'No subscriptions match these filters.',
    subscription: 'Subscription',
    plan: 'Plan',
    periodEnd: 'Period ends',
    endsAtPeriodEnd: 'Ends at the period end',
    cancelNow: 'Cancel now',
    cancelNowLabel: (id) => `Cancel now: subscription ${id}`,
    cancelAtEnd: 'Cancel at period end',
    cancelAtEndLabel: (id) => `Cancel at period end: subscription ${id}`,
    more: 'Older',
  },
};

export const ORDERS_PAGE_WORDS: Record<Language, OrdersPageMessages> = { 'pt-BR': ptBR, en };
