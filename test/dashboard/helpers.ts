import { expect } from 'chai';
import type pg from 'pg';
import type { TestApp } from '../helpers/app.js';
import { noteSecret } from '../helpers/secrets.js';

export interface Answer {
  status: number;
  location: string | null;
  headers: Headers;
  text: string;
}

/** A dashboard session: its cookie and its forms' CSRF token. */
export interface Session {
  cookie: string;
  csrf: string;
}

/** A request to the dashboard as a browser sends it (a form is urlencoded; redirects are not followed). */
export async function send(
  app: TestApp,
  method: 'GET' | 'POST',
  path: string,
  options: { session?: Session; form?: Record<string, string | string[]> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.session) headers.cookie = options.session.cookie;
  let body: string | undefined;
  if (options.form) {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(options.form)) {
      for (const one of Array.isArray(value) ? value : [value]) params.append(name, one);
    }
    if (options.session && !params.has('_csrf')) params.set('_csrf', options.session.csrf);
    body = params.toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const res = await fetch(`${app.url}/dashboard${path}`, {
    method,
    headers,
    redirect: 'manual',
    ...(body !== undefined ? { body } : {}),
  });
  return {
    status: res.status,
    location: res.headers.get('location'),
    headers: res.headers,
    text: await res.text(),
  };
}

/** Signs in with `credential` (a panel token or a read-only key) and reads the CSRF token of the home. */
export async function signIn(app: TestApp, credential: string): Promise<Session> {
  const answer = await fetch(`${app.url}/dashboard/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ credential }).toString(),
    redirect: 'manual',
  });
  expect(answer.status).to.equal(303);
  const cookie = answer.headers.getSetCookie()[0]?.split(';')[0] ?? '';
  noteSecret(cookie.split('=')[1] ?? '');
  const home = await send(app, 'GET', '/', { session: { cookie, csrf: '' } });
  expect(home.status, home.text).to.equal(200);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(home.text)?.[1];
  expect(csrf, 'a CSRF token in the page').to.be.a('string');
  return { cookie, csrf: csrf ?? '' };
}

/** The page's text without tags and with its spaces (NBSP included) made plain: what a reader reads. */
export const readable = (page: string): string =>
  page
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/[\s\u00a0]+/g, ' ');

export interface Timed {
  text: string;
  start: number;
  end: number;
}

/**
 * Every statement `pool` runs until `stop()`, with when it was sent and when its answer came back.
 * Only the own property is set, so deleting it leaves pg's `Pool.prototype.query` in place again.
 */
export function recordStatements(pool: pg.Pool): { taken: Timed[]; stop(): void } {
  const original: unknown = Reflect.get(pool, 'query');
  if (typeof original !== 'function') throw new Error('pg.Pool has no query method');
  const taken: Timed[] = [];
  Reflect.set(pool, 'query', (...args: unknown[]): unknown => {
    const start = performance.now();
    const first = args[0];
    const text =
      typeof first === 'string'
        ? first
        : typeof first === 'object' && first !== null
          ? String(Reflect.get(first, 'text'))
          : '';
    const answer: unknown = Reflect.apply(original, pool, args);
    if (!(answer instanceof Promise)) return answer;
    return answer.finally(() => taken.push({ text, start, end: performance.now() }));
  });
  return { taken, stop: () => Reflect.deleteProperty(pool, 'query') };
}
