/**
 * Words that follow a count, chosen by the language's own plural rules (`Intl.PluralRules`, CLDR):
 * `one` and `other` in our languages, and any other category a later language needs.
 */

/**
 * The forms of one message: `other` always, the language's other categories where they differ, and
 * `=0`, as in ICU messages, where zero reads apart from its category (CLDR counts 0 as `one` in
 * Portuguese).
 */
export type PluralForms = Partial<Record<Intl.LDMLPluralRule | '=0', string>> & { other: string };

const rules = new Map<string, Intl.PluralRules>();

/** The form of `forms` that `count` takes in `locale`. */
export function plural(locale: string, count: number, forms: PluralForms): string {
  if (count === 0 && forms['=0'] !== undefined) return forms['=0'];
  let rule = rules.get(locale);
  if (!rule) {
    rule = new Intl.PluralRules(locale);
    rules.set(locale, rule);
  }
  return forms[rule.select(count)] ?? forms.other;
}
