import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AxeBuilder } from '@axe-core/playwright';
import { expect } from 'chai';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium; CHROMIUM_PATH points elsewhere (another distribution, macOS). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags for a headless run as root in a container, with nothing fetched from the network. */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Screenshots for a person to look at (git-ignored). */
export const ARTIFACTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');

export const VIEWPORTS = [
  { name: 'phone', width: 375, height: 812 },
  { name: 'desktop', width: 1280, height: 800 },
] as const;

/**
 * The browser, or a failure that says how to get one: a missing Chromium is never a silent skip.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` ` +
        '(Debian/Ubuntu) or set CHROMIUM_PATH to a Chromium or Chrome binary, then run `npm run test:browser` again.',
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
}

/** A browser profile whose Accept-Language is `locale` (as a Brazilian or an English browser sends it). */
export function browserIn(browser: Browser, locale: 'pt-BR' | 'en-US'): Promise<BrowserContext> {
  return browser.newContext({ locale, viewport: VIEWPORTS[1] });
}

/** Every axe-core rule (WCAG 2.0/2.1 A and AA and best practices) on the page as it is now. */
async function axeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.map(
    (v) =>
      `${v.id} (${v.impact ?? 'n/a'}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
}

/*
 * Code that runs in the page is written as strings: the project compiles without the DOM library,
 * so each result is checked here instead.
 */

/** Pixels the document is wider than the window: anything above 0 scrolls sideways. */
async function horizontalOverflow(page: Page): Promise<number> {
  const overflow: unknown = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
  if (typeof overflow !== 'number') throw new Error(`page width check returned ${String(overflow)}`);
  return overflow;
}

/** The focused element (tag#id) and whether it is drawn with an outline of at least 2 px; null for none. */
const FOCUSED = `(() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const style = getComputedStyle(el);
  return {
    label: el.tagName.toLowerCase() + (el.id ? '#' + el.id : ''),
    visible: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
  };
})()`;

const isFocusReport = (value: unknown): value is { label: string; visible: boolean } =>
  typeof value === 'object' &&
  value !== null &&
  'label' in value &&
  typeof value.label === 'string' &&
  'visible' in value &&
  typeof value.visible === 'boolean';

/**
 * The checks every buyer page passes, at 375 px and at 1280 px: the layout (language, viewport,
 * one main landmark), no axe violation, nothing wider than the screen. Leaves a screenshot of each.
 */
export async function checkPage(page: Page, name: string, lang: 'pt-BR' | 'en'): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true });
  expect(await page.getAttribute('html', 'lang'), `${name}: <html lang>`).to.equal(lang);
  expect(await page.locator('meta[name="viewport"]').count(), `${name}: viewport meta`).to.equal(1);
  expect(await page.locator('main').count(), `${name}: one main landmark`).to.equal(1);
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    const where = `${name} (${lang}, ${viewport.width} px)`;
    expect(await axeViolations(page), `${where}: axe violations`).to.deep.equal([]);
    expect(await horizontalOverflow(page), `${where}: scrolls sideways by`).to.be.at.most(0);
    await page.screenshot({
      path: path.join(ARTIFACTS, `${name}.${lang}.${viewport.width}.png`),
      fullPage: true,
    });
  }
  await page.setViewportSize({ width: VIEWPORTS[1].width, height: VIEWPORTS[1].height });
}

/**
 * Walks the page with the Tab key and returns every focused element that shows no outline
 * (WCAG 2.4.7): each should be drawn with the focus ring.
 */
export async function focusWithoutOutline(page: Page, presses: number): Promise<string[]> {
  const missing: string[] = [];
  await page.locator('body').focus();
  for (let i = 0; i < presses; i++) {
    await page.keyboard.press('Tab');
    const found: unknown = await page.evaluate(FOCUSED);
    if (found === null) continue;
    if (!isFocusReport(found)) throw new Error(`focus check returned ${JSON.stringify(found)}`);
    if (!found.visible) missing.push(found.label);
  }
  return missing;
}
