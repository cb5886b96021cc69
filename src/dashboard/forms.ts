/**
 * The parts of the dashboard's forms that more than one area draws: a refused form's problems (the
 * summary above it, each field's sentence under it) and a value shown once with its copy button.
 */
import { flag, html, SafeHtml } from '../ui/html.js';
import type { DashboardLocale } from './locale.js';
import type { ProblemField } from './messages.js';

/**
 * Problems of a form, each field's sentence; '' holds a problem of no one field. The integration
 * and key forms name `ProblemField`s; the link and catalog forms their own fields (`api-messages.ts`).
 */
export type FormProblems = Map<ProblemField | '' | (string & {}), string>;

export function problemSummary(page: DashboardLocale, problems: FormProblems | undefined): SafeHtml | string {
  if (!problems || problems.size === 0) return '';
  return html`<div class="problems" role="alert">
    <p>${page.t.form.problems}</p>
    <ul>
      ${[...problems.values()].map((p) => html`<li>${p}</li>`)}
    </ul>
  </div>`;
}

/**
 * A field's problem under it, and the attributes that tie the field to it (`describedBy` when it
 * has none: the field's own hint).
 */
export function fieldProblem(
  problems: FormProblems | undefined,
  field: ProblemField | (string & {}),
  id: string,
  describedBy?: string,
): { note: SafeHtml | string; attrs: SafeHtml | string } {
  const problem = problems?.get(field);
  if (problem === undefined)
    return { note: '', attrs: describedBy ? html`aria-describedby="${describedBy}"` : '' };
  return {
    note: html`<p class="problem" id="${id}-problem">${problem}</p>`,
    attrs: new SafeHtml(`aria-invalid="true" aria-describedby="${id}-problem"`),
  };
}

/**
 * A value to copy (a link's address): selectable text in a read-only field, with a copy button that
 * `copy.js` shows (without script, the value is still there to select).
 */
export function copyField(
  page: DashboardLocale,
  id: string,
  label: string,
  hint: string,
  value: string,
): SafeHtml {
  const { copy } = page.t;
  return html`<label for="${id}">${label}</label>
    <input type="text" id="${id}" readonly value="${value}" aria-describedby="${id}-hint" />
    <button
      type="button"
      hidden
      class="small"
      data-copy="${id}"
      data-status="${id}-copied"
      data-copied="${copy.done}"
      data-copy-failed="${copy.failed}"
    >
      ${copy.button}
    </button>
    <span id="${id}-copied" aria-live="polite"></span>
    <p class="hint" id="${id}-hint">${hint}</p>`;
}

/** A value shown once (a new signing secret, a new key), announced as it appears, with its copy button. */
export function shownOnce(
  page: DashboardLocale,
  id: string,
  label: string,
  hint: string,
  value: string,
): SafeHtml {
  return html`<div class="secret" role="status">${copyField(page, id, label, hint, value)}</div>`;
}

/** A text input of a form, with its label, its hint and its problem (the field's name is its id). */
export function textField(
  problems: FormProblems | undefined,
  field: { name: string; label: string; value: string; type?: string; hint?: string; inputmode?: string },
): SafeHtml {
  const hintId = field.hint ? `${field.name}-hint` : undefined;
  const problem = fieldProblem(problems, field.name, field.name, hintId);
  return html`<label for="${field.name}">${field.label}</label>
    ${field.hint ? html`<p class="hint" id="${hintId}">${field.hint}</p>` : ''} ${problem.note}
    <input
      type="${field.type ?? 'text'}"
      id="${field.name}"
      name="${field.name}"
      value="${field.value}"
      ${field.inputmode ? html`inputmode="${field.inputmode}"` : ''}
      ${problem.attrs}
    />`;
}

/** A checkbox of a form inside its label (one of a list when several share `name`). */
export function checkbox(field: {
  name: string;
  value: string | number;
  checked: boolean;
  label: SafeHtml | string;
  /** The id of the hint that describes it. */
  hint?: string;
}): SafeHtml {
  return html`<label class="check"
    ><input
      type="checkbox"
      name="${field.name}"
      value="${String(field.value)}"
      ${field.hint ? html`aria-describedby="${field.hint}"` : ''}
      ${flag('checked', field.checked)}
    />
    ${field.label}</label
  >`;
}
