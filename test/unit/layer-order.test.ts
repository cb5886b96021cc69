import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The README lists the folders in the order the lint enforces; a change to one without the other
 * would teach a newcomer the wrong direction of imports.
 */
describe('the layer order in the README', () => {
  it('is the order .dependency-cruiser.cjs enforces', async () => {
    const config = await readFile(path.join(ROOT, '.dependency-cruiser.cjs'), 'utf8');
    const layers = config.slice(config.indexOf('const LAYERS'), config.indexOf('];'));
    // Each layer is written `['name', 'folder/']`; the entry points' pattern is listed in words.
    const enforced = [...layers.matchAll(/\['[^']+', '([^'\[]+\/)'\]/g)].map((m) => m[1]);
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    const listed = [...readme.matchAll(/^\d+\. `([^`]+\/)`/gm)].map((m) => m[1]);
    expect(enforced).to.have.length.above(10);
    expect(listed).to.deep.equal(enforced);
  });
});
