/** The payment links' words, in each language the dashboard speaks (joined into `../messages.ts`). */
import type { LinkStatus } from '../../shared/enums/link-statuses.js';
import type { Language } from '../../ui/language.js';

export interface LinksMessages {
  title: string;
  filter: string;
  mode: string;
  status: string;
  anyStatus: string;
  search: string;
  searchHint: string;
  apply: string;
  none: string;
  caption: string;
  link: string;
  sells: string;
  reference: string;
  expires: string;
  created: string;
  action: string;
  open: (id: string) => string;
  more: string;
  create: string;
  statuses: Record<LinkStatus, string>;
  cancel: string;
  cancelLabel: (id: string) => string;
  cancelQuestion: (id: string) => string;
  cancelSubmit: string;
  // The create form.
  newTitle: string;
  newIntro: string;
  item: string;
  offers: string;
  plans: string;
  noItems: string;
  chooseItem: string;
  coupon: string;
  noCoupon: string;
  referenceHint: string;
  metadata: string;
  metadataHint: string;
  customer: string;
  customerHint: string;
  customerName: string;
  customerEmail: string;
  customerPhone: string;
  customerDocument: string;
  checkout: string;
  methods: string;
  methodNames: Record<'credit_card' | 'pix' | 'boleto', string>;
  pixSeconds: string;
  pixSecondsHint: string;
  boletoDays: string;
  boletoDaysHint: string;
  installments: string;
  installmentsHint: string;
  singleUse: string;
  singleUseHint: string;
  expiresAt: string;
  expiresAtHint: string;
  successUrl: string;
  successUrlHint: string;
  submit: string;
  // A link's page.
  linkTitle: (id: string) => string;
  back: string;
  url: string;
  urlHint: string;
  shortUrl: string;
  qr: string;
  qrAlt: (url: string) => string;
  downloadPng: string;
  downloadSvg: string;
  facts: string;
  order: string;
  yes: string;
  no: string;
  never: string;
  testHint: string;
}

const ptBR: LinksMessages = {
  title: 'Links de pagamento',
  filter: 'Filtrar links',
  mode: 'Modo',
  status: 'Estado',
  anyStatus: 'Qualquer estado',
  search: 'Referência externa',
  searchHint: 'A referência exata dada ao criar o link.',
  apply: 'Filtrar',
  none: 'Nenhum link com esses filtros.',
  caption: 'Links de pagamento',
  link: 'Link',
  sells: 'Vende',
  reference: 'Referência externa',
  expires: 'Expira em',
  created: 'Criado em',
  action: 'Ação',
  open: (id) => `Abrir o link ${id}`,
  more: 'Mais antigos',
  create: 'Novo link de pagamento',
  statuses: { active: 'Ativo', paid: 'Pago', expired: 'Expirado', canceled: 'Cancelado' },
  cancel: 'Cancelar',
  cancelLabel: (id) => `Cancelar o link ${id}`,
  cancelQuestion: (id) => `Cancelar o link ${id}? Quem abrir o endereço não poderá mais pagar.`,
  cancelSubmit: 'Sim, cancelar o link',
  newTitle: 'Novo link de pagamento',
  newIntro: 'Um endereço para vender uma oferta ou um plano, sem escrever código.',
  item: 'Oferta ou plano',
  offers: 'Ofertas',
  plans: 'Planos',
  noItems: 'Nada à venda: crie uma oferta ou um plano no catálogo antes.',
  chooseItem: 'Escolha…',
  coupon: 'Cupom',
  noCoupon: 'Nenhum',
  referenceHint: 'Opcional: o código do pedido no seu sistema, para achar o link depois.',
  metadata: 'Metadados',
  metadataHint: 'Opcional: uma linha por par, no formato chave=valor (até 20).',
  customer: 'Comprador',
  customerHint: 'Opcional: preenche o checkout.',
  customerName: 'Nome',
  customerEmail: 'E-mail',
  customerPhone: 'Telefone',
  customerDocument: 'CPF ou CNPJ',
  checkout: 'Checkout',
  methods: 'Formas de pagamento',
  methodNames: { credit_card: 'Cartão de crédito', pix: 'Pix', boleto: 'Boleto' },
  pixSeconds: 'Validade do Pix (segundos)',
  pixSecondsHint: 'De 60 a 1209600; vazio para 1800 (30 minutos).',
  boletoDays: 'Vencimento do boleto (dias)',
  boletoDaysHint: 'De 1 a 30; vazio para 3.',
  installments: 'Parcelas no cartão',
  installmentsHint: 'Máximo de parcelas sem juros, de 1 a 12; vazio para 1.',
  singleUse: 'Uso único: o link fecha depois do primeiro pagamento',
  singleUseHint: 'Desmarcado, o link aceita vários pagamentos até expirar.',
  expiresAt: 'Expira em (horário de Brasília)',
  expiresAtHint: 'Até 90 dias; vazio para 7 dias.',
  successUrl: 'Endereço depois do pagamento',
  successUrlHint: 'Opcional: para onde o comprador vai quando o pagamento é confirmado.',
  submit: 'Criar link',
  linkTitle: (id) => `Link ${id}`,
  back: 'Todos os links',
  url: 'Endereço do link',
  urlHint: 'Compartilhe este endereço com quem vai pagar.',
  shortUrl: 'Endereço curto',
  qr: 'QR code',
  qrAlt: (url) => `QR code do endereço ${url}`,
  downloadPng: 'Baixar o QR code (PNG)',
  downloadSvg: 'Baixar o QR code (SVG)',
  facts: 'Dados',
  order: 'Pedido',
  yes: 'Sim',
  no: 'Não',
  never: 'Nunca',
  testHint: 'Link de teste: o endereço abre a simulação, sem cobrança de verdade.',
};

const en: LinksMessages = {
  title: 'Payment links',
  filter: 'Filter links',
  mode: 'Mode',
  status: 'Status',
  anyStatus: 'Any status',
  search: 'External reference',
  searchHint: 'The exact reference given when the link was created.',
  apply: 'Filter',
  none: 'No links match these filters.',
  caption: 'Payment links',
  link: 'Link',
  sells: 'Sells',
  reference: 'External reference',
  expires: 'Expires',
  created: 'Created',
  action: 'Action',
  open: (id) => `Open link ${id}`,
  more: 'Older',
  create: 'New payment link',
  statuses: { active: 'Active', paid: 'Paid', expired: 'Expired', canceled: 'Canceled' },
  cancel: 'Cancel',
  cancelLabel: (id) => `Cancel link ${id}`,
  cancelQuestion: (id) => `Cancel link ${id}? Whoever opens its address will no longer be able to pay.`,
  cancelSubmit: 'Yes, cancel the link',
  newTitle: 'New payment link',
  newIntro: 'An address that sells one offer or one plan, without writing code.',
  item: 'Offer or plan',
  offers: 'Offers',
  plans: 'Plans',
  noItems: 'Nothing on sale: create an offer or a plan in the catalog first.',
  chooseItem: 'Choose…',
  coupon: 'Coupon',
  noCoupon: 'None',
  referenceHint: 'Optional: the order’s code in your own system, to find the link later.',
  metadata: 'Metadata',
  metadataHint: 'Optional: one key=value pair a line (up to 20).',
  customer: 'Buyer',
  customerHint: 'Optional: prefills the checkout.',
  customerName: 'Name',
  customerEmail: 'E-mail',
  customerPhone: 'Phone',
  customerDocument: 'CPF or CNPJ',
  checkout: 'Checkout',
  methods: 'Payment methods',
  methodNames: { credit_card: 'Credit card', pix: 'Pix', boleto: 'Boleto' },
  pixSeconds: 'Pix valid for (seconds)',
  pixSecondsHint: '60 to 1209600; empty for 1800 (30 minutes).',
  boletoDays: 'Boleto due in (days)',
  boletoDaysHint: '1 to 30; empty for 3.',
  installments: 'Card instalments',
  installmentsHint: 'Most instalments without interest, 1 to 12; empty for 1.',
  singleUse: 'Single use: the link closes after its first payment',
  singleUseHint: 'Unticked, the link takes many payments until it expires.',
  expiresAt: 'Expires at (Brasília time)',
  expiresAtHint: 'Up to 90 days ahead; empty for 7 days.',
  successUrl: 'Address after payment',
  successUrlHint: 'Optional: where the buyer goes once the payment is confirmed.',
  submit: 'Create link',
  linkTitle: (id) => `Link ${id}`,
  back: 'All links',
  url: 'Link address',
  urlHint: 'Share this address with whoever is paying.',
  shortUrl: 'Short address',
  qr: 'QR code',
  qrAlt: (url) => `QR code of the address ${url}`,
  downloadPng: 'Download the QR code (PNG)',
  downloadSvg: 'Download the QR code (SVG)',
  facts: 'Details',
  order: 'Order',
  yes: 'Yes',
  no: 'No',
  never: 'Never',
  testHint: 'Test link: its address opens the simulation, with no real charge.',
};

export const LINKS_WORDS: Record<Language, LinksMessages> = { 'pt-BR': ptBR, en };
