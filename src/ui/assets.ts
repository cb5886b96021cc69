/**
 * The stylesheets and browser scripts of a surface, kept as files in `static/` folders (the shared
 * ones in `src/ui/static/`, a surface's own beside its code) and read once, at start. Each is served
 * under a name that carries a hash of its content, `copy.3f2a9c1e07b4.js`, so a browser keeps it for
 * a year without asking again: a changed file is a new address. The plain name (`copy.js`) is
 * served too, revalidated on each use, for pages rendered before a deploy.
 *
 * `npm run build` copies the folders beside the compiled code (`scripts/copy-static.mjs`), so the
 * compiled service and `npm start` (the sources through tsx) read them the same way.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router } from 'express';
import { NotFoundError } from '../shared/errors.js';
import { allowOnly } from '../shared/http/operation.js';

/** The files every surface serves: the shared base stylesheet and the copy buttons' script. */
export const UI_STATIC = new URL('./static/', import.meta.url);

const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

/**
 * A static folder beside the code; under a `dist/` that tsc built alone (the benchmarks build so),
 * where nothing copied the folders, the sources' own.
 */
function located(folder: URL): string {
  const dir = fileURLToPath(folder);
  if (existsSync(dir)) return dir;
  const compiled = `${path.sep}dist${path.sep}src${path.sep}`;
  const at = dir.lastIndexOf(compiled);
  const source =
    at < 0 ? dir : `${dir.slice(0, at)}${path.sep}src${path.sep}${dir.slice(at + compiled.length)}`;
  if (!existsSync(source)) throw new Error(`No static files at ${dir}`);
  return source;
}

interface StaticFile {
  hashed: string;
  type: string;
  body: Buffer;
}

export class Assets {
  private readonly byName = new Map<string, StaticFile>();
  private readonly byHashed = new Map<string, StaticFile>();

  /** Reads every file of `folders` (file URLs ending in `/`); a name may appear in one folder only. */
  constructor(folders: URL[]) {
    for (const folder of folders) {
      const dir = located(folder);
      for (const name of readdirSync(dir).sort()) {
        const ext = path.extname(name);
        const type = TYPES[ext];
        if (type === undefined) continue;
        if (this.byName.has(name)) throw new Error(`Two static files named ${name}`);
        const body = readFileSync(path.join(dir, name));
        const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
        const file = { hashed: `${path.basename(name, ext)}.${hash}${ext}`, type, body };
        this.byName.set(name, file);
        this.byHashed.set(file.hashed, file);
      }
    }
  }

  /** The address of `name` (`copy.js`) relative to the surface's root: `assets/copy.<hash>.js`. */
  path(name: string): string {
    const file = this.byName.get(name);
    if (!file) throw new Error(`No static file ${name}`);
    return `assets/${file.hashed}`;
  }

  /** `GET /assets/<name>`, under the surface's mount; any other method is a 405, any other name a 404. */
  router(): Router {
    const router = Router({ caseSensitive: true });
    router.get('/assets/:file', (req, res) => {
      const name = String(req.params.file);
      const hashed = this.byHashed.get(name);
      const file = hashed ?? this.byName.get(name);
      if (!file) throw new NotFoundError(`No static file ${name}`);
      res
        .type(file.type)
        .set({
          'Cache-Control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
          'X-Content-Type-Options': 'nosniff',
        })
        .send(file.body);
    });
    allowOnly(router, '/assets/:file', ['get']);
    return router;
  }
}
