/** The company's API keys: masked, with the owner's create form and each key's revoke button. */
import type { ApiKeyRow } from '../../keys/repository.js';
import { html, type SafeHtml } from '../../ui/html.js';
import { shownOnce } from '../forms.js';
import type { DashboardLocale } from '../locale.js';
import { badge, listTable, rowConfirm } from '../lists.js';
import type { DoneKey } from '../messages.js';
import { doneNotice, layout, postForm, type Chrome } from '../page.js';

export function keysPage(
  page: DashboardLocale,
  chrome: Chrome,
  data: { keys: ApiKeyRow[]; done?: DoneKey | undefined; newKey?: string | undefined },
): SafeHtml {
  const { t } = page;
  const tk = t.keys;
  const owner = chrome.principal.role === 'owner';
  const rows = data.keys.map(
    (key) =>
      html`<tr>
        <td data-label="${tk.name}">${key.name}</td>
        <td data-label="${tk.kind}">${tk.kinds[key.kind]}</td>
        <td data-label="${tk.mode}">${key.test ? t.orders.test : t.orders.live}</td>
        <td data-label="${tk.key}"><code>${key.prefix}…${key.last4}</code></td>
        <td data-label="${tk.lastUsed}">${key.lastUsedAt ? page.dateTime(key.lastUsedAt) : tk.never}</td>
        <td data-label="${tk.state}">
          ${key.revokedAt ? badge('idle', tk.revoked) : badge('good', tk.active)}
        </td>
        ${
          owner
            ? html`<td data-label="${t.orders.action}">
                ${
                  key.revokedAt
                    ? ''
                    : rowConfirm(page, `/keys/${key.id}/revoke`, {
                        text: tk.revoke,
                        label: tk.revokeLabel(key.name),
                      })
                }
              </td>`
            : ''
        }
      </tr>`,
  );
  const create = owner
    ? html`<section aria-labelledby="create-title" class="actions-one">
        <h2 id="create-title">${tk.create}</h2>
        ${postForm(
          page,
          chrome,
          '/keys',
          html`<label for="key-name">${tk.name}</label>
            <input type="text" id="key-name" name="name" required maxlength="100" />
            <label for="key-kind">${tk.kind}</label>
            <select id="key-kind" name="kind">
              <option value="read_only">${tk.kinds.read_only}</option>
              <option value="payments">${tk.kinds.payments}</option>
            </select>
            <label for="key-mode">${tk.mode}</label>
            <select id="key-mode" name="mode">
              <option value="test">${t.orders.test}</option>
              <option value="live">${t.orders.live}</option>
            </select>
            <button type="submit">${tk.createSubmit}</button>`,
        )}
      </section>`
    : html`<p class="notice">${chrome.principal.role === 'read_only' ? t.readOnly : tk.ownerOnly}</p>`;
  return layout(
    page,
    tk.title,
    html`<h1>${tk.title}</h1>
      ${doneNotice(page, data.done)}
      ${data.newKey ? shownOnce(page, 'new-key', tk.newKey, tk.newKeyHint, data.newKey) : ''}
      ${listTable(
        tk.title,
        tk.none,
        [tk.name, tk.kind, tk.mode, tk.key, tk.lastUsed, tk.state, owner && t.orders.action],
        rows,
      )}
      ${create}`,
    chrome,
  );
}
