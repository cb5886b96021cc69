/** Every word the dashboard shows, in each language it speaks (see `src/ui/messages.ts`). */
import type { DeliveryStatus } from '../shared/enums/delivery-statuses.js';
import type { BillingCycle } from '../shared/enums/billing-cycles.js';
import type { OrderStatus } from '../shared/enums/order-statuses.js';
import type { SubscriptionStatus } from '../shared/enums/subscription-statuses.js';
import type { Catalogue, CopyMessages, LanguageMessages } from '../ui/messages.js';
import { plural } from '../ui/plural.js';
import { CATALOG_WORDS, type CatalogMessages } from './catalog/messages.js';
import { HOME_WORDS, type HomeMessages } from './home/messages.js';
import { LINKS_WORDS, type LinksMessages } from './links/messages.js';
import { SIGN_IN_WORDS, type SignInMessages } from './sign-in/messages.js';
import { INTEGRATIONS_WORDS, type IntegrationsMessages } from './integrations/messages.js';
import { DELIVERIES_WORDS, type DeliveriesMessages } from './deliveries/messages.js';
import {
  ORDERS_CSV_WORDS,
  ORDERS_PAGE_WORDS,
  type OrdersCsvMessages,
  type OrdersPageMessages,
} from './orders/messages.js';
import { KEYS_WORDS, type KeysMessages } from './keys/messages.js';

/** What a page says after an action redirected back to it. */
export type DoneKey =
  | 'enabled'
  | 'url_saved'
  | 'resent'
  | 'recovered'
  | 'signed_out'
  | 'refunded'
  | 'canceled'
  | 'cancel_scheduled'
  | 'revoked'
  | 'created'
  | 'saved'
  | 'deleted'
  | 'gateway_connected'
  | 'link_created'
  | 'link_canceled'
  | 'catalog_created';

/** The form fields whose problems the dashboard words itself (every other field: `unexpected`). */
export const PROBLEM_FIELDS = [
  'url',
  'type',
  'events',
  'products',
  'rate_limit_per_second',
  'send_to_all_products',
  'filter',
  'headers',
  'event',
  'since',
  'from',
  'to',
  'name',
  'kind',
  'mode',
  'at_period_end',
  'status',
  'event_type',
  'starting_after',
] as const;
export type ProblemField = (typeof PROBLEM_FIELDS)[number];

/** The services' refusals the dashboard can meet, each with its own sentence. */
export type ProblemKey =
  | 'not_found'
  | 'not_signed_in'
  | 'cross_site'
  | 'stale_form'
  | 'read_only'
  | 'owner_only'
  | 'too_many_keys'
  | 'already_pending'
  | 'no_secret'
  | 'no_webhooks'
  | 'reenable_first'
  | 'one_gateway'
  | 'conflict'
  | 'invalid'
  | 'unexpected';

export interface DashboardMessages
  extends
    LanguageMessages,
    SignInMessages,
    IntegrationsMessages,
    DeliveriesMessages,
    OrdersPageMessages,
    KeysMessages {
  product: string;
  navigation: string;
  signOut: string;
  signedInAs: (role: string) => string;
  roles: Record<'owner' | 'member' | 'read_only', string>;

  confirm: {
    title: string;
    cancel: string;
    deleteIntegration: string;
    deleteHint: string;
    deleteQuestion: (id: number, url: string) => string;
    deleteSubmit: string;
    rotateQuestion: (id: number) => string;
    refundQuestion: (code: string, amount: string) => string;
    refundSubmit: string;
    cancelNowQuestion: (id: number, plan: string) => string;
    cancelAtEndQuestion: (id: number, plan: string, end: string) => string;
    revokeQuestion: (name: string) => string;
    revokeHint: string;
  };

  copy: CopyMessages & { button: string };

  problems: {
    title: string;
    fields: Record<ProblemField, string>;
    refusals: Record<ProblemKey, string>;
  };

  home: HomeMessages;
  links: LinksMessages;
  ordersCsv: OrdersCsvMessages;
  catalog: CatalogMessages;

  cycles: Record<BillingCycle, string>;
  deliveryStatuses: Record<DeliveryStatus, string>;
  subscriptionStatuses: Record<SubscriptionStatus, string>;
  orderStatuses: Record<OrderStatus, string>;
  done: Record<DoneKey, string>;
  recovered: (n: number) => string;
  errorTitle: (status: number) => string;
  forbidden: string;
  readOnly: string;
}

const ptBR: DashboardMessages = {
  locale: 'pt-BR',
  home: HOME_WORDS['pt-BR'],
  links: LINKS_WORDS['pt-BR'],
  ordersCsv: ORDERS_CSV_WORDS['pt-BR'],
  catalog: CATALOG_WORDS['pt-BR'],
  ...SIGN_IN_WORDS['pt-BR'],
  ...INTEGRATIONS_WORDS['pt-BR'],
  ...DELIVERIES_WORDS['pt-BR'],
  ...ORDERS_PAGE_WORDS['pt-BR'],
  ...KEYS_WORDS['pt-BR'],
  languageName: 'Português',
  languageSwitch: 'Idioma',
  product: 'Painel',
  navigation: 'Painel',
  signOut: 'Sair',
  signedInAs: (role) => `Conectado como ${role}`,
  roles: { owner: 'proprietário', member: 'membro', read_only: 'somente leitura' },
  confirm: {
    title: 'Confirmar',
    cancel: 'Não, voltar',
    deleteIntegration: 'Excluir a integração',
    deleteHint: 'Remove a integração e o histórico das suas entregas; não pode ser desfeito.',
    deleteQuestion: (id, url) =>
      `Excluir a integração ${id} (${url})? As entregas pendentes não serão feitas.`,
    deleteSubmit: 'Sim, excluir a integração',
    rotateQuestion: (id) =>
      `Gerar um novo segredo para a integração ${id}? O atual continua assinando por um dia; depois, só o novo vale.`,
    refundQuestion: (code, amount) =>
      `Reembolsar ${amount} do pedido ${code}? O comprador recebe o valor de volta.`,
    refundSubmit: 'Sim, reembolsar',
    cancelNowQuestion: (id, plan) =>
      `Cancelar agora a assinatura ${id} (${plan})? Nenhuma cobrança será feita.`,
    cancelAtEndQuestion: (id, plan, end) =>
      `Cancelar a assinatura ${id} (${plan}) no fim do período, em ${end}? Até lá ela segue ativa.`,
    revokeQuestion: (name) => `Revogar a chave ${name}? Todo pedido com ela passa a ser recusado na hora.`,
    revokeHint: 'As sessões do painel abertas com esta chave terminam também.',
  },
  copy: { button: 'Copiar', done: 'Copiado.', failed: 'Não deu para copiar: selecione o texto e copie.' },
  problems: {
    title: 'Corrija e tente de novo',
    fields: {
      url: 'A URL precisa ser um endereço https completo, sem usuário e senha, de um servidor público que responda pelo nome.',
      type: 'Escolha um dos tipos da lista.',
      events: 'Escolha eventos da lista (no máximo 50).',
      products: 'Escolha produtos desta empresa.',
      rate_limit_per_second: 'O limite por segundo deve ser um número inteiro de 1 a 1000, ou vazio.',
      filter:
        'Confira o filtro: no máximo 10 linhas, cada uma um caminho que algum evento tem, =, e valores separados por vírgula.',
      headers:
        'Confira os cabeçalhos: no máximo 10, nomes sem espaços e que não sejam content-type, content-length, host, user-agent nem webhook-*, valores de até 1024 caracteres visíveis.',
      send_to_all_products: 'A opção de todos os produtos veio num formato inválido.',
      event: 'Escolha um evento da lista para o teste.',
      since: 'Informe dia e hora, nos últimos 14 dias.',
      from: 'A data inicial precisa ser dia e hora.',
      to: 'A data final precisa ser dia e hora, depois da inicial.',
      name: 'Informe um nome de até 100 caracteres.',
      kind: 'Escolha um tipo de chave da lista.',
      mode: 'Escolha produção ou teste.',
      at_period_end: 'A forma de cancelamento veio num formato inválido.',
      status: 'Escolha um estado da lista.',
      event_type: 'Escolha um evento da lista.',
      starting_after: 'O link da próxima página não é válido; volte à primeira.',
    },
    refusals: {
      not_found: 'Não encontrado: não existe ou não é desta empresa.',
      not_signed_in: 'Sua sessão terminou. Entre de novo.',
      cross_site: 'O formulário não veio deste painel.',
      stale_form: 'O formulário expirou ou não veio desta sessão. Recarregue a página e tente de novo.',
      read_only: 'Uma sessão somente leitura não pode alterar nada.',
      owner_only: 'Só o proprietário da empresa cria ou revoga chaves.',
      too_many_keys: 'A empresa já tem o máximo de chaves ativas; revogue uma antes.',
      already_pending: 'Esta entrega já está na fila; espere o resultado.',
      no_secret: 'Este tipo de integração não tem segredo de assinatura.',
      no_webhooks: 'Este tipo de integração não recebe webhooks.',
      reenable_first: 'A integração está inativa: reative-a antes de reenviar.',
      one_gateway: 'A empresa já tem um gateway ativo; desative-o antes.',
      conflict: 'Não foi possível: o estado mudou. Recarregue a página e tente de novo.',
      invalid: 'Há um campo inválido no formulário.',
      unexpected: 'Um campo do formulário não é válido.',
    },
  },
  cycles: {
    weekly: 'Semanal',
    monthly: 'Mensal',
    quarterly: 'Trimestral',
    semiannual: 'Semestral',
    yearly: 'Anual',
  },
  subscriptionStatuses: { active: 'Ativa', past_due: 'Em atraso', canceled: 'Cancelada' },
  deliveryStatuses: { pending: 'Pendente', succeeded: 'Entregue', failed: 'Falhou', skipped: 'Pulada' },
  orderStatuses: {
    pending: 'Pendente',
    paid: 'Pago',
    failed: 'Recusado',
    refunded: 'Reembolsado',
    abandoned: 'Abandonado',
    charged_back: 'Contestado',
  },
  done: {
    enabled: 'Integração reativada.',
    url_saved: 'URL salva.',
    resent: 'Entrega enviada de novo; o resultado aparece aqui em instantes.',
    recovered: 'Reenvio pedido.',
    signed_out: 'Você saiu do painel.',
    refunded: 'Pedido reembolsado.',
    canceled: 'Assinatura cancelada.',
    cancel_scheduled: 'A assinatura termina no fim do período.',
    revoked: 'Chave revogada.',
    created: 'Integração criada.',
    saved: 'Alterações salvas.',
    deleted: 'Integração excluída.',
    gateway_connected: 'Mercado Pago conectado. Os novos pagamentos passam pela sua conta.',
    link_created: 'Link criado. Compartilhe o endereço ou o QR code.',
    link_canceled: 'Link cancelado.',
    catalog_created: 'Criado.',
  },
  recovered: (n) =>
    plural('pt-BR', n, {
      // CLDR counts 0 as `one` in Portuguese; the page has always said "0 entregas serão enviadas".
      '=0': '0 entregas serão enviadas de novo.',
      one: `${n} entrega será enviada de novo.`,
      other: `${n} entregas serão enviadas de novo.`,
    }),
  errorTitle: (status) => `Erro ${status}`,
  forbidden: 'Esta ação não é permitida.',
  readOnly: 'Sessão somente leitura: nada pode ser alterado.',
};

const en: DashboardMessages = {
  locale: 'en',
  home: HOME_WORDS.en,
  links: LINKS_WORDS.en,
  ordersCsv: ORDERS_CSV_WORDS.en,
  catalog: CATALOG_WORDS.en,
  ...SIGN_IN_WORDS.en,
  ...INTEGRATIONS_WORDS.en,
  ...DELIVERIES_WORDS.en,
  ...ORDERS_PAGE_WORDS.en,
  ...KEYS_WORDS.en,
  languageName: 'English',
  languageSwitch: 'Language',
  product: 'Dashboard',
  navigation: 'Dashboard',
  signOut: 'Sign out',
  signedInAs: (role) => `Signed in as ${role}`,
  roles: { owner: 'owner', member: 'member', read_only: 'read-only' },
  confirm: {
    title: 'Confirm',
    cancel: 'No, go back',
    deleteIntegration: 'Delete the integration',
    deleteHint: 'Removes the integration and the history of its deliveries; it cannot be undone.',
    deleteQuestion: (id, url) => `Delete integration ${id} (${url})? Pending deliveries will not be made.`,
    deleteSubmit: 'Yes, delete the integration',
    rotateQuestion: (id) =>
      `Generate a new secret for integration ${id}? The current one keeps signing for a day; then only the new one counts.`,
    refundQuestion: (code, amount) => `Refund ${amount} of order ${code}? The buyer gets the money back.`,
    refundSubmit: 'Yes, refund',
    cancelNowQuestion: (id, plan) => `Cancel subscription ${id} (${plan}) now? No further charge is made.`,
    cancelAtEndQuestion: (id, plan, end) =>
      `Cancel subscription ${id} (${plan}) at the period end, on ${end}? It stays active until then.`,
    revokeQuestion: (name) => `Revoke key ${name}? Every request made with it is refused from now on.`,
    revokeHint: 'Dashboard sessions opened with this key end too.',
  },
  copy: { button: 'Copy', done: 'Copied.', failed: 'Could not copy: select the text and copy it.' },
  problems: {
    title: 'Please fix and try again',
    fields: {
      url: 'The URL must be a full https address, with no user name or password, of a public server whose name resolves.',
      type: 'Choose one of the listed types.',
      events: 'Choose events from the list (50 at most).',
      products: 'Choose products of this company.',
      rate_limit_per_second: 'The rate limit must be a whole number from 1 to 1000, or empty.',
      filter:
        'Check the filter: 10 lines at most, each a path some event has, =, and values separated by commas.',
      headers:
        'Check the headers: 10 at most, names without spaces and other than content-type, content-length, host, user-agent or webhook-*, values of up to 1024 visible characters.',
      send_to_all_products: 'The every-product option came in an invalid form.',
      event: 'Choose an event from the list for the test.',
      since: 'Give a day and time within the last 14 days.',
      from: 'The start must be a day and time.',
      to: 'The end must be a day and time, after the start.',
      name: 'Give a name of at most 100 characters.',
      kind: 'Choose a key kind from the list.',
      mode: 'Choose live or test.',
      at_period_end: 'The way to cancel came in an invalid form.',
      status: 'Choose a status from the list.',
      event_type: 'Choose an event from the list.',
      starting_after: 'The next-page link is not valid; go back to the first page.',
    },
    refusals: {
      not_found: 'Not found: it does not exist or is not this company’s.',
      not_signed_in: 'Your session ended. Please sign in again.',
      cross_site: 'The form did not come from this dashboard.',
      stale_form: 'The form is stale or was not sent by this session. Reload the page and try again.',
      read_only: 'A read-only session cannot change anything.',
      owner_only: 'Only the company owner can create or revoke keys.',
      too_many_keys: 'The company already has the most active keys allowed; revoke one first.',
      already_pending: 'This delivery is already queued; wait for its result.',
      no_secret: 'This type of integration has no signing secret.',
      no_webhooks: 'This type of integration does not receive webhooks.',
      reenable_first: 'The integration is inactive: re-enable it before recovering.',
      one_gateway: 'The company already has an active gateway; deactivate it first.',
      conflict: 'That could not be done: things changed. Reload the page and try again.',
      invalid: 'A field of the form is not valid.',
      unexpected: 'A field of the form is not valid.',
    },
  },
  cycles: {
    weekly: 'Weekly',
    monthly: 'Monthly',
    quarterly: 'Quarterly',
    semiannual: 'Semiannual',
    yearly: 'Yearly',
  },
  subscriptionStatuses: { active: 'Active', past_due: 'Past due', canceled: 'Canceled' },
  deliveryStatuses: { pending: 'Pending', succeeded: 'Succeeded', failed: 'Failed', skipped: 'Skipped' },
  orderStatuses: {
    pending: 'Pending',
    paid: 'Paid',
    failed: 'Failed',
    refunded: 'Refunded',
    abandoned: 'Abandoned',
    charged_back: 'Charged back',
  },
  done: {
    enabled: 'Integration re-enabled.',
    url_saved: 'URL saved.',
    resent: 'Delivery sent again; its result shows here in a moment.',
    recovered: 'Recovery requested.',
    signed_out: 'You signed out of the dashboard.',
    refunded: 'Order refunded.',
    canceled: 'Subscription canceled.',
    cancel_scheduled: 'The subscription ends at the period end.',
    revoked: 'Key revoked.',
    created: 'Integration created.',
    saved: 'Changes saved.',
    deleted: 'Integration deleted.',
    gateway_connected: 'Mercado Pago connected. New payments go through your account.',
    link_created: 'Link created. Share its address or its QR code.',
    link_canceled: 'Link canceled.',
    catalog_created: 'Created.',
  },
  recovered: (n) =>
    plural('en', n, {
      one: `${n} delivery will be sent again.`,
      other: `${n} deliveries will be sent again.`,
    }),
  errorTitle: (status) => `Error ${status}`,
  forbidden: 'This action is not allowed.',
  readOnly: 'Read-only session: nothing can be changed.',
};

export const DASHBOARD_CATALOGUE: Catalogue<DashboardMessages> = { 'pt-BR': ptBR, en };
