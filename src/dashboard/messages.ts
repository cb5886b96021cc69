/**
 * Every word the dashboard shows, in each language it speaks (the buyer pages' languages). One typed
 * catalogue: a message missing in a language does not compile. Plain text; the `html` tag escapes it.
 */
import type { Language } from '../checkout/messages.js';
import type { DeliveryStatus } from '../shared/enums/delivery-statuses.js';
import type { BillingCycle } from '../shared/enums/billing-cycles.js';
import type { OrderStatus } from '../shared/enums/order-statuses.js';
import type { SubscriptionStatus } from '../shared/enums/subscription-statuses.js';

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
  | 'revoked';

export interface DashboardMessages {
  locale: string;
  languageName: string;
  languageSwitch: string;
  product: string;
  navigation: string;
  signOut: string;
  signedInAs: (role: string) => string;
  roles: Record<'owner' | 'member' | 'read_only', string>;

  signIn: {
    title: string;
    intro: string;
    credential: string;
    hint: string;
    submit: string;
    refused: string;
  };

  integrations: {
    title: string;
    none: string;
    caption: string;
    name: string;
    state: string;
    failures: string;
    lastFailure: string;
    successRate: string;
    active: string;
    inactive: string;
    autoDisabled: string;
    noAttempts: string;
    rate: (percent: number, attempts: number) => string;
    never: string;
    open: (id: number) => string;
  };

  integration: {
    title: (id: number) => string;
    back: string;
    facts: string;
    url: string;
    events: string;
    allEvents: string;
    disabledReason: string;
    actions: string;
    reenable: string;
    reenableHint: string;
    editUrl: string;
    saveUrl: string;
    recover: string;
    recoverHint: string;
    since: string;
    sinceHint: string;
    recoverSubmit: string;
    rotate: string;
    rotateHint: string;
    rotateSubmit: string;
    newSecret: string;
    newSecretHint: string;
    deliveries: string;
    filter: string;
    anyStatus: string;
    anyEvent: string;
    status: string;
    eventType: string;
    apply: string;
    noDeliveries: string;
    delivery: string;
    attempts: string;
    lastResult: string;
    created: string;
    more: string;
  };

  delivery: {
    title: (id: number) => string;
    back: string;
    event: string;
    nextAttempt: string;
    resend: string;
    attempt: (n: number) => string;
    requestedAt: string;
    responseStatus: string;
    noResponse: string;
    duration: (ms: number) => string;
    error: string;
    request: string;
    headers: string;
    body: string;
    response: string;
    emptyBody: string;
    notKept: string;
    noAttempts: string;
  };

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

  keys: {
    title: string;
    none: string;
    name: string;
    kind: string;
    kinds: Record<'payments' | 'read_only', string>;
    mode: string;
    key: string;
    lastUsed: string;
    state: string;
    active: string;
    revoked: string;
    never: string;
    ownerOnly: string;
    create: string;
    createSubmit: string;
    newKey: string;
    newKeyHint: string;
    revoke: string;
    revokeLabel: (name: string) => string;
  };

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
  languageName: 'Português',
  languageSwitch: 'Idioma',
  product: 'Painel',
  navigation: 'Painel',
  signOut: 'Sair',
  signedInAs: (role) => `Conectado como ${role}`,
  roles: { owner: 'proprietário', member: 'membro', read_only: 'somente leitura' },
  signIn: {
    title: 'Entrar no painel',
    intro: 'Use um token do painel (pt_…) ou uma chave somente leitura da sua empresa.',
    credential: 'Token do painel ou chave somente leitura',
    hint: 'O token não fica guardado no navegador: ele é trocado por uma sessão que expira.',
    submit: 'Entrar',
    refused: 'Token ou chave inválido, revogado ou sem acesso ao painel.',
  },
  integrations: {
    title: 'Integrações',
    none: 'Nenhuma integração ainda.',
    caption: 'Integrações e a saúde das entregas',
    name: 'Integração',
    state: 'Estado',
    failures: 'Falhas seguidas',
    lastFailure: 'Última falha',
    successRate: 'Sucesso em 24 h',
    active: 'Ativa',
    inactive: 'Inativa',
    autoDisabled: 'Desativada automaticamente',
    noAttempts: 'Nenhuma tentativa em 24 h',
    rate: (percent, attempts) => `${percent}% de ${attempts} tentativa${attempts === 1 ? '' : 's'}`,
    never: 'Nunca',
    open: (id) => `Integração ${id}`,
  },
  integration: {
    title: (id) => `Integração ${id}`,
    back: 'Todas as integrações',
    facts: 'Dados',
    url: 'URL',
    events: 'Eventos',
    allEvents: 'Todos',
    disabledReason: 'Motivo da desativação',
    actions: 'Ações',
    reenable: 'Reativar',
    reenableHint: 'Volta a entregar e zera a contagem de falhas.',
    editUrl: 'Nova URL',
    saveUrl: 'Salvar URL',
    recover: 'Reenviar falhas',
    recoverHint: 'Envia de novo cada entrega que falhou ou foi pulada desde este momento (até 14 dias).',
    since: 'Desde (horário de Brasília)',
    sinceHint: 'Dia e hora, por exemplo 25/11/2026 09:00.',
    recoverSubmit: 'Reenviar desde este momento',
    rotate: 'Trocar o segredo',
    rotateHint: 'O segredo atual continua assinando junto com o novo por um dia.',
    rotateSubmit: 'Gerar novo segredo',
    newSecret: 'Novo segredo de assinatura',
    newSecretHint: 'Copie agora: ele não será mostrado de novo.',
    deliveries: 'Entregas',
    filter: 'Filtrar entregas',
    anyStatus: 'Qualquer estado',
    anyEvent: 'Qualquer evento',
    status: 'Estado',
    eventType: 'Evento',
    apply: 'Filtrar',
    noDeliveries: 'Nenhuma entrega com esses filtros.',
    delivery: 'Entrega',
    attempts: 'Tentativas',
    lastResult: 'Último resultado',
    created: 'Criada em',
    more: 'Mais antigas',
  },
  delivery: {
    title: (id) => `Entrega ${id}`,
    back: 'Voltar à integração',
    event: 'Evento',
    nextAttempt: 'Próxima tentativa',
    resend: 'Reenviar esta entrega',
    attempt: (n) => `Tentativa ${n}`,
    requestedAt: 'Enviada em',
    responseStatus: 'Resposta',
    noResponse: 'Sem resposta',
    duration: (ms) => `${ms} ms`,
    error: 'Erro',
    request: 'Requisição',
    headers: 'Cabeçalhos',
    body: 'Corpo',
    response: 'Corpo da resposta',
    emptyBody: '(vazio)',
    notKept: 'Não guardada (tentativa antiga).',
    noAttempts: 'Nenhuma tentativa ainda.',
  },
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
  keys: {
    title: 'Chaves de API',
    none: 'Nenhuma chave ainda.',
    name: 'Nome',
    kind: 'Tipo',
    kinds: { payments: 'Pagamentos', read_only: 'Somente leitura' },
    mode: 'Modo',
    key: 'Chave',
    lastUsed: 'Último uso',
    state: 'Estado',
    active: 'Ativa',
    revoked: 'Revogada',
    never: 'Nunca',
    ownerOnly: 'Só o proprietário da empresa cria ou revoga chaves.',
    create: 'Nova chave',
    createSubmit: 'Criar chave',
    newKey: 'Nova chave',
    newKeyHint: 'Copie agora: ela não será mostrada de novo.',
    revoke: 'Revogar',
    revokeLabel: (name) => `Revogar a chave ${name}`,
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
  },
  recovered: (n) => `${n} entrega${n === 1 ? '' : 's'} ser${n === 1 ? 'á enviada' : 'ão enviadas'} de novo.`,
  errorTitle: (status) => `Erro ${status}`,
  forbidden: 'Esta ação não é permitida.',
  readOnly: 'Sessão somente leitura: nada pode ser alterado.',
};

const en: DashboardMessages = {
  locale: 'en',
  languageName: 'English',
  languageSwitch: 'Language',
  product: 'Dashboard',
  navigation: 'Dashboard',
  signOut: 'Sign out',
  signedInAs: (role) => `Signed in as ${role}`,
  roles: { owner: 'owner', member: 'member', read_only: 'read-only' },
  signIn: {
    title: 'Sign in to the dashboard',
    intro: "Use one of your company's panel tokens (pt_…) or a read-only key.",
    credential: 'Panel token or read-only key',
    hint: 'The token is not kept in the browser: it is exchanged for a session that expires.',
    submit: 'Sign in',
    refused: 'Invalid or revoked token or key, or one without panel access.',
  },
  integrations: {
    title: 'Integrations',
    none: 'No integrations yet.',
    caption: 'Integrations and the health of their deliveries',
    name: 'Integration',
    state: 'State',
    failures: 'Consecutive failures',
    lastFailure: 'Last failure',
    successRate: 'Success in 24 h',
    active: 'Active',
    inactive: 'Inactive',
    autoDisabled: 'Auto-disabled',
    noAttempts: 'No attempts in 24 h',
    rate: (percent, attempts) => `${percent}% of ${attempts} attempt${attempts === 1 ? '' : 's'}`,
    never: 'Never',
    open: (id) => `Integration ${id}`,
  },
  integration: {
    title: (id) => `Integration ${id}`,
    back: 'All integrations',
    facts: 'Details',
    url: 'URL',
    events: 'Events',
    allEvents: 'All',
    disabledReason: 'Why it was disabled',
    actions: 'Actions',
    reenable: 'Re-enable',
    reenableHint: 'Delivers again and resets the failure count.',
    editUrl: 'New URL',
    saveUrl: 'Save URL',
    recover: 'Recover failed deliveries',
    recoverHint: 'Sends again every delivery that failed or was skipped since this time (up to 14 days).',
    since: 'Since (Brasília time)',
    sinceHint: 'Day and time, for example 11/25/2026 09:00 AM.',
    recoverSubmit: 'Recover since this time',
    rotate: 'Rotate the secret',
    rotateHint: 'The current secret keeps signing beside the new one for a day.',
    rotateSubmit: 'Generate a new secret',
    newSecret: 'New signing secret',
    newSecretHint: 'Copy it now: it will not be shown again.',
    deliveries: 'Deliveries',
    filter: 'Filter deliveries',
    anyStatus: 'Any status',
    anyEvent: 'Any event',
    status: 'Status',
    eventType: 'Event',
    apply: 'Filter',
    noDeliveries: 'No deliveries match these filters.',
    delivery: 'Delivery',
    attempts: 'Attempts',
    lastResult: 'Last result',
    created: 'Created',
    more: 'Older',
  },
  delivery: {
    title: (id) => `Delivery ${id}`,
    back: 'Back to the integration',
    event: 'Event',
    nextAttempt: 'Next attempt',
    resend: 'Resend this delivery',
    attempt: (n) => `Attempt ${n}`,
    requestedAt: 'Sent',
    responseStatus: 'Response',
    noResponse: 'No response',
    duration: (ms) => `${ms} ms`,
    error: 'Error',
    request: 'Request',
    headers: 'Headers',
    body: 'Body',
    response: 'Response body',
    emptyBody: '(empty)',
    notKept: 'Not kept (an older attempt).',
    noAttempts: 'No attempts yet.',
  },
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
  keys: {
    title: 'API keys',
    none: 'No keys yet.',
    name: 'Name',
    kind: 'Kind',
    kinds: { payments: 'Payments', read_only: 'Read-only' },
    mode: 'Mode',
    key: 'Key',
    lastUsed: 'Last used',
    state: 'State',
    active: 'Active',
    revoked: 'Revoked',
    never: 'Never',
    ownerOnly: 'Only the company owner creates or revokes keys.',
    create: 'New key',
    createSubmit: 'Create key',
    newKey: 'New key',
    newKeyHint: 'Copy it now: it will not be shown again.',
    revoke: 'Revoke',
    revokeLabel: (name) => `Revoke key ${name}`,
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
  },
  recovered: (n) => `${n} deliver${n === 1 ? 'y' : 'ies'} will be sent again.`,
  errorTitle: (status) => `Error ${status}`,
  forbidden: 'This action is not allowed.',
  readOnly: 'Read-only session: nothing can be changed.',
};

export const DASHBOARD_CATALOGUE: Record<Language, DashboardMessages> = { 'pt-BR': ptBR, en };
