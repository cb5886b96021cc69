/**
 * The Focus NFe stand-in: one loopback HTTP server answering as Focus NFe's v2 REST API does for
 * service invoices (NFS-e), written from its public API reference (the FocusNFe/api-doc repository,
 * published at focusnfe.com.br/doc). Which section each rule follows:
 *
 * - "NFSe > URLs": `POST /v2/nfse?ref=REF` (submit), `GET /v2/nfse/REF` (read), `DELETE /v2/nfse/REF`
 *   (cancel).
 * - "NFSe > Campos": the fields and which are required (*): data_emissao, prestador.{cnpj,
 *   inscricao_municipal, codigo_municipio}, tomador.{cpf|cnpj}, servico.{valor_servicos, iss_retido,
 *   item_lista_servico, discriminacao, codigo_municipio}.
 * - "NFSe > Envio": a valid note is accepted for processing (`status: processando_autorizacao`,
 *   `{cnpj_prestador, ref, status}`); a missing field is `requisicao_invalida` with
 *   `Parâmetro "x" não informado`. Processing is asynchronous.
 * - "NFSe > Consulta": statuses `processando_autorizacao`, `autorizado` (numero, codigo_verificacao,
 *   data_emissao, url, url_danfse, caminho_xml_nota_fiscal), `erro_autorizacao` (`erros: [{codigo,
 *   mensagem, correcao}]`; "É possível reenviar a nota com a mesma referência após realizar as
 *   correções"), `cancelado` (caminho_xml_cancelamento).
 * - "NFSe > Status API": 404 nao_encontrado, 400 nfe_cancelada, 400 nfe_nao_autorizada, 400
 *   requisicao_invalida, 400 empresa_nao_habilitada, 422 nfe_autorizada, 422 em_processamento.
 * - "NFSe > Cancelamento": DELETE with `{justificativa}` of 15 to 255 characters, synchronous,
 *   answering `status: cancelado` (or `erro_cancelamento` with `erros`).
 * - "Consulta de Municípios": `GET /v2/municipios/CODIGO` with nfse_habilitada, status_nfse,
 *   endereco_obrigatorio_nfse, cpf_cnpj_obrigatorio_nfse, item_lista_servico_obrigatorio_nfse;
 *   `GET /v2/municipios/CODIGO/itens_lista_servico/CODIGO`.
 * - "Gatilhos / Webhooks": `POST /v2/hooks` with `cnpj` (or `cpf`, mutually exclusive), `event` (one of
 *   nfe, nfse, nfce_contingencia, nfce_correcao_timeout, nfe_recebida, nfse_recebida, inutilizacao, cte,
 *   mdfe), `url`, and optionally `authorization` ("será devolvido no acionamento do gatilho no cabeçalho
 *   Authorization") and `authorization_header` (that header's name instead); answered with the hook
 *   `{id, url, authorization, authorization_header, event, cnpj}`. `GET /v2/hooks/ID`, `DELETE
 *   /v2/hooks/ID` (the hook plus `deleted: true`), 404 `nao_encontrado` for an unknown one; 400
 *   `requisicao_invalida` for an invalid event ("Parâmetro "event" deve ser um evento válido."), an
 *   invalid URL ("URL inválida: X") or an existing hook ("Já existe um gatilho para este evento.").
 *   An NFS-e's hook fires on "Erro na emissão" and "Emissão … realizada com sucesso": a POST of the
 *   note as the consulta answers it ("os campos devolvidos são os mesmos da consulta"), one note per
 *   POST. `POST /v2/nfse/REF/hook` sends a note's notice again to every hook, answering the hooks.
 * - Authentication (every example): HTTP Basic with the company's token as the user, empty password;
 *   "O token é utilizado para identificar a empresa prestadora do serviço".
 *
 * Where the reference is silent the stand-in is strict and says so: an unknown token is 403
 * `permissao_negada`; a prestador that is not the token's company is `empresa_nao_habilitada`; a
 * tomador with both or neither of cpf and cnpj, or a document of the wrong length, is
 * `requisicao_invalida`; numbers must be JSON numbers or numeric strings; the HTTP status of an
 * accepted submission is 202. Hooks: the reference says both that one event may have several hooks
 * and that an existing one is refused; here the same event, issuer and URL twice is refused. A `cnpj`
 * that is not the token's company is `requisicao_invalida`. A hook is created with 201. A notice that
 * fails is recorded and not retried (the reference retries after 1 minute, 30 minutes, …: longer than
 * any test).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import express, { type NextFunction, type Request, type Response } from 'express';

/** A company registered with Focus NFe: what its token identifies. */
export interface FocusCompany {
  token: string;
  cnpj: string;
  inscricaoMunicipal: string;
}

/** A municipality as "Consulta de Municípios" describes it (the fields the service reads). */
export interface FocusMunicipality {
  codigo_municipio: string;
  nome_municipio: string;
  sigla_uf: string;
  nfse_habilitada: boolean;
  status_nfse: 'ativo' | 'fora_do_ar' | 'pausado' | 'inativo' | 'nao_implementado';
  endereco_obrigatorio_nfse: boolean | null;
  cpf_cnpj_obrigatorio_nfse: boolean | null;
  item_lista_servico_obrigatorio_nfse: boolean | null;
  /** The service items the municipality knows (`itens_lista_servico`). */
  items: string[];
}

export type NfseStatus = 'processando_autorizacao' | 'autorizado' | 'erro_autorizacao' | 'cancelado';

export interface FocusError {
  codigo: string;
  mensagem: string;
  correcao: string | null;
}

/** One note as the stand-in keeps it: the last body submitted under its reference, and its state. */
export interface StoredNfse {
  ref: string;
  token: string;
  body: Record<string, unknown>;
  status: NfseStatus;
  /** How many times a body was accepted under this reference (a resubmission after a refusal counts). */
  submissions: number;
  numero: string | null;
  codigoVerificacao: string | null;
  erros: FocusError[];
  justificativa: string | null;
}

/** A hook ("gatilho") as the stand-in keeps it. */
export interface FocusHook {
  id: string;
  token: string;
  cnpj: string | null;
  event: string;
  url: string;
  authorization: string | null;
  authorization_header: string | null;
}

/** One notice the stand-in sent to a hook, and how the receiver answered (`error`: no answer). */
export interface FocusNotice {
  hookId: string;
  ref: string;
  body: Record<string, unknown>;
  headers: Record<string, string>;
  answer: number | 'error';
  /** The receiver's answer body (empty when it gave none). */
  reply: string;
}

/** The prefecture's verdict on a note: null authorises it, a list of errors refuses it. */
export type Verdict = (nota: StoredNfse) => FocusError[] | null;

export interface FocusStandIn {
  url: string;
  companies: Map<string, FocusCompany>;
  municipalities: Map<string, FocusMunicipality>;
  notes: Map<string, StoredNfse>;
  hooks: Map<string, FocusHook>;
  /** Every notice sent to a hook, in order. */
  notices: FocusNotice[];
  /** Resolves once every notice sent so far was answered. */
  noticesSettled(): Promise<void>;
  /** Every request received, in order (method, path, the token it carried). */
  requests: Array<{ method: string; path: string; token: string | null }>;
  /** Registers a company and returns its token. */
  addCompany(company: Omit<FocusCompany, 'token'>): string;
  /** How the prefecture decides (default: authorise everything). */
  verdict: Verdict;
  /** How long a note stays `processando_autorizacao` before the verdict (ms). */
  processingMs: number;
  /** Notes submitted while set wait for `decide` (the prefecture slow, for as long as a test needs). */
  hold: boolean;
  /** The prefecture's verdict on a held note, now. */
  decide(ref: string): void;
  /** Connections are cut without an answer (the provider down). */
  down: boolean;
  /** Every answer waits this long first (the provider slow). */
  slowMs: number;
  /** The next `n` requests are answered 503 (an outage behind a load balancer). */
  failNext(n: number): void;
  /** Authorisations made, by reference (a second one for one reference would be a duplicate NFS-e). */
  authorisations(ref: string): number;
  close(): Promise<void>;
}

const digits = (value: unknown): string => (typeof value === 'string' ? value.replace(/\D/g, '') : '');
const isNumeric = (value: unknown): boolean =>
  (typeof value === 'number' && Number.isFinite(value)) ||
  (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value));
const isBooleanLike = (value: unknown): boolean =>
  typeof value === 'boolean' || value === 'true' || value === 'false' || value === '0' || value === '1';

const at = (body: Record<string, unknown>, path: string): unknown =>
  path.split('.').reduce<unknown>((node, key) => {
    if (node === null || typeof node !== 'object') return undefined;
    return (node as Record<string, unknown>)[key];
  }, body);

/** "NFSe > Campos": the required fields, each with the check its type asks for. */
const REQUIRED: Array<[string, (value: unknown) => boolean]> = [
  ['data_emissao', (v) => typeof v === 'string' && !Number.isNaN(Date.parse(v))],
  ['prestador.cnpj', (v) => digits(v).length === 14],
  ['prestador.inscricao_municipal', (v) => digits(v).length > 0],
  ['prestador.codigo_municipio', (v) => /^\d{7}$/.test(String(v ?? ''))],
  ['servico.valor_servicos', (v) => isNumeric(v) && Number(v) > 0],
  ['servico.iss_retido', isBooleanLike],
  ['servico.item_lista_servico', (v) => typeof v === 'string' && v.length > 0],
  ['servico.discriminacao', (v) => typeof v === 'string' && v.trim().length > 0],
  ['servico.codigo_municipio', (v) => /^\d{7}$/.test(String(v ?? ''))],
];

/** The first problem of a submitted body, as the `mensagem` of `requisicao_invalida`, or null. */
function invalidField(
  body: Record<string, unknown>,
  municipality: FocusMunicipality | undefined,
): string | null {
  for (const [path, ok] of REQUIRED) {
    const value = at(body, path);
    if (value === undefined || value === null || value === '') return `Parâmetro "${path}" não informado`;
    if (!ok(value)) return `Parâmetro "${path}" inválido`;
  }
  const aliquota = at(body, 'servico.aliquota');
  if (aliquota !== undefined && !isNumeric(aliquota)) return 'Parâmetro "servico.aliquota" inválido';
  const tomador = at(body, 'tomador');
  const cpf = at(body, 'tomador.cpf');
  const cnpj = at(body, 'tomador.cnpj');
  // Strict where silent: one document, of its length.
  if (tomador !== undefined) {
    if (cpf !== undefined && cnpj !== undefined) return 'Informe apenas um de "tomador.cpf" e "tomador.cnpj"';
    if (cpf !== undefined && digits(cpf).length !== 11) return 'Parâmetro "tomador.cpf" inválido';
    if (cnpj !== undefined && digits(cnpj).length !== 14) return 'Parâmetro "tomador.cnpj" inválido';
  }
  // "Consulta de Municípios": what the municipality requires of the tomador.
  if (municipality?.cpf_cnpj_obrigatorio_nfse && cpf === undefined && cnpj === undefined)
    return 'Parâmetro "tomador.cpf" ou "tomador.cnpj" não informado';
  if (municipality?.endereco_obrigatorio_nfse && at(body, 'tomador.endereco.logradouro') === undefined)
    return 'Parâmetro "tomador.endereco" não informado';
  return null;
}

export async function startFocusStandIn(): Promise<FocusStandIn> {
  const app = express();
  let failing = 0;
  const authorised = new Map<string, number>();
  const sockets = new Set<import('node:net').Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const sending = new Set<Promise<void>>();

  const state: FocusStandIn = {
    url: '',
    companies: new Map(),
    municipalities: new Map(),
    notes: new Map(),
    hooks: new Map(),
    notices: [],
    async noticesSettled() {
      await Promise.all([...sending]);
    },
    requests: [],
    verdict: () => null,
    processingMs: 30,
    hold: false,
    decide(ref) {
      const note = state.notes.get(ref);
      if (!note) throw new Error(`no note ${ref} at the stand-in`);
      verdictOn(note);
    },
    down: false,
    slowMs: 0,
    failNext(n) {
      failing = n;
    },
    authorisations: (ref) => authorised.get(ref) ?? 0,
    addCompany(company) {
      const token = randomBytes(16).toString('hex');
      state.companies.set(token, { ...company, token });
      return token;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      await Promise.all([...sending]);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const fail = (res: Response, status: number, codigo: string, mensagem: string): void => {
    res.status(status).json({ codigo, mensagem });
  };

  // Down, slow, failing: before anything else, as a network or a load balancer would be.
  app.use(async (req: Request, res: Response, next: NextFunction) => {
    if (state.down) {
      req.socket.destroy();
      return;
    }
    if (state.slowMs > 0) await sleep(state.slowMs);
    if (failing > 0) {
      failing -= 1;
      res.status(503).type('text/html').send('<html><body>503 Service Unavailable</body></html>');
      return;
    }
    next();
  });

  // HTTP Basic, the token as the user and an empty password (every example of the reference).
  app.use((req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization ?? '';
    const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header);
    const decoded = match ? Buffer.from(match[1] ?? '', 'base64').toString('utf8') : '';
    const token = decoded.endsWith(':') ? decoded.slice(0, -1) : null;
    state.requests.push({ method: req.method, path: req.path, token });
    const company = token ? state.companies.get(token) : undefined;
    // Strict where silent: no token, or one no company holds.
    if (!company) return fail(res, 403, 'permissao_negada', 'Token inválido ou não informado');
    res.locals.company = company;
    next();
  });
  app.use(express.json({ type: () => true, limit: '1mb' }));

  const companyOf = (res: Response): FocusCompany => res.locals.company as FocusCompany;

  const view = (note: StoredNfse, company: FocusCompany) => {
    const base = {
      cnpj_prestador: company.cnpj,
      ref: note.ref,
      numero_rps: String(note.submissions),
      serie_rps: '1',
      status: note.status,
    };
    if (note.status === 'erro_autorizacao') return { ...base, erros: note.erros };
    if (note.status === 'processando_autorizacao') return base;
    const files = `/arquivos/${company.cnpj}/${note.ref}`;
    return {
      ...base,
      numero: note.numero,
      codigo_verificacao: note.codigoVerificacao,
      data_emissao: String(at(note.body, 'data_emissao')),
      url: `${state.url}/notas/${note.ref}`,
      url_danfse: `${state.url}${files}/danfse.pdf`,
      caminho_xml_nota_fiscal: `${files}/nfse.xml`,
      ...(note.status === 'cancelado' ? { caminho_xml_cancelamento: `${files}/can.xml` } : {}),
    };
  };

  let nextNumber = 1000;
  function verdictOn(note: StoredNfse): void {
    if (note.status !== 'processando_autorizacao') return;
    const erros = state.verdict(note);
    if (erros) {
      note.status = 'erro_autorizacao';
      note.erros = erros;
    } else {
      nextNumber += 1;
      note.status = 'autorizado';
      note.numero = String(nextNumber);
      note.codigoVerificacao = randomBytes(4).toString('hex').toUpperCase();
      authorised.set(note.ref, (authorised.get(note.ref) ?? 0) + 1);
    }
    notify(note);
  }

  /** The hooks a note's notice goes to: its token's, of event nfse, of its issuer or of every one. */
  const hooksOf = (note: StoredNfse): FocusHook[] => {
    const company = state.companies.get(note.token);
    return [...state.hooks.values()].filter(
      (h) => h.token === note.token && h.event === 'nfse' && (h.cnpj === null || h.cnpj === company?.cnpj),
    );
  };

  /** POSTs the note, as the consulta shows it, to each of its hooks. */
  function notify(note: StoredNfse): FocusHook[] {
    const company = state.companies.get(note.token);
    const hooks = hooksOf(note);
    if (!company) return hooks;
    for (const hook of hooks) {
      const body = view(note, company) as Record<string, unknown>;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (hook.authorization !== null)
        headers[hook.authorization_header ?? 'Authorization'] = hook.authorization;
      const sent = fetch(hook.url, { method: 'POST', headers, body: JSON.stringify(body) })
        .then(async (res) => ({ answer: res.status, reply: await res.text() }))
        .catch(() => ({ answer: 'error' as const, reply: '' }))
        .then(({ answer, reply }) => {
          state.notices.push({ hookId: hook.id, ref: note.ref, body, headers, answer, reply });
        });
      sending.add(sent);
      void sent.finally(() => sending.delete(sent));
    }
    return hooks;
  }
  const decideLater = (note: StoredNfse) => {
    if (state.hold) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      verdictOn(note);
    }, state.processingMs);
    timers.add(timer);
  };

  app.post('/v2/nfse', (req, res) => {
    const company = companyOf(res);
    const ref = typeof req.query.ref === 'string' ? req.query.ref : '';
    if (!ref) return fail(res, 400, 'requisicao_invalida', 'Parâmetro "ref" não informado');
    const body: unknown = req.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      return fail(res, 400, 'requisicao_invalida', 'JSON inválido');
    const nota = body as Record<string, unknown>;
    const municipality = state.municipalities.get(String(at(nota, 'prestador.codigo_municipio') ?? ''));
    const invalid = invalidField(nota, municipality);
    if (invalid) return fail(res, 400, 'requisicao_invalida', invalid);
    // Strict where silent: the prestador must be the company the token identifies.
    if (
      digits(at(nota, 'prestador.cnpj')) !== company.cnpj ||
      digits(at(nota, 'prestador.inscricao_municipal')) !== digits(company.inscricaoMunicipal)
    )
      return fail(res, 400, 'empresa_nao_habilitada', 'Emitente ainda não habilitado para emissão de NFSe');
    if (municipality && (!municipality.nfse_habilitada || municipality.status_nfse !== 'ativo'))
      return fail(res, 400, 'empresa_nao_habilitada', 'Município sem emissão de NFSe ativa');
    const existing = state.notes.get(ref);
    if (existing && existing.token !== company.token)
      return fail(res, 400, 'requisicao_invalida', 'Referência já utilizada');
    if (existing?.status === 'autorizado')
      return fail(res, 422, 'nfe_autorizada', 'Nota fiscal já autorizada');
    if (existing?.status === 'processando_autorizacao')
      return fail(res, 422, 'em_processamento', 'Nota fiscal em processamento');
    if (existing?.status === 'cancelado') return fail(res, 400, 'nfe_cancelada', 'Nota fiscal já cancelada');
    // New, or a resubmission after erro_autorizacao under the same reference ("Consulta").
    const note: StoredNfse = {
      ref,
      token: company.token,
      body: nota,
      status: 'processando_autorizacao',
      submissions: (existing?.submissions ?? 0) + 1,
      numero: null,
      codigoVerificacao: null,
      erros: [],
      justificativa: null,
    };
    state.notes.set(ref, note);
    decideLater(note);
    res.status(202).json({ cnpj_prestador: company.cnpj, ref, status: note.status });
  });

  const ownNote = (req: Request, res: Response): StoredNfse | undefined => {
    const note = state.notes.get(String(req.params.ref));
    if (!note || note.token !== companyOf(res).token) {
      fail(res, 404, 'nao_encontrado', 'Nota fiscal não encontrada');
      return undefined;
    }
    return note;
  };

  app.get('/v2/nfse/:ref', (req, res) => {
    const note = ownNote(req, res);
    if (note) res.json(view(note, companyOf(res)));
  });

  app.delete('/v2/nfse/:ref', (req, res) => {
    const note = ownNote(req, res);
    if (!note) return;
    const body: unknown = req.body;
    const justificativa =
      body && typeof body === 'object' ? (body as Record<string, unknown>).justificativa : undefined;
    if (typeof justificativa !== 'string')
      return fail(res, 400, 'requisicao_invalida', 'Parâmetro "justificativa" não informado');
    if (justificativa.length < 15 || justificativa.length > 255)
      return fail(
        res,
        400,
        'requisicao_invalida',
        'Parâmetro "justificativa" deve ter entre 15 e 255 caracteres',
      );
    if (note.status === 'cancelado') return fail(res, 400, 'nfe_cancelada', 'Nota fiscal já cancelada');
    if (note.status === 'processando_autorizacao')
      return fail(res, 422, 'em_processamento', 'Nota fiscal em processamento');
    if (note.status !== 'autorizado')
      return fail(res, 400, 'nfe_nao_autorizada', 'Nota fiscal não autorizada não pode ser cancelada');
    note.status = 'cancelado';
    note.justificativa = justificativa;
    res.json({ status: 'cancelado' });
  });

  const HOOK_EVENTS = [
    'nfe',
    'nfse',
    'nfce_contingencia',
    'nfce_correcao_timeout',
    'nfe_recebida',
    'nfse_recebida',
    'inutilizacao',
    'cte',
    'mdfe',
  ];
  const optionalText = (value: unknown): string | null | undefined =>
    value === undefined || value === null ? null : typeof value === 'string' ? value : undefined;

  app.post('/v2/hooks', (req, res) => {
    const company = companyOf(res);
    const body: unknown = req.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      return fail(res, 400, 'requisicao_invalida', 'JSON inválido');
    const hook = body as Record<string, unknown>;
    if (hook.cnpj !== undefined && hook.cpf !== undefined)
      return fail(res, 400, 'requisicao_invalida', 'Os campos "cnpj" e "cpf" são mutuamente excludentes');
    if (typeof hook.event !== 'string' || !HOOK_EVENTS.includes(hook.event))
      return fail(res, 400, 'requisicao_invalida', 'Parâmetro "event" deve ser um evento válido.');
    let url: URL | undefined;
    try {
      url = typeof hook.url === 'string' ? new URL(hook.url) : undefined;
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      return fail(res, 400, 'requisicao_invalida', `URL inválida: ${String(hook.url)}`);
    const cnpj = hook.cnpj === undefined ? null : digits(hook.cnpj);
    if (cnpj !== null && cnpj !== company.cnpj)
      return fail(res, 400, 'requisicao_invalida', 'CNPJ não habilitado para este token');
    const authorization = optionalText(hook.authorization);
    const header = optionalText(hook.authorization_header);
    if (authorization === undefined || header === undefined)
      return fail(res, 400, 'requisicao_invalida', 'Parâmetro "authorization" inválido');
    const existing = [...state.hooks.values()].find(
      (h) => h.token === company.token && h.event === hook.event && h.cnpj === cnpj && h.url === url.href,
    );
    if (existing) return fail(res, 400, 'requisicao_invalida', 'Já existe um gatilho para este evento.');
    const created: FocusHook = {
      id: randomBytes(6).toString('base64url'),
      token: company.token,
      cnpj,
      event: hook.event,
      url: url.href,
      authorization,
      authorization_header: header,
    };
    state.hooks.set(created.id, created);
    res.status(201).json(hookView(created));
  });

  const hookView = (hook: FocusHook) => ({
    id: hook.id,
    url: hook.url,
    authorization: hook.authorization,
    authorization_header: hook.authorization_header,
    event: hook.event,
    cnpj: hook.cnpj,
  });

  const ownHook = (req: Request, res: Response): FocusHook | undefined => {
    const hook = state.hooks.get(String(req.params.id));
    if (!hook || hook.token !== companyOf(res).token) {
      fail(res, 404, 'nao_encontrado', 'Seu gatilho não foi encontrado.');
      return undefined;
    }
    return hook;
  };

  app.get('/v2/hooks/:id', (req, res) => {
    const hook = ownHook(req, res);
    if (hook) res.json(hookView(hook));
  });

  app.delete('/v2/hooks/:id', (req, res) => {
    const hook = ownHook(req, res);
    if (!hook) return;
    state.hooks.delete(hook.id);
    res.json({ ...hookView(hook), deleted: true });
  });

  // "Teste e reenvio de notificações": the note's notice again, to every hook; the hooks it went to.
  app.post('/v2/nfse/:ref/hook', (req, res) => {
    const note = ownNote(req, res);
    if (note) res.json(notify(note).map(hookView));
  });

  app.get('/v2/municipios/:codigo', (req, res) => {
    const found = state.municipalities.get(String(req.params.codigo));
    if (!found) return fail(res, 404, 'nao_encontrado', 'Município não encontrado');
    res.json(Object.fromEntries(Object.entries(found).filter(([key]) => key !== 'items')));
  });

  app.get('/v2/municipios/:codigo/itens_lista_servico/:item', (req, res) => {
    const found = state.municipalities.get(String(req.params.codigo));
    const item = String(req.params.item);
    if (!found || !found.items.includes(item))
      return fail(res, 404, 'nao_encontrado', 'Item da lista de serviço não encontrado');
    res.json({ codigo: item, descricao: `Serviço ${item}`, tax_rate: null });
  });

  app.use((_req: Request, res: Response) => fail(res, 404, 'nao_encontrado', 'Recurso não encontrado'));
  // A body that is not JSON: strict where silent.
  app.use((_err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    fail(res, 400, 'requisicao_invalida', 'JSON inválido');
  });

  const server = http.createServer(app);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
