/** Every word the buyer pages show, in each language they speak (see `src/ui/messages.ts`). */
import type { BillingCycle } from '../shared/enums/billing-cycles.js';
import type { LinkStatus } from '../shared/enums/link-statuses.js';
import type { PaymentMethod } from '../shared/enums/payment-methods.js';
import type { DeclineReason } from '../gateways/port.js';
import type { Catalogue, CopyMessages, LanguageMessages } from '../ui/messages.js';

/** Why a link's page shows a notice instead of its form or buttons. */
export type NoticeKey =
  | 'link_canceled'
  | 'link_expired'
  | 'link_paid'
  | 'offer_unavailable'
  | 'plan_unavailable'
  | `test_link_${Exclude<LinkStatus, 'active'>}`;

/** What an error page of the buyer pages says, beyond its status. */
export type ErrorKey =
  | 'link_not_found'
  | 'offer_not_found'
  | 'page_not_found'
  | 'link_of_other_item'
  | 'link_not_payable'
  | 'payment_in_progress'
  | 'unknown_outcome'
  | 'order_not_found'
  | 'method_not_offered'
  | 'installments_not_offered'
  | 'method_unavailable'
  | 'gateway_unavailable';

export type SentenceKey = NoticeKey | ErrorKey;

/** What is wrong with one field of the pay form, in the buyer's terms. */
export const FIELD_PROBLEMS = [
  'name_required',
  'name_too_long',
  'name_invalid',
  'email_required',
  'email_invalid',
  'phone_invalid',
  'document_shape',
  'cpf_invalid',
  'cnpj_invalid',
  'payment_method_invalid',
  'installments_invalid',
  'unexpected_field',
  'document_required',
  'document_refused',
  'zip_code_required',
  'zip_code_invalid',
  'street_name_required',
  'street_number_required',
  'neighborhood_required',
  'city_required',
  'address_field_invalid',
  'state_invalid',
  'address_refused',
  'card_incomplete',
  'card_refused',
] as const;
export type FieldProblem = (typeof FIELD_PROBLEMS)[number];

/** Error pages by HTTP status; any other status reads as `other`. */
export type StatusKey = 400 | 404 | 405 | 408 | 409 | 413 | 415 | 429 | 500 | 503 | 'other';

export interface Messages extends LanguageMessages {
  cycles: Record<BillingCycle, string>;
  paymentMethods: Record<PaymentMethod, string>;
  linkStatuses: Record<LinkStatus, string>;
  sentences: Record<SentenceKey, string>;
  problems: Record<FieldProblem, string>;
  statusTitles: Record<StatusKey, string>;
  statusMessages: Record<StatusKey, string>;
  internalErrorReference: (requestId: string) => string;

  price: {
    listPrice: string;
    discount: (couponCode: string) => string;
    total: string;
    firstPayment: string;
    planAfterCoupon: (price: string, cycle: string) => string;
  };

  checkout: {
    titleSuffix: string;
    detailsHeading: string;
    requiredNote: string;
    requiredMark: string;
    name: string;
    email: string;
    phone: string;
    phoneHint: string;
    document: string;
    documentHint: string;
    paymentMethod: string;
    pay: (amount: string) => string;
    errorSummary: string;
    privacyNote: string;
    installments: string;
    installmentsHint: string;
    /** One option of the instalments list: `n` payments of `each` (the first `first` when uneven). */
    installmentOption: (n: number, each: string, first: string) => string;
    /** The boleto payer's address, asked by a company whose gateway needs it. */
    documentHintBoleto: string;
    addressHeading: string;
    addressHint: string;
    zipCode: string;
    zipCodeHint: string;
    streetName: string;
    streetNumber: string;
    neighborhood: string;
    city: string;
    state: string;
    stateChoose: string;
    /** The card, in the PSP's secure fields. */
    cardHeading: string;
    cardHint: (psp: string) => string;
    cardNumber: string;
    cardExpiration: string;
    cardSecurityCode: string;
    cardholderName: string;
    cardNoScript: string;
    cardUnreadable: string;
  };

  /** The page of a pay step the gateway did not answer: nothing was charged, post it again. */
  retry: {
    title: string;
    heading: string;
    tryAgain: string;
    other: string;
  };

  thanks: {
    paidTitle: string;
    paidHeading: string;
    pendingTitle: string;
    pendingHeading: string;
    paidLead: string;
    pendingLead: string;
    orderSummary: string;
    item: string;
    amount: string;
    paymentMethod: string;
    orderCode: string;
    status: string;
    statusPaid: string;
    statusPending: string;
    nextHeading: string;
    paidEmail: (product: string) => string;
    paidSubscription: (price: string, cycle: string) => string;
    pendingByMethod: Record<PaymentMethod, string>;
    pendingEmail: string;
    noNeedToPayAgain: string;
    keepCode: string;
    spamHint: string;
    /** The payment method line of the summary for a card in `n` instalments of `each`. */
    cardInstallments: (n: number, each: string) => string;
  };

  /** The order page after the pay step, and the printable boleto. */
  order: {
    brasiliaTime: string;
    autoUpdate: string;
    copy: CopyMessages & { pix: string; boleto: string };
    pixTitle: string;
    pixHeading: string;
    pixLead: (until: string) => string;
    pixScanHeading: string;
    pixScanHint: string;
    pixQrAlt: (amount: string) => string;
    pixCopyLabel: string;
    pixCopyHint: string;
    pixExpires: string;
    pixExpiredTitle: string;
    pixExpiredLead: string;
    boletoTitle: string;
    boletoHeading: (due: string) => string;
    boletoLead: string;
    boletoLineLabel: string;
    boletoBarcodeAlt: string;
    boletoDue: string;
    boletoPrint: string;
    boletoClearing: string;
    failedTitle: string;
    failedLead: string;
    abandonedTitle: string;
    abandonedLead: string;
    refundedTitle: string;
    refundedLead: string;
    chargedBackTitle: string;
    chargedBackLead: string;
    tryAgain: string;
    statuses: { failed: string; abandoned: string; refunded: string; charged_back: string };
    /** Why the card was declined, when the gateway said. */
    declined: Record<DeclineReason, string>;
  };

  boletoPage: {
    title: (item: string) => string;
    heading: string;
    beneficiary: string;
    howToPay: string;
    print: string;
    back: string;
    paid: string;
    closed: string;
  };

  simulation: {
    title: (item: string) => string;
    testBanner: string;
    linkLine: string;
    statusLabel: string;
    actionsHeading: string;
    outcomes: { paid: string; failed: string; expired: string };
    resultTitle: string;
    resultBanner: string;
    eventSent: string;
    linkNowIs: string;
    deliveriesCaption: string;
    destination: string;
    success: string;
    httpStatus: string;
    yes: string;
    no: string;
    noResponse: string;
    noWebhooks: string;
    back: string;
  };
}

const ptBR: Messages = {
  locale: 'pt-BR',
  languageName: 'Português (Brasil)',
  languageSwitch: 'Idioma',

  cycles: {
    weekly: 'por semana',
    monthly: 'por mês',
    quarterly: 'a cada 3 meses',
    semiannual: 'a cada 6 meses',
    yearly: 'por ano',
  },
  paymentMethods: { credit_card: 'Cartão de crédito', pix: 'Pix', boleto: 'Boleto bancário' },
  linkStatuses: { active: 'ativo', paid: 'pago', expired: 'expirado', canceled: 'cancelado' },
  sentences: {
    link_canceled: 'Este link de pagamento foi cancelado pelo vendedor. Peça um novo link a ele.',
    link_expired: 'Este link de pagamento expirou. Peça um novo link ao vendedor.',
    link_paid: 'Este link de pagamento já foi pago.',
    offer_unavailable: 'Esta oferta não está mais disponível.',
    plan_unavailable: 'Este plano não está mais disponível.',
    test_link_paid: 'Este link de teste já está pago: só um link ativo pode ser simulado.',
    test_link_expired: 'Este link de teste expirou: só um link ativo pode ser simulado.',
    test_link_canceled: 'Este link de teste foi cancelado: só um link ativo pode ser simulado.',
    link_not_found: 'Este link de pagamento não existe. Confira o endereço que você recebeu.',
    offer_not_found: 'Esta oferta não está disponível. Confira o endereço que você recebeu.',
    page_not_found: 'Esta página não existe. Confira o endereço que você recebeu.',
    link_of_other_item:
      'Este link de pagamento é de outra oferta ou plano. Abra o endereço que você recebeu.',
    link_not_payable: 'Este link de pagamento não pode mais ser pago.',
    payment_in_progress:
      'Já existe um pagamento deste link em andamento. Aguarde a confirmação antes de tentar de novo.',
    unknown_outcome: 'Escolha um dos três resultados da página de teste.',
    order_not_found: 'Este pedido não existe. Confira o endereço que você recebeu.',
    method_not_offered: 'Esta forma de pagamento não está disponível para este link. Volte e escolha outra.',
    installments_not_offered: 'Este número de parcelas não está disponível. Volte e escolha outro.',
    method_unavailable: 'Esta forma de pagamento não está disponível para este valor. Volte e escolha outra.',
    gateway_unavailable:
      'Não conseguimos iniciar o pagamento agora: nada foi cobrado. Tente de novo em alguns instantes.',
  },
  problems: {
    name_required: 'Informe seu nome.',
    name_too_long: 'Use no máximo 200 caracteres.',
    name_invalid: 'O nome tem um caractere que não é aceito.',
    email_required: 'Informe seu e-mail.',
    email_invalid: 'Informe um e-mail válido, como nome@exemplo.com.br.',
    phone_invalid: 'Informe o celular com código do país e DDD, como +55 11 98765-4321.',
    document_shape: 'Informe um CPF (11 dígitos) ou um CNPJ (14 caracteres, com ou sem letras).',
    cpf_invalid: 'Este CPF não é válido. Confira os números.',
    cnpj_invalid: 'Este CNPJ não é válido. Confira os números e letras.',
    payment_method_invalid: 'Escolha cartão de crédito, Pix ou boleto.',
    installments_invalid: 'Escolha o número de parcelas da lista.',
    unexpected_field: 'O formulário chegou com dados inesperados. Recarregue a página e tente de novo.',
    document_required: 'Para pagar com boleto, informe seu CPF ou CNPJ.',
    document_refused: 'O processador de pagamentos não aceitou este CPF ou CNPJ. Confira os números.',
    zip_code_required: 'Para pagar com boleto, informe o CEP.',
    zip_code_invalid: 'Informe o CEP com 8 dígitos, como 01310-100.',
    street_name_required: 'Informe a rua.',
    street_number_required: 'Informe o número (ou S/N).',
    neighborhood_required: 'Informe o bairro.',
    city_required: 'Informe a cidade.',
    address_field_invalid: 'Este campo tem um caractere que não é aceito ou é longo demais.',
    state_invalid: 'Escolha o estado (UF) da lista.',
    address_refused:
      'O processador de pagamentos não aceitou este endereço. Confira o CEP e os demais campos.',
    card_incomplete:
      'Preencha os dados do cartão. Se eles não aparecem, ative o JavaScript ou escolha Pix ou boleto.',
    card_refused: 'O processador de pagamentos não aceitou os dados deste cartão. Confira e tente de novo.',
  },
  statusTitles: {
    400: 'Não foi possível continuar',
    404: 'Página não encontrada',
    405: 'Ação não permitida',
    408: 'Tempo esgotado',
    409: 'Pagamento não permitido',
    413: 'Dados demais',
    415: 'Formato não aceito',
    429: 'Muitas tentativas',
    500: 'Algo deu errado',
    503: 'Serviço indisponível no momento',
    other: 'Não foi possível continuar',
  },
  statusMessages: {
    400: 'Não conseguimos ler o que foi enviado. Volte e tente de novo.',
    404: 'Esta página não existe. Confira o endereço que você recebeu.',
    405: 'Esta página não aceita essa ação. Volte e use os botões da página.',
    408: 'O envio demorou demais. Tente de novo.',
    409: 'Este pagamento não é possível agora.',
    413: 'O formulário enviou dados demais. Volte e tente de novo.',
    415: 'O formulário chegou num formato que não aceitamos. Volte e tente de novo.',
    429: 'Foram muitas tentativas seguidas. Aguarde um minuto e tente de novo.',
    500: 'Tente de novo em instantes.',
    503: 'Estamos com uma instabilidade. Tente de novo em alguns segundos.',
    other: 'Volte e tente de novo.',
  },
  internalErrorReference: (requestId) =>
    `Se o problema continuar, informe o código ${requestId} ao vendedor.`,

  price: {
    listPrice: 'Preço',
    discount: (coupon) => `Desconto (cupom ${coupon})`,
    total: 'Total',
    firstPayment: 'Primeiro pagamento',
    planAfterCoupon: (price, cycle) =>
      `O desconto vale para o primeiro pagamento; depois, ${price} ${cycle}.`,
  },

  checkout: {
    titleSuffix: 'Pagamento',
    detailsHeading: 'Seus dados',
    requiredNote: 'Campos marcados com * são obrigatórios.',
    requiredMark: '(obrigatório)',
    name: 'Nome completo',
    email: 'E-mail',
    phone: 'Celular',
    phoneHint: 'Com código do país e DDD, por exemplo +55 11 98765-4321.',
    document: 'CPF ou CNPJ',
    documentHint:
      'Com ou sem pontuação, como 000.000.000-00 ou 00.000.000/0000-00 (um CNPJ novo tem letras).',
    paymentMethod: 'Forma de pagamento',
    pay: (amount) => `Pagar ${amount}`,
    errorSummary: 'Confira os campos abaixo:',
    privacyNote: 'Seus dados vão só para o vendedor, para confirmar a compra.',
    installments: 'Parcelas no cartão',
    installmentsHint: 'Só para pagamento com cartão de crédito, sem juros.',
    installmentOption: (n, each, first) =>
      n === 1
        ? `À vista: ${each}`
        : first === each
          ? `${n}x de ${each} sem juros`
          : `${n}x sem juros: 1x de ${first} e ${n - 1}x de ${each}`,
    documentHintBoleto: 'Obrigatório para boleto. Com ou sem pontuação (um CNPJ novo tem letras).',
    addressHeading: 'Endereço do pagador (boleto)',
    addressHint: 'Só para pagamento com boleto: o emissor do boleto exige o endereço de quem paga.',
    zipCode: 'CEP',
    zipCodeHint: '8 dígitos, como 01310-100.',
    streetName: 'Rua',
    streetNumber: 'Número',
    neighborhood: 'Bairro',
    city: 'Cidade',
    state: 'Estado (UF)',
    stateChoose: 'Escolha o estado',
    cardHeading: 'Dados do cartão',
    cardHint: (psp) => `Os dados do cartão vão direto para o ${psp}: não passam por este site.`,
    cardNumber: 'Número do cartão',
    cardExpiration: 'Validade',
    cardSecurityCode: 'Código de segurança',
    cardholderName: 'Nome impresso no cartão',
    cardNoScript: 'Para pagar com cartão, ative o JavaScript. Sem ele, você pode pagar com Pix ou boleto.',
    cardUnreadable: 'Não foi possível ler os dados do cartão. Confira o número, a validade e o código.',
  },

  thanks: {
    paidTitle: 'Pagamento confirmado',
    paidHeading: 'Obrigado pela sua compra!',
    pendingTitle: 'Pagamento em processamento',
    pendingHeading: 'Recebemos seu pedido',
    paidLead: 'Seu pagamento foi aprovado e o pedido está confirmado.',
    pendingLead: 'Seu pagamento está sendo confirmado. Veja abaixo o que fazer enquanto isso.',
    orderSummary: 'Resumo do pedido',
    item: 'Produto',
    amount: 'Valor',
    paymentMethod: 'Forma de pagamento',
    orderCode: 'Código do pedido',
    status: 'Situação',
    statusPaid: 'Pago',
    statusPending: 'Aguardando confirmação do pagamento',
    nextHeading: 'O que acontece agora',
    paidEmail: (product) =>
      `O vendedor vai enviar a confirmação da compra para o e-mail que você informou, com as instruções para receber ${product}.`,
    paidSubscription: (price, cycle) =>
      `Sua assinatura está ativa: as próximas cobranças são de ${price} ${cycle}.`,
    pendingByMethod: {
      credit_card:
        'Estamos aguardando a confirmação da operadora do cartão; isso costuma levar poucos minutos.',
      pix: 'Se ainda não pagou, conclua o Pix no app do seu banco. Pagamentos por Pix costumam ser confirmados em poucos minutos.',
      boleto:
        'Se ainda não pagou, pague o boleto até o vencimento. O banco confirma o pagamento em até 3 dias úteis.',
    },
    pendingEmail:
      'Quando o pagamento for confirmado, o vendedor vai enviar a confirmação para o e-mail que você informou.',
    noNeedToPayAgain: 'Não é preciso pagar de novo nem enviar este formulário outra vez.',
    keepCode: 'Guarde o código do pedido: é com ele que o vendedor encontra sua compra.',
    spamHint: 'Se o e-mail não chegar, confira a caixa de spam e fale com o vendedor.',
    cardInstallments: (n, each) =>
      n === 1 ? 'Cartão de crédito, à vista' : `Cartão de crédito, ${n}x de ${each}`,
  },

  order: {
    brasiliaTime: 'horário de Brasília',
    autoUpdate:
      'Esta página mostra a confirmação assim que o pagamento for confirmado. Se ela não mudar, recarregue a página.',
    copy: {
      pix: 'Copiar código Pix',
      boleto: 'Copiar linha digitável',
      done: 'Copiado! Cole no app do seu banco.',
      failed: 'Não foi possível copiar. Selecione o código e copie.',
    },
    pixTitle: 'Pague com Pix',
    pixHeading: 'Pague com Pix para concluir a compra',
    pixLead: (until) => `Seu pedido está reservado. Pague até ${until}.`,
    pixScanHeading: 'Escaneie o QR code',
    pixScanHint: 'No app do seu banco, escolha pagar com Pix e aponte a câmera para o QR code.',
    pixQrAlt: (amount) => `QR code do Pix de ${amount}`,
    pixCopyLabel: 'Ou use o Pix copia e cola',
    pixCopyHint: 'Copie o código e cole no app do seu banco, na opção Pix copia e cola.',
    pixExpires: 'Código válido até',
    pixExpiredTitle: 'O código Pix expirou',
    pixExpiredLead:
      'O prazo para pagar este Pix terminou. Se você não pagou, faça um novo pedido; se pagou, aguarde a confirmação.',
    boletoTitle: 'Pague o boleto',
    boletoHeading: (due) => `Pague o boleto até ${due}`,
    boletoLead: 'Pague no app do seu banco, no internet banking ou em uma lotérica.',
    boletoLineLabel: 'Linha digitável',
    boletoBarcodeAlt: 'Código de barras do boleto',
    boletoDue: 'Vencimento',
    boletoPrint: 'Abrir o boleto para imprimir',
    boletoClearing: 'O banco confirma o pagamento de um boleto em até 3 dias úteis.',
    failedTitle: 'Pagamento não aprovado',
    failedLead: 'O pagamento deste pedido não foi aprovado e nada foi cobrado. Você pode tentar de novo.',
    abandonedTitle: 'Pedido expirado',
    abandonedLead:
      'Este pedido não foi pago a tempo. Se você já pagou, o vendedor vai confirmar quando o banco avisar; se não, faça um novo pedido.',
    refundedTitle: 'Pedido reembolsado',
    refundedLead: 'O valor deste pedido foi devolvido.',
    chargedBackTitle: 'Pagamento contestado',
    chargedBackLead:
      'O pagamento deste pedido foi contestado junto ao banco e devolvido. Fale com o vendedor se tiver dúvidas.',
    tryAgain: 'Fazer um novo pedido',
    declined: {
      insufficient_funds: 'O cartão foi recusado por saldo ou limite insuficiente.',
      security_code: 'O cartão foi recusado: o código de segurança não confere.',
      call_issuer:
        'O banco do cartão pediu que você autorize este pagamento: ligue para ele ou use outro cartão.',
      other: 'O banco do cartão recusou este pagamento.',
    },
    statuses: {
      failed: 'Não aprovado',
      abandoned: 'Expirado',
      refunded: 'Reembolsado',
      charged_back: 'Contestado',
    },
  },

  retry: {
    title: 'Pagamento não iniciado',
    heading: 'Não conseguimos iniciar o pagamento',
    tryAgain: 'Tentar de novo',
    other: 'Voltar e escolher outra forma de pagamento',
  },

  boletoPage: {
    title: (item) => `Boleto: ${item}`,
    heading: 'Boleto bancário',
    beneficiary: 'Beneficiário',
    howToPay: 'Pague em qualquer banco, app de banco ou lotérica até o vencimento.',
    print: 'Imprimir',
    back: 'Voltar ao pedido',
    paid: 'Este boleto já foi pago.',
    closed: 'Este boleto não pode mais ser pago.',
  },

  simulation: {
    title: (item) => `Pagamento de teste: ${item}`,
    testBanner:
      'Modo de teste: nada é cobrado. Os botões enviam os mesmos eventos de teste que a API de simulação.',
    linkLine: 'Link',
    statusLabel: 'Situação',
    actionsHeading: 'Simular um resultado',
    outcomes: { paid: 'Pagamento aprovado', failed: 'Pagamento recusado', expired: 'Pagamento expirado' },
    resultTitle: 'Pagamento de teste enviado',
    resultBanner: 'Modo de teste: nada foi cobrado.',
    eventSent: 'Evento enviado',
    linkNowIs: 'Situação do link agora',
    deliveriesCaption: 'Entregas aos webhooks (primeira tentativa)',
    destination: 'Destino',
    success: 'Sucesso',
    httpStatus: 'Status HTTP',
    yes: 'sim',
    no: 'não',
    noResponse: 'sem resposta',
    noWebhooks: 'Nenhum webhook assina este evento.',
    back: 'Voltar à página de teste',
  },
};

const en: Messages = {
  locale: 'en',
  languageName: 'English',
  languageSwitch: 'Language',

  cycles: {
    weekly: 'per week',
    monthly: 'per month',
    quarterly: 'every 3 months',
    semiannual: 'every 6 months',
    yearly: 'per year',
  },
  paymentMethods: { credit_card: 'Credit card', pix: 'Pix', boleto: 'Boleto (bank slip)' },
  linkStatuses: { active: 'active', paid: 'paid', expired: 'expired', canceled: 'canceled' },
  sentences: {
    link_canceled: 'This payment link was canceled by the seller. Ask them for a new one.',
    link_expired: 'This payment link has expired. Ask the seller for a new one.',
    link_paid: 'This payment link has already been paid.',
    offer_unavailable: 'This offer is no longer available.',
    plan_unavailable: 'This plan is no longer available.',
    test_link_paid: 'This test link is already paid: only an active link can be simulated.',
    test_link_expired: 'This test link has expired: only an active link can be simulated.',
    test_link_canceled: 'This test link was canceled: only an active link can be simulated.',
    link_not_found: 'This payment link does not exist. Check the address you received.',
    offer_not_found: 'This offer is not available. Check the address you received.',
    page_not_found: 'This page does not exist. Check the address you received.',
    link_of_other_item: 'This payment link belongs to another offer or plan. Open the address you received.',
    link_not_payable: 'This payment link can no longer be paid.',
    payment_in_progress:
      'A payment for this link is already in progress. Wait for its confirmation before trying again.',
    unknown_outcome: 'Choose one of the three outcomes on the test page.',
    order_not_found: 'This order does not exist. Check the address you received.',
    method_not_offered: 'This payment method is not available for this link. Go back and choose another.',
    installments_not_offered: 'This number of instalments is not available. Go back and choose another.',
    method_unavailable: 'This payment method is not available for this amount. Go back and choose another.',
    gateway_unavailable:
      'We could not start the payment right now: nothing was charged. Please try again in a moment.',
  },
  problems: {
    name_required: 'Enter your name.',
    name_too_long: 'Use at most 200 characters.',
    name_invalid: 'The name contains a character that is not accepted.',
    email_required: 'Enter your email address.',
    email_invalid: 'Enter a valid email address, like name@example.com.',
    phone_invalid: 'Enter the phone number with country and area code, like +55 11 98765-4321.',
    document_shape: 'Enter a CPF (11 digits) or a CNPJ (14 characters, letters allowed).',
    cpf_invalid: 'This CPF is not valid. Check the digits.',
    cnpj_invalid: 'This CNPJ is not valid. Check its digits and letters.',
    payment_method_invalid: 'Choose credit card, Pix or boleto.',
    installments_invalid: 'Choose a number of instalments from the list.',
    unexpected_field: 'The form arrived with unexpected data. Reload the page and try again.',
    document_required: 'To pay by boleto, enter your CPF or CNPJ.',
    document_refused: 'The payment processor did not accept this CPF or CNPJ. Check the digits.',
    zip_code_required: 'To pay by boleto, enter the CEP (postal code).',
    zip_code_invalid: 'Enter the CEP with 8 digits, such as 01310-100.',
    street_name_required: 'Enter the street.',
    street_number_required: 'Enter the number (or S/N).',
    neighborhood_required: 'Enter the neighbourhood.',
    city_required: 'Enter the city.',
    address_field_invalid: 'This field has a character that is not accepted, or is too long.',
    state_invalid: 'Choose the state (UF) from the list.',
    address_refused: 'The payment processor did not accept this address. Check the CEP and the other fields.',
    card_incomplete:
      'Fill in the card details. If they do not show, turn on JavaScript or choose Pix or boleto.',
    card_refused: 'The payment processor did not accept this card’s details. Check them and try again.',
  },
  statusTitles: {
    400: 'We could not go on',
    404: 'Page not found',
    405: 'Action not allowed',
    408: 'Time is up',
    409: 'Payment not possible',
    413: 'Too much data',
    415: 'Format not accepted',
    429: 'Too many attempts',
    500: 'Something went wrong',
    503: 'Temporarily unavailable',
    other: 'We could not go on',
  },
  statusMessages: {
    400: 'We could not read what was sent. Go back and try again.',
    404: 'This page does not exist. Check the address you received.',
    405: 'This page does not take that action. Go back and use the page’s buttons.',
    408: 'Sending took too long. Try again.',
    409: 'This payment is not possible now.',
    413: 'The form sent too much data. Go back and try again.',
    415: 'The form arrived in a format we do not accept. Go back and try again.',
    429: 'Too many attempts in a row. Wait a minute and try again.',
    500: 'Try again in a moment.',
    503: 'We are having a hiccup. Try again in a few seconds.',
    other: 'Go back and try again.',
  },
  internalErrorReference: (requestId) => `If it keeps happening, give the seller the code ${requestId}.`,

  price: {
    listPrice: 'Price',
    discount: (coupon) => `Discount (coupon ${coupon})`,
    total: 'Total',
    firstPayment: 'First payment',
    planAfterCoupon: (price, cycle) => `The discount applies to the first payment; then ${price} ${cycle}.`,
  },

  checkout: {
    titleSuffix: 'Checkout',
    detailsHeading: 'Your details',
    requiredNote: 'Fields marked * are required.',
    requiredMark: '(required)',
    name: 'Full name',
    email: 'Email',
    phone: 'Mobile phone',
    phoneHint: 'With country and area code, for example +55 11 98765-4321.',
    document: 'CPF or CNPJ (Brazilian tax ID)',
    documentHint:
      'With or without punctuation, as 000.000.000-00 or 00.000.000/0000-00 (a new CNPJ has letters).',
    paymentMethod: 'Payment method',
    pay: (amount) => `Pay ${amount}`,
    errorSummary: 'Please check these fields:',
    privacyNote: 'Your details go only to the seller, to confirm the purchase.',
    installments: 'Card instalments',
    installmentsHint: 'For credit card payments only, interest-free.',
    installmentOption: (n, each, first) =>
      n === 1
        ? `In full: ${each}`
        : first === each
          ? `${n} × ${each}, interest-free`
          : `${n} payments, interest-free: 1 × ${first} and ${n - 1} × ${each}`,
    documentHintBoleto: 'Required for boleto. With or without punctuation (a new CNPJ has letters).',
    addressHeading: 'Payer’s address (boleto)',
    addressHint: 'For boleto only: the boleto’s issuer requires the payer’s address.',
    zipCode: 'CEP (postal code)',
    zipCodeHint: '8 digits, such as 01310-100.',
    streetName: 'Street',
    streetNumber: 'Number',
    neighborhood: 'Neighbourhood',
    city: 'City',
    state: 'State (UF)',
    stateChoose: 'Choose the state',
    cardHeading: 'Card details',
    cardHint: (psp) => `The card’s details go straight to ${psp}: they never pass through this site.`,
    cardNumber: 'Card number',
    cardExpiration: 'Expiry date',
    cardSecurityCode: 'Security code',
    cardholderName: 'Name as printed on the card',
    cardNoScript: 'To pay by card, turn on JavaScript. Without it, you can pay by Pix or boleto.',
    cardUnreadable: 'The card’s details could not be read. Check the number, the expiry date and the code.',
  },

  thanks: {
    paidTitle: 'Payment confirmed',
    paidHeading: 'Thank you for your purchase!',
    pendingTitle: 'Payment in progress',
    pendingHeading: 'We have received your order',
    paidLead: 'Your payment was approved and your order is confirmed.',
    pendingLead: 'Your payment is being confirmed. Here is what to do meanwhile.',
    orderSummary: 'Order summary',
    item: 'Item',
    amount: 'Amount',
    paymentMethod: 'Payment method',
    orderCode: 'Order code',
    status: 'Status',
    statusPaid: 'Paid',
    statusPending: 'Waiting for the payment to be confirmed',
    nextHeading: 'What happens next',
    paidEmail: (product) =>
      `The seller will send the purchase confirmation to the email address you entered, with how to receive ${product}.`,
    paidSubscription: (price, cycle) =>
      `Your subscription is active: the next charges are ${price} ${cycle}.`,
    pendingByMethod: {
      credit_card: 'We are waiting for the card issuer to confirm; this usually takes a few minutes.',
      pix: 'If you have not paid yet, finish the Pix payment in your bank’s app. Pix payments are usually confirmed within minutes.',
      boleto:
        'If you have not paid yet, pay the boleto by its due date. The bank confirms the payment within 3 business days.',
    },
    pendingEmail:
      'When the payment is confirmed, the seller will send the confirmation to the email address you entered.',
    noNeedToPayAgain: 'You do not need to pay again or send this form again.',
    keepCode: 'Keep the order code: the seller finds your purchase with it.',
    spamHint: 'If the email does not arrive, check your spam folder and contact the seller.',
    cardInstallments: (n, each) => (n === 1 ? 'Credit card, in full' : `Credit card, ${n} × ${each}`),
  },

  order: {
    brasiliaTime: 'Brasília time',
    autoUpdate:
      'This page shows the confirmation as soon as the payment is confirmed. If it does not change, reload the page.',
    copy: {
      pix: 'Copy Pix code',
      boleto: 'Copy the boleto number',
      done: 'Copied! Paste it in your bank’s app.',
      failed: 'Could not copy. Select the code and copy it.',
    },
    pixTitle: 'Pay with Pix',
    pixHeading: 'Pay with Pix to complete your purchase',
    pixLead: (until) => `Your order is reserved. Pay by ${until}.`,
    pixScanHeading: 'Scan the QR code',
    pixScanHint: 'In your bank’s app, choose to pay with Pix and point the camera at the QR code.',
    pixQrAlt: (amount) => `Pix QR code for ${amount}`,
    pixCopyLabel: 'Or use Pix copy and paste',
    pixCopyHint: 'Copy the code and paste it in your bank’s app, under Pix copy and paste (copia e cola).',
    pixExpires: 'Code valid until',
    pixExpiredTitle: 'The Pix code has expired',
    pixExpiredLead:
      'The time to pay this Pix is over. If you did not pay, place a new order; if you did, wait for the confirmation.',
    boletoTitle: 'Pay the boleto',
    boletoHeading: (due) => `Pay the boleto by ${due}`,
    boletoLead: 'Pay it in your bank’s app, in internet banking or at a lottery outlet (lotérica).',
    boletoLineLabel: 'Boleto number (linha digitável)',
    boletoBarcodeAlt: 'Barcode of the boleto',
    boletoDue: 'Due date',
    boletoPrint: 'Open the boleto to print it',
    boletoClearing: 'The bank confirms a boleto payment within 3 business days.',
    failedTitle: 'Payment not approved',
    failedLead: 'The payment for this order was not approved and nothing was charged. You can try again.',
    abandonedTitle: 'Order expired',
    abandonedLead:
      'This order was not paid in time. If you did pay, the seller confirms it when the bank reports it; if not, place a new order.',
    refundedTitle: 'Order refunded',
    refundedLead: 'The amount of this order was refunded.',
    chargedBackTitle: 'Payment disputed',
    chargedBackLead:
      'The payment for this order was disputed with the bank and returned. Contact the seller with any questions.',
    tryAgain: 'Place a new order',
    declined: {
      insufficient_funds: 'The card was declined for insufficient funds or credit limit.',
      security_code: 'The card was declined: the security code does not match.',
      call_issuer: 'The card’s bank asks you to authorize this payment: call it, or use another card.',
      other: 'The card’s bank declined this payment.',
    },
    statuses: {
      failed: 'Not approved',
      abandoned: 'Expired',
      refunded: 'Refunded',
      charged_back: 'Disputed',
    },
  },

  retry: {
    title: 'Payment not started',
    heading: 'We could not start the payment',
    tryAgain: 'Try again',
    other: 'Go back and choose another payment method',
  },

  boletoPage: {
    title: (item) => `Bank slip (boleto) for ${item}`,
    heading: 'Boleto (bank slip)',
    beneficiary: 'Payee',
    howToPay: 'Pay at any bank, banking app or lottery outlet by the due date.',
    print: 'Print',
    back: 'Back to the order',
    paid: 'This boleto has already been paid.',
    closed: 'This boleto can no longer be paid.',
  },

  simulation: {
    title: (item) => `Test payment: ${item}`,
    testBanner: 'Test mode: nothing is charged. The buttons send the same test events as the simulate API.',
    linkLine: 'Link',
    statusLabel: 'Status',
    actionsHeading: 'Simulate an outcome',
    outcomes: { paid: 'Approved payment', failed: 'Declined payment', expired: 'Expired payment' },
    resultTitle: 'Test payment sent',
    resultBanner: 'Test mode: nothing was charged.',
    eventSent: 'Event sent',
    linkNowIs: 'Link status now',
    deliveriesCaption: 'Webhook deliveries (first attempt)',
    destination: 'Destination',
    success: 'Success',
    httpStatus: 'HTTP status',
    yes: 'yes',
    no: 'no',
    noResponse: 'no response',
    noWebhooks: 'No webhook is subscribed to this event.',
    back: 'Back to the test page',
  },
};

export const CATALOGUE: Catalogue<Messages> = { 'pt-BR': ptBR, en };

export const isFieldProblem = (value: string): value is FieldProblem =>
  (FIELD_PROBLEMS as readonly string[]).includes(value);
