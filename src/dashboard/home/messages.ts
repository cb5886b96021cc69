/** The home's words, in each language the dashboard speaks (joined into `../messages.ts`). */
import type { Language } from '../../ui/language.js';
import { plural } from '../../ui/plural.js';

export interface HomeMessages {
  title: string;
  period: (from: string, to: string) => string;
  modeLabel: string;
  showLive: string;
  showTest: string;
  live: string;
  test: string;
  figures: string;
  revenue: string;
  revenueHint: (gross: string, refunded: string, chargedBack: string, fees: string) => string;
  paidOrders: string;
  averageTicket: string;
  conversion: string;
  conversionHint: (paid: number, created: number) => string;
  none: string;
  pix: string;
  boleto: string;
  generatedPaid: (generated: number, paid: number) => string;
  chartTitle: string;
  chartSummary: (total: string, best: string | null) => string;
  tableCaption: string;
  day: string;
  total: string;
  methods: Record<'credit_card' | 'pix' | 'boleto', string>;
  sourcesTitle: string;
  sourcesNone: string;
  source: string;
  noSource: string;
  failing: string;
  failingNone: string;
  failingItem: (id: number, failures: number) => string;
  disabled: string;
  createLink: string;
}

const ptBR: HomeMessages = {
  title: 'Início',
  period: (from, to) => `Últimos 30 dias, de ${from} a ${to} (horário de Brasília)`,
  modeLabel: 'Modo',
  showLive: 'Ver produção',
  showTest: 'Ver teste',
  live: 'Produção',
  test: 'Teste',
  figures: 'Resumo das vendas',
  revenue: 'Receita líquida',
  revenueHint: (gross, refunded, chargedBack, fees) =>
    `${gross} pagos, menos ${refunded} reembolsados, ${chargedBack} contestados e ${fees} de taxas.`,
  paidOrders: 'Pedidos pagos',
  averageTicket: 'Ticket médio',
  conversion: 'Conversão',
  conversionHint: (paid, created) =>
    plural('pt-BR', created, {
      '=0': 'Nenhum pedido criado no período.',
      one: `${paid} pago de ${created} pedido criado.`,
      other: `${paid} pagos de ${created} pedidos criados.`,
    }),
  none: '—',
  pix: 'Pix',
  boleto: 'Boleto',
  generatedPaid: (generated, paid) =>
    plural('pt-BR', generated, {
      '=0': 'nenhum gerado',
      one: `${generated} gerado, ${paid} pago`,
      other: `${generated} gerados, ${paid} pagos`,
    }),
  chartTitle: 'Receita líquida por dia e forma de pagamento',
  chartSummary: (total, best) =>
    best === null
      ? `Nenhuma venda nos últimos 30 dias. A tabela abaixo traz cada dia.`
      : `Total de ${total} nos últimos 30 dias; o melhor dia foi ${best}. A tabela abaixo traz os valores de cada dia.`,
  tableCaption: 'Receita líquida por dia e forma de pagamento',
  day: 'Dia',
  total: 'Total',
  methods: { credit_card: 'Cartão', pix: 'Pix', boleto: 'Boleto' },
  sourcesTitle: 'Receita líquida por utm_source',
  sourcesNone: 'Nenhum pedido pago no período.',
  source: 'utm_source',
  noSource: '(sem utm_source)',
  failing: 'Integrações com falhas',
  failingNone: 'Todas as integrações estão entregando.',
  failingItem: (id, failures) =>
    plural('pt-BR', failures, {
      one: `Integração ${id}: ${failures} falha seguida`,
      other: `Integração ${id}: ${failures} falhas seguidas`,
    }),
  disabled: 'desativada',
  createLink: 'Criar um link de pagamento',
};

const en: HomeMessages = {
  title: 'Home',
  period: (from, to) => `Last 30 days, ${from} to ${to} (Brasília time)`,
  modeLabel: 'Mode',
  showLive: 'Show live',
  showTest: 'Show test',
  live: 'Live',
  test: 'Test',
  figures: 'Sales at a glance',
  revenue: 'Net revenue',
  revenueHint: (gross, refunded, chargedBack, fees) =>
    `${gross} paid, less ${refunded} refunded, ${chargedBack} charged back and ${fees} in fees.`,
  paidOrders: 'Paid orders',
  averageTicket: 'Average ticket',
  conversion: 'Conversion',
  conversionHint: (paid, created) =>
    plural('en', created, {
      '=0': 'No orders created in the period.',
      one: `${paid} paid of ${created} order created.`,
      other: `${paid} paid of ${created} orders created.`,
    }),
  none: '—',
  pix: 'Pix',
  boleto: 'Boleto',
  generatedPaid: (generated, paid) =>
    plural('en', generated, {
      '=0': 'none generated',
      one: `${generated} generated, ${paid} paid`,
      other: `${generated} generated, ${paid} paid`,
    }),
  chartTitle: 'Net revenue per day by payment method',
  chartSummary: (total, best) =>
    best === null
      ? 'No sales in the last 30 days. The table below lists each day.'
      : `${total} in the last 30 days; the best day was ${best}. The table below lists each day's figures.`,
  tableCaption: 'Net revenue per day by payment method',
  day: 'Day',
  total: 'Total',
  methods: { credit_card: 'Card', pix: 'Pix', boleto: 'Boleto' },
  sourcesTitle: 'Net revenue by utm_source',
  sourcesNone: 'No paid orders in the period.',
  source: 'utm_source',
  noSource: '(no utm_source)',
  failing: 'Failing integrations',
  failingNone: 'Every integration is delivering.',
  failingItem: (id, failures) =>
    plural('en', failures, {
      one: `Integration ${id}: ${failures} consecutive failure`,
      other: `Integration ${id}: ${failures} consecutive failures`,
    }),
  disabled: 'disabled',
  createLink: 'Create a payment link',
};

export const HOME_WORDS: Record<Language, HomeMessages> = { 'pt-BR': ptBR, en };
