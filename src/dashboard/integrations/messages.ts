/** The integrations pages' words (the list, the create and settings forms, the test send, an integration's page), in each language the dashboard speaks (joined into `../messages.ts`). */
import type { Language } from '../../ui/language.js';
import { plural } from '../../ui/plural.js';

export interface IntegrationsMessages {
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
}

const ptBR: IntegrationsMessages = {
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
};

const en: IntegrationsMessages = {
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
};

export const INTEGRATIONS_WORDS: Record<Language, IntegrationsMessages> = { 'pt-BR': ptBR, en };
