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
import { ORDERS_CSV_WORDS, type OrdersCsvMessages } from './orders/messages.js';

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

export interface DashboardMessages extends LanguageMessages {
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
    create: string;
  };

  /** The company's connection to Mercado Pago, on the integrations page. */
  gateway: {
    heading: string;
    none: string;
    connect: string;
    pending: string;
    continue: string;
    reconnectNeeded: string;
    reconnect: string;
    connected: (account: string) => string;
    since: string;
    other: string;
  };

  /** The create form, and the same fields on an integration's settings form. */
  form: {
    title: string;
    intro: string;
    type: string;
    types: Record<'webhook' | 'automation_webhook' | 'notification_topic' | 'database_webhook', string>;
    url: string;
    urlHint: string;
    events: string;
    eventsHint: string;
    products: string;
    allProducts: string;
    productsHint: string;
    noProducts: string;
    rateLimit: string;
    rateLimitHint: string;
    submit: string;
    problems: string;
    settings: string;
    saveSettings: string;
    none: string;
  };

  testSend: {
    title: string;
    hint: string;
    event: string;
    submit: string;
    ok: (type: string, status: number | null, ms: number) => string;
    failed: (type: string, status: number | null, ms: number) => string;
  };

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
    webhookFilter: string;
    webhookFilterHint: string;
    noFilter: string;
    saveFilter: string;
    headers: string;
    headersHint: string;
    noHeaders: string;
    saveHeaders: string;
    deliveries: string;
    filter: string;
    anyStatus: string;
    anyEvent: string;
    status: string;
    eventType: string;
    from: string;
    to: string;
    timeHint: string;
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
    rate: (percent, attempts) =>
      plural('pt-BR', attempts, {
        one: `${percent}% de ${attempts} tentativa`,
        other: `${percent}% de ${attempts} tentativas`,
      }),
    never: 'Nunca',
    open: (id) => `Integração ${id}`,
    create: 'Nova integração',
  },
  gateway: {
    heading: 'Pagamentos',
    none: 'Conecte sua conta do Mercado Pago para receber Pix, boleto e cartão direto nela.',
    connect: 'Conectar Mercado Pago',
    pending: 'A conexão com o Mercado Pago espera sua autorização na página do Mercado Pago.',
    continue: 'Continuar no Mercado Pago',
    reconnectNeeded:
      'O Mercado Pago não aceita mais a conexão. Até você reconectar, os novos pagamentos usam o gateway padrão desta instalação.',
    reconnect: 'Reconectar Mercado Pago',
    connected: (account) => `Mercado Pago conectado: conta ${account}.`,
    since: 'Conectado em',
    other: 'Os pagamentos passam pelo gateway de testes. Conecte o Mercado Pago para receber de verdade.',
  },
  form: {
    title: 'Nova integração',
    intro: 'Um receptor de webhooks: para onde enviar, quais eventos, de quais produtos e em que ritmo.',
    type: 'Tipo',
    types: {
      webhook: 'Webhook',
      automation_webhook: 'Webhook de automação',
      notification_topic: 'Tópico de notificação',
      database_webhook: 'Webhook de banco de dados',
    },
    url: 'URL do receptor',
    urlHint: 'Endereço https completo, de um servidor público; sem usuário e senha.',
    events: 'Eventos',
    eventsHint: 'Nenhum marcado: todos os eventos.',
    products: 'Produtos',
    allProducts: 'Todos os produtos, inclusive os criados depois',
    productsHint: 'Ou só os produtos marcados abaixo.',
    noProducts: 'A empresa ainda não tem produtos.',
    rateLimit: 'Limite por segundo',
    rateLimitHint: 'Máximo de envios iniciados por segundo, de 1 a 1000; vazio para sem limite.',
    submit: 'Criar integração',
    problems: 'Corrija os campos indicados:',
    settings: 'Eventos, produtos e limite',
    saveSettings: 'Salvar eventos, produtos e limite',
    none: 'Sem limite',
  },
  testSend: {
    title: 'Enviar um evento de teste',
    hint: 'Um exemplo assinado, marcado como teste, enviado agora só para esta integração; não é reenviado.',
    event: 'Evento de exemplo',
    submit: 'Enviar teste',
    ok: (type, status, ms) =>
      `Teste ${type} entregue: o receptor respondeu HTTP ${status ?? '?'} em ${ms} ms.`,
    failed: (type, status, ms) =>
      status === null
        ? `Teste ${type} não entregue: sem resposta do receptor (${ms} ms).`
        : `Teste ${type} não entregue: o receptor respondeu HTTP ${status} em ${ms} ms.`,
  },
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
    webhookFilter: 'Filtro de eventos',
    webhookFilterHint:
      'Uma linha por condição: um caminho do corpo do evento, =, e um valor ou vários separados por vírgula (qualquer um). Todas as linhas precisam valer. Exemplo: data.order.payment_method = pix, boleto. Vazio: todos os eventos assinados.',
    noFilter: 'Nenhum: todos os eventos assinados',
    saveFilter: 'Salvar condições',
    headers: 'Cabeçalhos enviados',
    headersHint:
      'Uma linha por cabeçalho: Nome: valor (até 10). Os valores ficam cifrados e aparecem como ••••; deixe •••• para manter um valor. Vazio: nenhum.',
    noHeaders: 'Nenhum',
    saveHeaders: 'Salvar cabeçalhos',
    deliveries: 'Entregas',
    filter: 'Filtrar entregas',
    anyStatus: 'Qualquer estado',
    anyEvent: 'Qualquer evento',
    status: 'Estado',
    eventType: 'Evento',
    from: 'De (horário de Brasília)',
    to: 'Até (horário de Brasília)',
    timeHint: 'Entregas criadas neste intervalo; vazio para sem limite.',
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
    rate: (percent, attempts) =>
      plural('en', attempts, {
        one: `${percent}% of ${attempts} attempt`,
        other: `${percent}% of ${attempts} attempts`,
      }),
    never: 'Never',
    open: (id) => `Integration ${id}`,
    create: 'New integration',
  },
  gateway: {
    heading: 'Payments',
    none: 'Connect your Mercado Pago account to receive Pix, boleto and card payments straight into it.',
    connect: 'Connect Mercado Pago',
    pending: 'The connection to Mercado Pago waits for your authorization on Mercado Pago’s page.',
    continue: 'Continue on Mercado Pago',
    reconnectNeeded:
      'Mercado Pago no longer accepts the connection. Until you reconnect, new payments use this installation’s default gateway.',
    reconnect: 'Reconnect Mercado Pago',
    connected: (account) => `Mercado Pago connected: account ${account}.`,
    since: 'Connected on',
    other: 'Payments go through the test gateway. Connect Mercado Pago to take real payments.',
  },
  form: {
    title: 'New integration',
    intro: 'A webhook receiver: where to send, which events, of which products and how fast.',
    type: 'Type',
    types: {
      webhook: 'Webhook',
      automation_webhook: 'Automation webhook',
      notification_topic: 'Notification topic',
      database_webhook: 'Database webhook',
    },
    url: 'Receiver URL',
    urlHint: 'A full https address of a public server; no user name or password.',
    events: 'Events',
    eventsHint: 'None ticked: every event.',
    products: 'Products',
    allProducts: 'Every product, including those created later',
    productsHint: 'Or only the products ticked below.',
    noProducts: 'The company has no products yet.',
    rateLimit: 'Rate limit per second',
    rateLimitHint: 'Most sends started per second, 1 to 1000; empty for no limit.',
    submit: 'Create integration',
    problems: 'Please fix these fields:',
    settings: 'Events, products and rate limit',
    saveSettings: 'Save events, products and rate limit',
    none: 'No limit',
  },
  testSend: {
    title: 'Send a test event',
    hint: 'A signed example, marked as a test, sent now to this integration only; it is not retried.',
    event: 'Example event',
    submit: 'Send test',
    ok: (type, status, ms) =>
      `Test ${type} delivered: the receiver answered HTTP ${status ?? '?'} in ${ms} ms.`,
    failed: (type, status, ms) =>
      status === null
        ? `Test ${type} not delivered: no answer from the receiver (${ms} ms).`
        : `Test ${type} not delivered: the receiver answered HTTP ${status} in ${ms} ms.`,
  },
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
    webhookFilter: 'Event filter',
    webhookFilterHint:
      'One condition a line: a path of the event body, =, and one value or several separated by commas (any of them). Every line must hold. Example: data.order.payment_method = pix, boleto. Empty: every subscribed event.',
    noFilter: 'None: every subscribed event',
    saveFilter: 'Save conditions',
    headers: 'Headers sent',
    headersHint:
      'One header a line: Name: value (10 at most). Values are stored encrypted and shown as ••••; leave •••• to keep a value. Empty: none.',
    noHeaders: 'None',
    saveHeaders: 'Save headers',
    deliveries: 'Deliveries',
    filter: 'Filter deliveries',
    anyStatus: 'Any status',
    anyEvent: 'Any event',
    status: 'Status',
    eventType: 'Event',
    from: 'From (Brasília time)',
    to: 'To (Brasília time)',
    timeHint: 'Deliveries created in this span; empty for no bound.',
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
