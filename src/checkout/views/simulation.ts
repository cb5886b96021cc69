/** The test link's simulation page and its result. */
import type { Simulation } from '../../simulate/service.js';
import { html, type SafeHtml } from '../../ui/html.js';
import { layout } from '../layout.js';
import type { PageLocale } from '../locale.js';
import { type LinkView } from '../view-models.js';
import { itemBlock } from './item.js';

/** `{checkout_url}/teste/<id>`: the test link, its state, and the three simulated outcomes. */
export function simulationPage(page: PageLocale, view: LinkView): SafeHtml {
  const { t } = page;
  const { link, item, price, notice } = view;
  const action = page.href(['teste', link.id, 'simulate']);
  const button = (outcome: keyof typeof t.simulation.outcomes, css: string) =>
    html`<form method="post" action="${action}">
      <input type="hidden" name="outcome" value="${outcome}" />
      <button class="${css}" type="submit">${t.simulation.outcomes[outcome]}</button>
    </form>`;
  return layout(
    page,
    t.simulation.title(item.name),
    html`<p class="test">${t.simulation.testBanner}</p>
      ${itemBlock(page, item, price, link.couponCode)}
      <dl class="facts">
        <div>
          <dt>${t.simulation.linkLine}</dt>
          <dd><code>${link.id}</code></dd>
        </div>
        <div>
          <dt>${t.simulation.statusLabel}</dt>
          <dd>
            <strong id="link-status" data-status="${link.status}">${t.linkStatuses[link.status]}</strong>
          </dd>
        </div>
      </dl>
      ${
        notice
          ? html`<p class="notice">${t.sentences[notice]}</p>`
          : html`<h2 id="simulate">${t.simulation.actionsHeading}</h2>
              <div class="actions" role="group" aria-labelledby="simulate">
                ${button('paid', 'ok')}${button('failed', 'bad')}${button('expired', 'neutral')}
              </div>`
      }`,
  );
}

/** What a simulation button did: the event and each webhook's first attempt. */
export function simulationResultPage(page: PageLocale, simulation: Simulation): SafeHtml {
  const { t } = page;
  const { link } = simulation.link;
  const s = t.simulation;
  const rows = simulation.result.webhooks.map(
    (w) =>
      html`<tr>
        <td>${w.destination}</td>
        <td>${w.success ? s.yes : s.no}</td>
        <td>${w.status === 0 ? s.noResponse : w.status}</td>
      </tr>`,
  );
  return layout(
    page,
    s.resultTitle,
    html`<p class="test">${s.resultBanner}</p>
      <h1>${s.resultTitle}</h1>
      <dl class="facts">
        <div>
          <dt>${s.eventSent}</dt>
          <dd><code id="event">${simulation.event}</code></dd>
        </div>
        <div>
          <dt>${s.linkLine}</dt>
          <dd><code>${link.id}</code></dd>
        </div>
        <div>
          <dt>${s.linkNowIs}</dt>
          <dd>
            <strong id="link-status" data-status="${link.status}">${t.linkStatuses[link.status]}</strong>
          </dd>
        </div>
      </dl>
      ${
        rows.length > 0
          ? html`<table>
              <caption>
                ${s.deliveriesCaption}
              </caption>
              <thead>
                <tr>
                  <th scope="col">${s.destination}</th>
                  <th scope="col">${s.success}</th>
                  <th scope="col">${s.httpStatus}</th>
                </tr>
              </thead>
              <tbody>
                ${rows}
              </tbody>
            </table>`
          : html`<p>${s.noWebhooks}</p>`
      }
      <p><a href="${page.href(['teste', link.id])}">${s.back}</a></p>`,
  );
}
