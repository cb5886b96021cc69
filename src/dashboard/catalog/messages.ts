/** The catalog's words, in each language the dashboard speaks (joined into `../messages.ts`). */
import type { Language } from '../../ui/language.js';

export interface CatalogMessages {
  title: string;
  intro: string;
  products: string;
  offers: string;
  plans: string;
  coupons: string;
  none: string;
  id: string;
  code: string;
  name: string;
  product: string;
  price: string;
  cycle: string;
  status: string;
  onSale: string;
  discount: string;
  action: string;
  active: string;
  inactive: string;
  yes: string;
  no: string;
  edit: string;
  editLabel: (what: string) => string;
  activate: string;
  deactivate: string;
  toggleLabel: (code: string, activate: boolean) => string;
  newProduct: string;
  newOffer: string;
  newPlan: string;
  newCoupon: string;
  editProduct: (name: string) => string;
  editOffer: (code: string) => string;
  editPlan: (code: string) => string;
  priceHint: string;
  guaranteeDays: string;
  guaranteeDaysHint: string;
  content: string;
  contentHint: string;
  noProducts: string;
  percentOff: string;
  percentOffHint: string;
  amountOff: string;
  amountOffHint: string;
  codeHint: string;
  save: string;
  create: string;
  back: string;
}

const ptBR: CatalogMessages = {
  title: 'Catálogo',
  intro: 'O que a empresa vende: produtos, as ofertas e os planos de cada um, e os cupons de desconto.',
  products: 'Produtos',
  offers: 'Ofertas',
  plans: 'Planos',
  coupons: 'Cupons',
  none: 'Nenhum ainda.',
  id: 'Id',
  code: 'Código',
  name: 'Nome',
  product: 'Produto',
  price: 'Preço',
  cycle: 'Ciclo',
  status: 'Estado',
  onSale: 'À venda',
  discount: 'Desconto',
  action: 'Ação',
  active: 'Ativo',
  inactive: 'Inativo',
  yes: 'Sim',
  no: 'Não',
  edit: 'Editar',
  editLabel: (what) => `Editar ${what}`,
  activate: 'Ativar',
  deactivate: 'Desativar',
  toggleLabel: (code, activate) => `${activate ? 'Ativar' : 'Desativar'} o cupom ${code}`,
  newProduct: 'Novo produto',
  newOffer: 'Nova oferta',
  newPlan: 'Novo plano',
  newCoupon: 'Novo cupom',
  editProduct: (name) => `Produto ${name}`,
  editOffer: (code) => `Oferta ${code}`,
  editPlan: (code) => `Plano ${code}`,
  priceHint: 'Em reais, com até duas casas decimais, como 97,00.',
  guaranteeDays: 'Garantia (dias)',
  guaranteeDaysHint:
    'De 7 a 30 dias após o pagamento, o comprador pode pedir o reembolso na página dele (direito de arrependimento).',
  content: 'Conteúdo (área de membros)',
  contentHint:
    'Uma linha por item, até 50: título | https://endereço | descrição (opcional). Quem compra o produto vê estes links na página dele enquanto tiver acesso.',
  noProducts: 'Crie um produto ativo antes.',
  percentOff: 'Desconto em %',
  percentOffHint: 'Acima de 0 e até 100. Preencha este ou o valor, só um deles.',
  amountOff: 'Desconto em R$',
  amountOffHint: 'Acima de 0, como 10,00.',
  codeHint: 'De 1 a 40 letras, dígitos, "-" ou "_"; o comprador digita no checkout.',
  save: 'Salvar',
  create: 'Criar',
  back: 'Voltar ao catálogo',
};

const en: CatalogMessages = {
  title: 'Catalog',
  intro: 'What the company sells: products, the offers and plans of each, and discount coupons.',
  products: 'Products',
  offers: 'Offers',
  plans: 'Plans',
  coupons: 'Coupons',
  none: 'None yet.',
  id: 'Id',
  code: 'Code',
  name: 'Name',
  product: 'Product',
  price: 'Price',
  cycle: 'Cycle',
  status: 'Status',
  onSale: 'On sale',
  discount: 'Discount',
  action: 'Action',
  active: 'Active',
  inactive: 'Inactive',
  yes: 'Yes',
  no: 'No',
  edit: 'Edit',
  editLabel: (what) => `Edit ${what}`,
  activate: 'Activate',
  deactivate: 'Deactivate',
  toggleLabel: (code, activate) => `${activate ? 'Activate' : 'Deactivate'} coupon ${code}`,
  newProduct: 'New product',
  newOffer: 'New offer',
  newPlan: 'New plan',
  newCoupon: 'New coupon',
  editProduct: (name) => `Product ${name}`,
  editOffer: (code) => `Offer ${code}`,
  editPlan: (code) => `Plan ${code}`,
  priceHint: 'In reais, with at most two decimals, such as 97.00.',
  guaranteeDays: 'Guarantee (days)',
  guaranteeDaysHint:
    'From 7 to 30 days after payment, the buyer may ask for a refund from their own page (right of regret).',
  content: 'Content (members area)',
  contentHint:
    'One line per item, up to 50: title | https://address | description (optional). Buyers of the product see these links on their page while they hold access.',
  noProducts: 'Create an active product first.',
  percentOff: 'Discount in %',
  percentOffHint: 'Above 0 and at most 100. Fill in this or the amount, only one.',
  amountOff: 'Discount in R$',
  amountOffHint: 'Above 0, such as 10.00.',
  codeHint: '1 to 40 letters, digits, "-" or "_"; the buyer types it at checkout.',
  save: 'Save',
  create: 'Create',
  back: 'Back to the catalog',
};

export const CATALOG_WORDS: Record<Language, CatalogMessages> = { 'pt-BR': ptBR, en };
