import { expect } from 'chai';
import { getBoletoInfo, isValidBoleto } from '@brazilian-utils/brazilian-utils';
import { validarBoleto } from '@mrmgomes/boleto-utils';
import { hasError, isStaticPix, parsePix, type PixStaticObject } from 'pix-utils';
import type { SeedResult } from '../../src/cli/seed.js';
import { mountPath } from '../../src/shared/config.js';
import { signGatewayBody } from '../../src/gateways/gateway-signature.js';
import type { TestApp } from '../helpers/app.js';
import type { HttpResponse } from '../helpers/http.js';

export interface WireLink {
  id: string;
  status: string;
  url: string;
  short_url: string;
  single_use: boolean;
  external_reference: string | null;
  tracking?: Record<string, string | null>;
  order: {
    code: string;
    status: string;
    amount: string;
    payment_method: string | null;
    paid_at: string | null;
  } | null;
}

/** Path of a buyer page under the configured `{checkout_url}`. */
export const payPath = (app: TestApp, rest: string): string =>
  `${mountPath(app.ctx.config.urls.checkout)}${rest}`;

export async function createLink(
  app: TestApp,
  key: string,
  body: Record<string, unknown>,
): Promise<WireLink> {
  const res = await app.http.post<WireLink>('/v1/payment-links', { auth: key, body });
  expect(res.status, res.text).to.equal(201);
  return res.body;
}

export const activeOffer = (tenant: SeedResult) => {
  const offer = tenant.offers.find((o) => o.status === 'active');
  if (!offer) throw new Error('seed has no active offer');
  return offer;
};

export const activePlan = (tenant: SeedResult) => {
  const plan = tenant.plans.find((p) => p.status === 'active');
  if (!plan) throw new Error('seed has no active plan');
  return plan;
};

/** A link's own address, relative to the app (its url carries `{checkout_url}`). */
export function pathOf(app: TestApp, url: string): string {
  const u = new URL(url);
  const base = new URL(app.ctx.config.urls.checkout);
  return `${mountPath(base.toString())}${u.pathname.slice(mountPath(base.toString()).length)}${u.search}`;
}

export function postForm(
  app: TestApp,
  path: string,
  fields: Record<string, string>,
): Promise<HttpResponse<string>> {
  return app.http.post<string>(path, {
    rawBody: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

/** Path part of a form `action` or link on a page. */
export const actionPath = (app: TestApp, action: string): string =>
  pathOf(app, action.replace(/&amp;/g, '&'));

/** Every address a page renders: href, action and src attribute values. */
export function renderedUrls(page: string): string[] {
  return [...page.matchAll(/\b(?:href|action|src)="([^"]*)"/g)].map((m) =>
    (m[1] ?? '').replace(/&amp;/g, '&'),
  );
}

export function formActions(page: string): string[] {
  return [...page.matchAll(/<form[^>]*action="([^"]*)"/g)].map((m) => m[1] ?? '');
}

export function signedCallback(
  app: TestApp,
  body: unknown,
  secret = app.ctx.config.gatewayWebhookSecret ?? '',
): Promise<HttpResponse> {
  const raw = JSON.stringify(body);
  return app.http.post(payPath(app, '/gateway/callback'), {
    rawBody: raw,
    headers: { 'content-type': 'application/json', 'x-gateway-signature': signGatewayBody(secret, raw) },
  });
}

export interface Envelope {
  id: string;
  type: string;
  livemode: boolean;
  test: boolean;
  sandbox: boolean;
  data: {
    order: {
      code: string;
      status: string;
      amount: string;
      payment_method: string | null;
      paid_at: string | null;
    } | null;
    customer: Record<string, string | null>;
    product: { id: number; name: string };
    offer?: Record<string, unknown>;
    plan?: Record<string, unknown>;
    subscription?: { id: number; status: string; current_period_end: string } | null;
    purchase: {
      tracking: { external_reference: string | null };
      payment_link: {
        code: string;
        external_reference: string | null;
        metadata: Record<string, string>;
      } | null;
    };
  };
}

/** A Pix copia e cola as a bank app would read it (pix-utils checks its fields and CRC16). */
export function readStaticPix(copyPaste: string): PixStaticObject {
  const parsed = parsePix(copyPaste);
  if (hasError(parsed)) throw new Error(`pix-utils refused ${copyPaste}: ${parsed.message}`);
  if (!isStaticPix(parsed)) throw new Error(`not a static BR Code: ${copyPaste}`);
  return parsed;
}

/** What @mrmgomes/boleto-utils' validarBoleto returns (its bundled types misname the 2025 date). */
interface BoletoReading {
  sucesso: boolean;
  mensagem: string;
  tipoBoleto: string;
  codigoBarras: string;
  valor: number;
  /** The due date by the first factor cycle, and by the one that restarted on 2025-02-22. */
  vencimento: Date;
  vencimentoComNovoFator2025: Date;
}

const isBoletoReading = (value: unknown): value is BoletoReading =>
  typeof value === 'object' &&
  value !== null &&
  'sucesso' in value &&
  typeof value.sucesso === 'boolean' &&
  (!value.sucesso ||
    ('codigoBarras' in value &&
      typeof value.codigoBarras === 'string' &&
      'valor' in value &&
      typeof value.valor === 'number' &&
      'vencimento' in value &&
      value.vencimento instanceof Date &&
      'vencimentoComNovoFator2025' in value &&
      value.vencimentoComNovoFator2025 instanceof Date));

/** A linha digitável as @mrmgomes/boleto-utils reads it (field check digits, barcode, amount, due date). */
export function readBoletoLine(line: string): BoletoReading {
  const read: unknown = validarBoleto(line);
  if (!isBoletoReading(read))
    throw new Error(`unexpected answer from validarBoleto: ${JSON.stringify(read)}`);
  return read;
}

/**
 * A boleto as two independent validators read it: brazilian-utils checks every check digit (the
 * general one by the central bank's rule) and reads amount and due date; @mrmgomes/boleto-utils
 * checks the line's field digits and turns it back into the barcode. Fails when they disagree
 * with each other or with `expected`.
 */
export function checkBoleto(
  boleto: { digitable_line: string; barcode: string; due_date: string },
  expected: { cents: number },
): void {
  expect(isValidBoleto(boleto.digitable_line), boleto.digitable_line).to.equal(true);
  const info = getBoletoInfo(boleto.digitable_line, {
    referenceDate: new Date(`${boleto.due_date}T12:00:00Z`),
  });
  expect(info?.amount).to.equal(expected.cents);
  expect(info?.expirationDate?.toISOString().slice(0, 10)).to.equal(boleto.due_date);
  const read = readBoletoLine(boleto.digitable_line);
  expect(read.sucesso, read.mensagem).to.equal(true);
  expect(read.codigoBarras).to.equal(boleto.barcode);
  expect(read.valor).to.equal(expected.cents / 100);
  const due = boleto.due_date >= '2025-02-22' ? read.vencimentoComNovoFator2025 : read.vencimento;
  expect(due.toISOString().slice(0, 10)).to.equal(boleto.due_date);
}
