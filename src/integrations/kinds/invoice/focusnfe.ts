/**
 * Focus NFe's NFS-e API (v2, REST + JSON) as the invoice provider port: `POST /v2/nfse?ref=`,
 * `GET /v2/nfse/{ref}`, `DELETE /v2/nfse/{ref}` with a justification, the municipality lookup
 * for "check settings", and its webhooks ("Gatilhos / Webhooks": `POST /v2/hooks` with `cnpj`, `event`
 * `nfse`, `url` and `authorization`, which each notice carries back in its Authorization header; a
 * notice's body is the note as `GET /v2/nfse/{ref}` answers it). HTTP Basic, the company's token as the user. The base URL is
 * FOCUSNFE_API_URL (Focus NFe's production host unless set). docs/invoices.md says what is sent.
 */
import { callJson, UpstreamUnavailableError, type JsonAnswer } from '../../../shared/http/json-client.js';
import {
  ProviderRefusedError,
  type InvoiceAnswer,
  type InvoiceDraft,
  type InvoiceProvider,
  type IssuerSettings,
  type SettingsCheck,
} from './provider.js';

export interface FocusNfeOptions {
  apiUrl: string;
  timeoutMs: number;
}

type Body = Record<string, unknown>;
const bodyOf = (answer: JsonAnswer): Body =>
  typeof answer.body === 'object' && answer.body !== null && !Array.isArray(answer.body)
    ? (answer.body as Body)
    : {};
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** Focus NFe's error `{codigo, mensagem}` in one line. */
const errorLine = (body: Body, status: number): string =>
  [text(body.codigo), text(body.mensagem)].filter(Boolean).join(': ') || `HTTP ${status}`;

/** The `erros` of a refused note, `codigo: mensagem` each, one line. */
const refusalLine = (body: Body): string => {
  const erros = Array.isArray(body.erros) ? (body.erros as unknown[]) : [];
  const lines = erros.map((e) => {
    const err = (typeof e === 'object' && e !== null ? e : {}) as Body;
    return [text(err.codigo), text(err.mensagem)].filter(Boolean).join(': ');
  });
  return (lines.filter(Boolean).join('; ') || 'refused without a reason').slice(0, 1000);
};

/** The buyer's field a refusal asks for, when it is one (the municipality requires it). */
const missingBuyerField = (message: string): 'customer.document' | 'customer.address' | null => {
  if (/tomador\.endereco/.test(message)) return 'customer.address';
  if (/tomador\.(cpf|cnpj)/.test(message)) return 'customer.document';
  return null;
};

const amountOf = (value: string): number => Math.round(Number(value) * 100) / 100;

export function focusNfeProvider(options: FocusNfeOptions): InvoiceProvider {
  const call = async (
    settings: IssuerSettings,
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    json?: unknown,
  ): Promise<JsonAnswer> => {
    const answer = await callJson({
      method,
      url: `${options.apiUrl}${path}`,
      headers: { authorization: `Basic ${Buffer.from(`${settings.token}:`).toString('base64')}` },
      ...(json !== undefined ? { json } : {}),
      timeoutMs: options.timeoutMs,
    });
    // A server error is as good as no answer: the job tries again.
    if (answer.status >= 500)
      throw new UpstreamUnavailableError(`${method} ${path.split('?')[0]}: HTTP ${answer.status}`);
    return answer;
  };

  /** Where a note stands, as a read or a notice gives it; undefined for a status not known here. */
  const noteState = (body: Body): InvoiceAnswer | undefined => {
    switch (body.status) {
      case 'autorizado': {
        const xml = text(body.caminho_xml_nota_fiscal);
        return {
          state: 'authorized',
          number: text(body.numero),
          pdfUrl: text(body.url_danfse) ?? text(body.url),
          xmlUrl: xml ? new URL(xml, `${options.apiUrl}/`).toString() : null,
        };
      }
      case 'erro_autorizacao':
        return { state: 'refused', message: refusalLine(body) };
      case 'cancelado':
        return { state: 'canceled' };
      case 'processando_autorizacao':
        return { state: 'processing' };
      default:
        return undefined;
    }
  };

  /** The answer to a read (or to a request that returns the note). */
  const noteAnswer = (answer: JsonAnswer): InvoiceAnswer => {
    const body = bodyOf(answer);
    if (answer.status === 404) return { state: 'not_found' };
    if (answer.status >= 400) throw new ProviderRefusedError(errorLine(body, answer.status));
    const state = noteState(body);
    if (!state) throw new UpstreamUnavailableError(`an NFS-e status Focus NFe sent could not be read`);
    return state;
  };

  const ref = (value: string) => encodeURIComponent(value);

  return {
    async submit(settings, reference, draft) {
      const answer = await call(
        settings,
        'POST',
        `/v2/nfse?ref=${ref(reference)}`,
        nfseBody(settings, draft),
      );
      const body = bodyOf(answer);
      if (answer.status < 300) return { state: 'processing' };
      // Submitted before (an answer lost on the way back): the same reference, never a second note.
      if (body.codigo === 'em_processamento') return { state: 'processing' };
      if (body.codigo === 'nfe_autorizada')
        return noteAnswer(await call(settings, 'GET', `/v2/nfse/${ref(reference)}`));
      if (body.codigo === 'nfe_cancelada') return { state: 'canceled' };
      const message = errorLine(body, answer.status);
      throw new ProviderRefusedError(message, missingBuyerField(message));
    },
    async read(settings, reference) {
      return noteAnswer(await call(settings, 'GET', `/v2/nfse/${ref(reference)}`));
    },
    async cancel(settings, reference, justification) {
      const answer = await call(settings, 'DELETE', `/v2/nfse/${ref(reference)}`, {
        justificativa: justification,
      });
      const body = bodyOf(answer);
      if (answer.status < 300 && body.status === 'cancelado') return { state: 'canceled' };
      if (body.codigo === 'nfe_cancelada') return { state: 'canceled' };
      if (answer.status < 300) return { state: 'refused', message: refusalLine(body) };
      return { state: 'refused', message: errorLine(body, answer.status) };
    },
    async registerHook(settings, url, authorization) {
      const answer = await call(settings, 'POST', '/v2/hooks', {
        cnpj: settings.cnpj,
        event: 'nfse',
        url,
        authorization,
      });
      const body = bodyOf(answer);
      const id = text(body.id);
      if (answer.status >= 300 || !id) throw new ProviderRefusedError(errorLine(body, answer.status));
      return id;
    },
    async removeHook(settings, id) {
      const answer = await call(settings, 'DELETE', `/v2/hooks/${ref(id)}`);
      if (answer.status >= 300 && answer.status !== 404)
        throw new ProviderRefusedError(errorLine(bodyOf(answer), answer.status));
    },
    readNotice(body) {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
      const note = body as Body;
      const reference = text(note.ref);
      const answer = noteState(note);
      return reference && answer ? { ref: reference, answer } : undefined;
    },
    async checkSettings(settings): Promise<SettingsCheck> {
      const city = await call(settings, 'GET', `/v2/municipios/${ref(settings.codigoMunicipio)}`);
      const body = bodyOf(city);
      if (city.status === 401 || city.status === 403)
        return { ok: false, message: `Focus NFe refused the token (${errorLine(body, city.status)})` };
      if (city.status === 404)
        return { ok: false, message: `Focus NFe does not know municipality ${settings.codigoMunicipio}` };
      if (city.status >= 400)
        return { ok: false, message: `Focus NFe answered ${errorLine(body, city.status)}` };
      const name = `${text(body.nome_municipio) ?? settings.codigoMunicipio}/${text(body.sigla_uf) ?? '?'}`;
      if (body.nfse_habilitada !== true || body.status_nfse !== 'ativo')
        return {
          ok: false,
          message: `${name}: NFS-e is not active at Focus NFe (${text(body.status_nfse) ?? 'unknown'})`,
        };
      if (body.item_lista_servico_obrigatorio_nfse === true) {
        const item = await call(
          settings,
          'GET',
          `/v2/municipios/${ref(settings.codigoMunicipio)}/itens_lista_servico/${ref(settings.itemListaServico)}`,
        );
        if (item.status === 404)
          return { ok: false, message: `${name} does not list service item ${settings.itemListaServico}` };
      }
      const needs = [
        body.cpf_cnpj_obrigatorio_nfse === true ? "the buyer's CPF or CNPJ" : null,
        body.endereco_obrigatorio_nfse === true ? "the buyer's address" : null,
      ].filter(Boolean);
      return {
        ok: true,
        message: `${name}: the token opens and NFS-e is active${needs.length ? `; it requires ${needs.join(' and ')}` : ''}`,
      };
    },
  };
}

/** The note as Focus NFe's "NFSe > Campos" names its fields. */
function nfseBody(settings: IssuerSettings, draft: InvoiceDraft): Body {
  const document = draft.buyer.document;
  return {
    data_emissao: draft.issuedAt.toISOString(),
    natureza_operacao: '1',
    prestador: {
      cnpj: settings.cnpj,
      inscricao_municipal: settings.inscricaoMunicipal,
      codigo_municipio: settings.codigoMunicipio,
    },
    tomador: {
      ...(document.length === 14 ? { cnpj: document } : { cpf: document }),
      razao_social: draft.buyer.name.slice(0, 115),
      ...(draft.buyer.email ? { email: draft.buyer.email.slice(0, 80) } : {}),
    },
    servico: {
      valor_servicos: amountOf(draft.amount),
      aliquota: settings.aliquota,
      iss_retido: settings.issRetido,
      item_lista_servico: settings.itemListaServico,
      discriminacao: draft.description,
      codigo_municipio: settings.codigoMunicipio,
    },
  };
}
