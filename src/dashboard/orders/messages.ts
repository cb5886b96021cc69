/** The orders export's words, in each language the dashboard speaks (joined into `../messages.ts`). */
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
    method: string;
    installments: string;
    status: string;
    paid: string;
    refunded: string;
  };
  methods: Record<'credit_card' | 'pix' | 'boleto', string>;
}

const ptBR: OrdersCsvMessages = {
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
    method: 'Forma de pagamento',
    installments: 'Parcelas',
    status: 'Estado',
    paid: 'Pago em (Brasília)',
    refunded: 'Reembolsado em (Brasília)',
  },
  methods: { credit_card: 'Cartão de crédito', pix: 'Pix', boleto: 'Boleto' },
};

const en: OrdersCsvMessages = {
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
    method: 'Payment method',
    installments: 'Instalments',
    status: 'Status',
    paid: 'Paid (Brasília)',
    refunded: 'Refunded (Brasília)',
  },
  methods: { credit_card: 'Credit card', pix: 'Pix', boleto: 'Boleto' },
};

export const ORDERS_CSV_WORDS: Record<Language, OrdersCsvMessages> = { 'pt-BR': ptBR, en };
