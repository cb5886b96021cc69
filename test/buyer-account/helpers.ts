import { randomInt } from 'node:crypto';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import type { Receiver } from '../events/helpers.js';
import type { TestApp } from '../helpers/app.js';
import { noteSecret } from '../helpers/secrets.js';
import { payPath } from '../checkout/helpers.js';
import { smtp } from '../emails/helpers.js';
import { eventually } from '../helpers/eventually.js';

export interface Answer {
  status: number;
  body: string;
  headers: Headers;
}

/**
 * A browser as far as the buyer's page cares: it keeps the cookies it is given (by name, whatever
 * their path: every request here goes under the page) and follows no redirect by itself.
 */
export class Browser {
  readonly cookies = new Map<string, string>();

  /**
   * `ip`: the client address the page sees (X-Forwarded-For from loopback, which TRUST_PROXY trusts);
   * by default one of its own, so the per-IP limit of one test does not reach another's.
   */
  constructor(
    private readonly app: TestApp,
    private readonly ip = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`,
  ) {}

  private async send(
    method: string,
    path: string,
    init: { body?: string; headers?: Record<string, string> },
  ) {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(`${this.app.http.baseUrl}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        'x-forwarded-for': this.ip,
        ...(cookie ? { cookie } : {}),
        ...(init.body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...init.headers,
      },
      ...(init.body !== undefined ? { body: init.body } : {}),
    });
    for (const set of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = set.split(';');
      const [name = '', value = ''] = pair.split('=');
      const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a)) || value === '';
      if (expired) this.cookies.delete(name);
      else {
        noteSecret(value);
        this.cookies.set(name, value);
      }
    }
    return { status: res.status, body: await res.text(), headers: res.headers } satisfies Answer;
  }

  get(path: string, headers: Record<string, string> = {}): Promise<Answer> {
    return this.send('GET', payPath(this.app, path), { headers });
  }

  post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
    return this.send('POST', payPath(this.app, path), {
      body: new URLSearchParams(fields).toString(),
      headers,
    });
  }
}

/** The CSRF token of the (first) form of a page. */
export function csrfOf(page: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
  if (!token) throw new Error(`no CSRF token on the page: ${page.slice(0, 300)}`);
  return token;
}

/** Asks for a link from the sign-in page as a browser would; returns the answer. */
export async function askForLink(browser: Browser, email: string, lang = 'pt-BR'): Promise<Answer> {
  const form = await browser.get(`/account?lang=${lang}`);
  expect(form.status).to.equal(200);
  return browser.post(`/account/link?lang=${lang}`, { _csrf: csrfOf(form.body), email });
}

/** The token of the sign-in e-mail that arrived for `email` (the `n`-th, counting from 1). */
export async function signInToken(email: string, nth = 1): Promise<string> {
  const subject = /Minhas compras|My purchases/;
  const mail = await eventually(
    () =>
      smtp()
        .to(email)
        .filter((m) => subject.test(m.parsed.subject ?? ''))[nth - 1],
    30_000,
    `sign-in e-mail #${nth} for ${email}`,
  );
  const url = /https?:\/\/\S+\/account\/sign-in\?token=([0-9A-Za-z]+)/.exec(mail?.parsed.text ?? '');
  if (!url?.[1]) throw new Error(`no sign-in link in: ${mail?.parsed.text ?? ''}`);
  noteSecret(url[1]);
  return url[1];
}

/** Opens the link's page and presses its button: the answer to the POST. */
export async function useLink(browser: Browser, token: string): Promise<Answer> {
  const page = await browser.get(`/account/sign-in?token=${token}`);
  expect(page.status).to.equal(200);
  return browser.post('/account/sign-in', { _csrf: csrfOf(page.body), token });
}

/** Signs a browser in from scratch: asks for the link, reads the e-mail, uses it. */
export async function signIn(app: TestApp, email: string): Promise<Browser> {
  const browser = new Browser(app);
  expect((await askForLink(browser, email)).status).to.equal(200);
  const used = await useLink(browser, await signInToken(email));
  expect(used.status, used.body.slice(0, 300)).to.equal(303);
  return browser;
}

/** The deliveries a receiver got, each verified with the integration's plain secret (Standard Webhooks). */
export function verifiedEvents<T>(receiver: Receiver, secret: string): T[] {
  const webhook = new Webhook(Buffer.from(secret).toString('base64'));
  return receiver.requests.map((r) => webhook.verify(r.body, r.headers as Record<string, string>) as T);
}
