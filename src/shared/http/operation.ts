/**
 * One declaration per endpoint: method, path, request shape and documented responses. From it come
 * the Express route (celebrate validation, a handler typed by the shape), the 405 of unsupported
 * methods, and the endpoint's OpenAPI operation (request half generated from the same Joi schemas).
 */
import { celebrate, Modes, Segments, type SchemaOptions } from 'celebrate';
import type Joi from 'joi';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { MethodNotAllowedError } from '../errors.js';
import type { JsonSchema } from '../openapi/types.js';
import type { Output, Typed } from '../validation/typed.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** What a request may carry; each part is an object schema (the body may be any schema). */
export interface RequestShape {
  params?: Typed<object, Joi.ObjectSchema>;
  query?: Typed<object, Joi.ObjectSchema>;
  headers?: Typed<object, Joi.ObjectSchema>;
  body?: Typed<unknown>;
}

type Part<S> = S extends Typed<unknown> ? Output<S> : undefined;

/** The validated (and converted) request a handler receives. */
export interface RequestInput<R extends RequestShape> {
  params: Part<R['params']>;
  query: Part<R['query']>;
  headers: Part<R['headers']>;
  body: Part<R['body']>;
}

export interface Operation<R extends RequestShape = RequestShape> {
  method: HttpMethod;
  /** OpenAPI path template relative to the app's mount point, e.g. `/v1/payment-links/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Served without credentials (`security: []`). */
  public?: boolean;
  request: R;
  responses: Record<string, JsonSchema>;
}

/** Declares an operation; the identity function keeps `R` precise for `route`. */
export const operation = <R extends RequestShape>(op: Operation<R>): Operation<R> => op;

export interface Route {
  operation: Operation;
  handlers: RequestHandler[];
  /** A tighter window this route counts toward besides its API's own (payments API writes). */
  rateLimit?: 'writes';
  /** The payments API also lets read-only keys call it (the events API). */
  readOnlyKeys?: boolean;
}

export type Handler<R extends RequestShape> = (input: RequestInput<R>, res: Response) => Promise<void> | void;

export interface RouteOptions {
  /** Runs before validation: refusals that do not depend on the request's content. */
  before?: RequestHandler[];
  rateLimit?: Route['rateLimit'];
  readOnlyKeys?: boolean;
}

// Every field is checked, unknown ones included, and every problem of every part is reported at once.
const JOI_OPTIONS = { abortEarly: false, convert: true };

// No body at all reads as an empty JSON object, so the caller hears which fields are missing.
const emptyBodyAsObject: RequestHandler = (req, _res, next) => {
  req.body ??= {};
  next();
};

// The parts in the order celebrate validates them.
const PARTS = [
  ['headers', Segments.HEADERS],
  ['params', Segments.PARAMS],
  ['query', Segments.QUERY],
  ['body', Segments.BODY],
] as const;

function validator(request: RequestShape): RequestHandler | undefined {
  const rules: SchemaOptions = {};
  const parts: Array<{ name: (typeof PARTS)[number][0]; schema: Joi.Schema }> = [];
  for (const [name, segment] of PARTS) {
    const schema = request[name];
    if (!schema) continue;
    rules[segment] = schema;
    parts.push({ name, schema });
  }
  if (parts.length === 0) return undefined;
  // FULL reports every part's problems at once, but builds an Error (a stack trace) for every
  // request, valid or not; with one part PARTIAL reports the same and builds one only on failure.
  const celebrated = celebrate(rules, JOI_OPTIONS, { mode: parts.length > 1 ? Modes.FULL : Modes.PARTIAL });
  // A valid request is validated here, synchronously, with the same schemas and options: celebrate
  // validates asynchronously (a promise per part) and builds its error before knowing there is
  // one. Only a request with a problem goes to celebrate, which validates it again and reports it
  // as it always has. Like celebrate, a body is not validated on GET and HEAD.
  return (req, res, next) => {
    const values: Array<[string, unknown]> = [];
    for (const { name, schema } of parts) {
      if (name === 'body' && (req.method === 'GET' || req.method === 'HEAD')) continue;
      const { error, value } = schema.validate(req[name], JOI_OPTIONS);
      if (error) {
        celebrated(req, res, next);
        return;
      }
      if (value != null) values.push([name, value]);
    }
    for (const [name, value] of values) Object.defineProperty(req, name, { value });
    next();
  };
}

function inputOf<R extends RequestShape>(req: Request): RequestInput<R> {
  // celebrate has replaced each validated part of the request with the value its schema produced.
  const input: unknown = { params: req.params, query: req.query, headers: req.headers, body: req.body };
  return input as RequestInput<R>;
}

/** An operation with its handler: validation first, then the handler with the typed input. */
export function route<R extends RequestShape>(
  op: Operation<R>,
  handle: Handler<R>,
  options: RouteOptions = {},
): Route {
  const validate = validator(op.request);
  const run: RequestHandler = async (req, res) => {
    await handle(inputOf<R>(req), res);
  };
  return {
    operation: op,
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    ...(options.readOnlyKeys ? { readOnlyKeys: true } : {}),
    handlers: [
      ...(options.before ?? []),
      ...(op.request.body ? [emptyBodyAsObject] : []),
      ...(validate ? [validate] : []),
      run,
    ],
  };
}

/** `/v1/payment-links/{id}/cancel` → a matcher of the request paths it names. */
export const pathMatcher = (template: string): RegExp =>
  new RegExp(
    `^${template
      .split(/\{[^}]+\}/)
      .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
      .join('[^/]+')}$`,
  );

/** Whether a request is one of `routes` (method and path), for a middleware that runs before routing. */
export function routeMatcher(routes: Route[]): (req: Request) => boolean {
  const matchers = routes.map((r) => ({
    method: r.operation.method.toUpperCase(),
    path: pathMatcher(r.operation.path),
  }));
  return (req) => {
    const path = `${req.baseUrl}${req.path}`;
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    return matchers.some((m) => m.method === method && m.path.test(path));
  };
}

/** `/integrations/{id}` → `/integrations/:id` */
export const expressPath = (template: string): string => template.replace(/\{([^}]+)\}/g, ':$1');

const paramCount = (template: string): number => (template.match(/\{/g) ?? []).length;

/**
 * Mounts routes on a router. Paths with fewer parameters go first, so `/integrations/alerts` is
 * matched before `/integrations/{id}`; after each path's methods, any other method gets 405 with
 * `Allow` (OPTIONS gets 204 with the same header).
 */
export function mountRoutes(router: Router, routes: Route[]): void {
  const byPath = new Map<string, Route[]>();
  for (const r of routes) byPath.set(r.operation.path, [...(byPath.get(r.operation.path) ?? []), r]);
  const paths = [...byPath.keys()].sort((a, b) => paramCount(a) - paramCount(b));
  for (const path of paths) {
    const onPath = byPath.get(path) ?? [];
    const express = expressPath(path);
    for (const r of onPath) router[r.operation.method](express, ...r.handlers);
    allowOnly(
      router,
      express,
      onPath.map((r) => r.operation.method),
    );
  }
}

/**
 * After a path's routes: any other method gets 405 with `Allow` (OPTIONS gets 204 with the same
 * header). The error goes to the app's error middleware, so each surface answers in its own format.
 */
export function allowOnly(router: Router, expressPath: string, methods: string[]): void {
  const upper = methods.map((m) => m.toUpperCase());
  const allow = [...new Set([...upper, ...(upper.includes('GET') ? ['HEAD'] : []), 'OPTIONS'])].join(', ');
  router.all(expressPath, (req, res) => {
    res.setHeader('Allow', allow);
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    throw new MethodNotAllowedError(`${req.method} is not supported on this path; allowed: ${allow}`);
  });
}

/** Routers are case-sensitive, as the documents write paths: /v1/OPENAPI.JSON names nothing. */
export const caseSensitiveRouter = (): Router => Router({ caseSensitive: true });
