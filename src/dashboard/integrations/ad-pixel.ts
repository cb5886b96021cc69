/**
 * The dashboard's `ad_pixel` forms (docs/ad-conversions.md): the provider and its keys on the create
 * page and on the integration's page. The credential field shows the mask of the stored one: sent
 * back unchanged it keeps it, as the panel API's PATCH does. Words in both languages, here.
 */
import type { ProductRow } from '../../catalog/repository.js';
import type { IntegrationRow } from '../../integrations/repository.js';
import { ValidationError } from '../../shared/errors.js';
import type { Language } from '../../ui/language.js';
import { html, type SafeHtml } from '../../ui/html.js';
import { checkbox, problemSummary, textField, type FormProblems } from '../forms.js';
import { fact } from '../lists.js';
import type { DashboardLocale } from '../locale.js';
import { layout, postForm, type Chrome } from '../page.js';
import { sentText } from '../params.js';
import { v } from '../../shared/validation/typed.js';

const WORDS = {
  'pt-BR': {
    title: 'Nova integração de anúncios (Meta ou Google Analytics)',
    intro:
      'Cada venda confirmada vai para a plataforma de anúncios pelo servidor, com os parâmetros da campanha e o clique. Vendas de teste nunca vão.',
    heading: 'Plataforma de anúncios',
    provider: 'Plataforma',
    providers: { meta: 'Meta (API de Conversões)', google_analytics: 'Google Analytics 4' },
    pixelId: 'ID do conjunto de dados (pixel) da Meta',
    accessToken: 'Token de acesso da API de Conversões',
    testEventCode: 'Código de evento de teste (opcional)',
    browserPixel: 'Também carregar o pixel da Meta na página do pedido (só Meta)',
    browserPixelHint:
      'A página do pedido informa InitiateCheckout e Purchase ao pixel com os mesmos IDs de evento da API de Conversões, para a Meta contar cada venda uma vez.',
    browserPixelFact: 'Pixel no navegador',
    onOff: { on: 'Ligado', off: 'Desligado' },
    measurementId: 'ID de métricas do GA4 (G-…)',
    apiSecret: 'Chave secreta da API do Measurement Protocol',
    secretHint: 'Guardada cifrada; aparece como ••••. Deixe •••• para mantê-la.',
    check: 'Confira este campo.',
    create: 'Criar integração',
    save: 'Salvar plataforma',
    newLink: 'Nova integração de anúncios (Meta, Google Analytics)',
  },
  en: {
    title: 'New ad platform integration (Meta or Google Analytics)',
    intro:
      'Each confirmed sale goes to the ad platform from the server, with the campaign parameters and the click. Test sales never do.',
    heading: 'Ad platform',
    provider: 'Platform',
    providers: { meta: 'Meta (Conversions API)', google_analytics: 'Google Analytics 4' },
    pixelId: 'Meta dataset (pixel) ID',
    accessToken: 'Conversions API access token',
    testEventCode: 'Test event code (optional)',
    browserPixel: 'Also load the Meta pixel on the order page (Meta only)',
    browserPixelHint:
      'The order page reports InitiateCheckout and Purchase to the pixel with the same event ids as the Conversions API, so Meta counts each sale once.',
    browserPixelFact: 'Browser pixel',
    onOff: { on: 'On', off: 'Off' },
    measurementId: 'GA4 measurement ID (G-…)',
    apiSecret: 'Measurement Protocol API secret',
    secretHint: 'Stored encrypted; shown as ••••. Leave •••• to keep it.',
    check: 'Check this field.',
    create: 'Create integration',
    save: 'Save platform',
    newLink: 'New ad platform integration (Meta, Google Analytics)',
  },
} as const satisfies Record<Language, unknown>;

export const adPixelWords = (page: DashboardLocale) => WORDS[page.lang];

const FIELDS = [
  'provider',
  'pixel_id',
  'access_token',
  'test_event_code',
  'browser_pixel',
  'measurement_id',
  'api_secret',
] as const;
type Field = (typeof FIELDS)[number];
export type AdPixelValues = Record<Field, string>;

export const NO_AD_PIXEL: AdPixelValues = {
  provider: 'meta',
  pixel_id: '',
  access_token: '',
  test_event_code: '',
  browser_pixel: '',
  measurement_id: '',
  api_secret: '',
};

export const adPixelForm = v
  .object(
    Object.fromEntries(FIELDS.map((f) => [f, sentText()])) as Record<Field, ReturnType<typeof sentText>>,
  )
  .unknown(true);

/**
 * The form's values as the panel API's `config` (blank keys left out, so each provider gets its own);
 * Meta's `browser_pixel` as the checkbox says (unticked, or not sent: off).
 */
export const adPixelConfigOf = (values: AdPixelValues): Record<string, string | boolean> => ({
  ...Object.fromEntries(
    Object.entries(values).filter(
      ([key, value]) =>
        value !== '' &&
        (key === 'provider' ||
          (values.provider === 'meta'
            ? ['pixel_id', 'access_token', 'test_event_code'].includes(key)
            : ['measurement_id', 'api_secret'].includes(key))),
    ),
  ),
  ...(values.provider === 'meta' ? { browser_pixel: values.browser_pixel === 'true' } : {}),
});

/** A refused form shown again: never with a credential typed in it (it would sit in the page and its caches). */
export const withoutCredentials = (values: AdPixelValues): AdPixelValues => ({
  ...values,
  access_token: '',
  api_secret: '',
});

/** A refusal's fields (`config.pixel_id`) as this form's, each with the same short sentence. */
export function adPixelProblems(page: DashboardLocale, err: ValidationError): FormProblems {
  const problems: FormProblems = new Map();
  for (const name of Object.keys(err.fields ?? { '': '' })) {
    const field = name.replace(/^config\.?/, '');
    problems.set((FIELDS as readonly string[]).includes(field) ? field : '', WORDS[page.lang].check);
  }
  return problems;
}

/** The values of a stored integration's form: its ids, and the mask for its credential. */
export const adPixelValuesOf = (row: IntegrationRow): AdPixelValues => {
  const text = (key: string): string => (typeof row.config[key] === 'string' ? String(row.config[key]) : '');
  const masked = (key: string): string => (row.secrets?.[key] !== undefined ? '••••' : '');
  return {
    provider: text('provider') || 'meta',
    pixel_id: text('pixel_id'),
    access_token: masked('access_token'),
    test_event_code: text('test_event_code'),
    browser_pixel: row.config.browser_pixel === true ? 'true' : '',
    measurement_id: text('measurement_id'),
    api_secret: masked('api_secret'),
  };
};

/** The provider and its keys (both providers' fields; the chosen provider's are used). */
export function adPixelFields(
  page: DashboardLocale,
  values: AdPixelValues,
  problems: FormProblems | undefined,
): SafeHtml {
  const w = WORDS[page.lang];
  const field = (name: Field, label: string, extra: { type?: string; hint?: string } = {}) =>
    textField(problems, { name, label, value: values[name], ...extra });
  return html`<fieldset>
    <legend>${w.heading}</legend>
    <label for="provider">${w.provider}</label>
    <select id="provider" name="provider">
      ${(['meta', 'google_analytics'] as const).map(
        (p) =>
          html`<option value="${p}" ${values.provider === p ? html`selected` : ''}>
            ${w.providers[p]}
          </option>`,
      )}
    </select>
    ${field('pixel_id', w.pixelId)}
    ${field('access_token', w.accessToken, { type: 'password', hint: w.secretHint })}
    ${field('test_event_code', w.testEventCode)}
    ${checkbox({
      name: 'browser_pixel',
      value: 'true',
      checked: values.browser_pixel === 'true',
      label: w.browserPixel,
      hint: 'browser_pixel-hint',
    })}
    <p class="hint" id="browser_pixel-hint">${w.browserPixelHint}</p>
    ${field('measurement_id', w.measurementId)}
    ${field('api_secret', w.apiSecret, { type: 'password', hint: w.secretHint })}
  </fieldset>`;
}

/** The create page: the provider's fields, then the events and products every integration has. */
export function newAdPixelPage(
  page: DashboardLocale,
  chrome: Chrome,
  data: {
    values: AdPixelValues;
    routing: SafeHtml;
    problems?: FormProblems | undefined;
    products: ProductRow[];
  },
): SafeHtml {
  const w = WORDS[page.lang];
  return layout(
    page,
    w.title,
    html`<p><a href="${page.href('/integrations')}">${page.t.integration.back}</a></p>
      <h1>${w.title}</h1>
      <p>${w.intro}</p>
      ${problemSummary(page, data.problems)}
      ${postForm(
        page,
        chrome,
        '/integrations/ad-pixel',
        html`<input type="hidden" name="type" value="ad_pixel" />
          ${adPixelFields(page, data.values, data.problems)} ${data.routing}
          <button type="submit">${w.create}</button>`,
      )}`,
    chrome,
  );
}

/** On an ad_pixel integration's page: its provider and ids as facts, and the form that changes them. */
export function adPixelSection(
  page: DashboardLocale,
  chrome: Chrome | null,
  row: IntegrationRow,
): { facts: SafeHtml; form: SafeHtml | string } {
  const w = WORDS[page.lang];
  const values = adPixelValuesOf(row);
  const provider = values.provider === 'google_analytics' ? 'google_analytics' : 'meta';
  const facts = html`${fact(w.provider, w.providers[provider])}
  ${provider === 'meta' ? fact(w.pixelId, values.pixel_id) : fact(w.measurementId, values.measurement_id)}
  ${provider === 'meta' ? fact(w.browserPixelFact, w.onOff[values.browser_pixel === 'true' ? 'on' : 'off']) : ''}
  ${fact(provider === 'meta' ? w.accessToken : w.apiSecret, '••••')}`;
  const form = chrome
    ? html`<section aria-labelledby="ad-pixel-title">
        <h3 id="ad-pixel-title">${w.heading}</h3>
        ${postForm(
          page,
          chrome,
          `/integrations/${row.id}/ad-pixel`,
          html`${adPixelFields(page, values, undefined)} <button type="submit">${w.save}</button>`,
        )}
      </section>`
    : '';
  return { facts, form };
}
