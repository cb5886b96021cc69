import { html, SafeHtml } from '../../ui/html.js';
import type { DashboardLocale } from '../locale.js';
import type { DoneKey } from '../messages.js';
import { doneNotice, layout } from '../page.js';

/** The sign-in form: a panel token or a read-only key, never kept in the browser. */
export function signInPage(page: DashboardLocale, options: { refused?: boolean; done?: DoneKey }): SafeHtml {
  const { t } = page;
  return layout(
    page,
    t.signIn.title,
    html`<h1>${t.signIn.title}</h1>
      ${doneNotice(page, options.done)}
      ${options.refused ? html`<p class="notice" role="alert" id="refused">${t.signIn.refused}</p>` : ''}
      <p>${t.signIn.intro}</p>
      <form method="post" action="${page.href('/sign-in')}">
        <label for="credential">${t.signIn.credential}</label>
        <input
          type="password"
          id="credential"
          name="credential"
          autocomplete="off"
          required
          aria-describedby="credential-hint${options.refused ? ' refused' : ''}"
          ${options.refused ? new SafeHtml('aria-invalid="true"') : ''}
        />
        <p class="hint" id="credential-hint">${t.signIn.hint}</p>
        <button type="submit">${t.signIn.submit}</button>
      </form>`,
  );
}
