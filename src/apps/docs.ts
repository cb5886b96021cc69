import { createRequire } from 'node:module';
import path from 'node:path';
import express, { Router, type Response } from 'express';
import type { Config } from '../shared/config.js';
import { mountPath } from '../shared/config.js';

export const DOCS_PATH = '/docs';

// The interactive reference is Swagger UI from npm (swagger-ui-dist: prebuilt, no CDN at run time).
const SWAGGER_UI = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const escape = (value: string): string => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Scripts and styles come from this service only; the page may call the API it documents. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; font-src 'self' data:; base-uri 'none'; frame-ancestors 'none'";

function sendHtml(res: Response, body: string): void {
  res
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': CSP,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-cache',
    })
    .send(body);
}

const page = (title: string, body: string): string => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width,initial-scale=1" />
    <title>${escape(title)}</title>
    <link rel="stylesheet" href="${DOCS_PATH}/assets/swagger-ui.css" />
    <link rel="icon" type="image/png" href="${DOCS_PATH}/assets/favicon-32x32.png" />
  </head>
  <body>
    ${body}
  </body>
</html>`;

/**
 * `/docs`: interactive reference pages for both OpenAPI documents, as the service serves them (so
 * they always describe the running version). Public, like the documents themselves.
 */
export function docsRouter(config: Config): Router {
  const router = Router();
  const documents = {
    payments: { title: 'Payments API', url: '/v1/openapi.json' },
    panel: { title: 'Panel API', url: `${mountPath(config.urls.panel).replace(/\/$/, '')}/openapi.json` },
  };
  router.use('/assets', express.static(SWAGGER_UI, { index: false, fallthrough: false, maxAge: '1h' }));
  router.get('/', (_req, res) => {
    sendHtml(
      res,
      page(
        'API reference',
        `<main style="font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto">
      <h1>API reference</h1>
      <ul>
        <li><a href="${DOCS_PATH}/payments">${documents.payments.title}</a> (<code>${escape(documents.payments.url)}</code>)</li>
        <li><a href="${DOCS_PATH}/panel">${documents.panel.title}</a> (<code>${escape(documents.panel.url)}</code>)</li>
      </ul>
    </main>`,
      ),
    );
  });
  for (const [name, doc] of Object.entries(documents)) {
    router.get(`/${name}`, (_req, res) => {
      sendHtml(
        res,
        page(
          `${doc.title} reference`,
          `<div id="swagger-ui" data-url="${escape(doc.url)}"></div>
    <script src="${DOCS_PATH}/assets/swagger-ui-bundle.js"></script>
    <script src="${DOCS_PATH}/init.js"></script>`,
        ),
      );
    });
  }
  // Inline scripts are not allowed by the CSP, so the start-up call is a file of its own.
  router.get('/init.js', (_req, res) => {
    res
      .type('application/javascript')
      .set('Cache-Control', 'no-cache')
      .send(
        "const root = document.getElementById('swagger-ui');\n" +
          'window.ui = SwaggerUIBundle({ url: root.dataset.url, domNode: root, deepLinking: true, tryItOutEnabled: false });\n',
      );
  });
  return router;
}
