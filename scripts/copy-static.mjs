/**
 * The build's second step: tsc compiles TypeScript only, so the stylesheets and browser scripts of
 * `src/<folder>/static/` are copied beside the compiled code, to `dist/src/<folder>/static/`, where
 * `src/ui/assets.ts` looks for them. A folder's old copy goes first, so a deleted file is not served.
 */
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';

const root = new URL('../', import.meta.url);
for (const folder of readdirSync(new URL('src/', root))) {
  const from = new URL(`src/${folder}/static/`, root);
  if (!existsSync(from)) continue;
  const to = new URL(`dist/src/${folder}/static/`, root);
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true });
}
