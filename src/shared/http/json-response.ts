import type { Express, Response } from 'express';

/**
 * `res.json` of an app, answering the common case itself: no ETag, no conditional request, no
 * Content-Type or Transfer-Encoding set before, a status with a body. It sends the same status,
 * headers (`Content-Type: application/json; charset=utf-8`, `Content-Length`) and bytes as
 * Express, which for the same response looks its settings up again, parses back the Content-Type
 * it has just set to add the charset, asks whether the request is fresh, and copies any body of
 * 1000 characters or more into a Buffer that Node then writes apart from the headers. Here the
 * body stays a string, so Node writes headers and body in one piece. Anything else goes to
 * Express's own `res.json`.
 */
export function answerJsonDirectly(app: Express): void {
  const express = app.response.json;
  // Read when the first response is sent, not now: the app's settings are not all set yet.
  const plainSettings = (res: Response): boolean =>
    !res.app.get('json replacer') &&
    !res.app.get('json spaces') &&
    !res.app.get('json escape') &&
    !res.app.get('etag fn');
  let plain: boolean | undefined;
  app.response.json = function json(this: Response, body?: unknown): Response {
    plain ??= plainSettings(this);
    const { headers } = this.req;
    const text = JSON.stringify(body) as string | undefined;
    if (
      !plain ||
      text === undefined ||
      this.statusCode === 204 ||
      this.statusCode === 205 ||
      this.statusCode === 304 ||
      headers['if-none-match'] !== undefined ||
      headers['if-modified-since'] !== undefined ||
      this.hasHeader('Content-Type') ||
      this.hasHeader('Transfer-Encoding') ||
      this.hasHeader('ETag')
    ) {
      return express.call(this, body);
    }
    this.setHeader('Content-Type', 'application/json; charset=utf-8');
    this.setHeader('Content-Length', String(Buffer.byteLength(text)));
    if (this.req.method === 'HEAD') this.end();
    else this.end(text, 'utf8');
    return this;
  };
}
