/**
 * The page's files (`web/` at the package root: index.html, scripts, styles), read once when the server starts.
 * Serving from memory by exact name means no request path ever reaches the file system: no traversal, no
 * symlink surprises, no partial files from an upgrade in progress.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, relative, sep } from 'node:path';

export interface WebAsset {
  readonly body: string;
  readonly type: string;
}

const TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** src/ui and dist/ui are both two levels below the package root. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../web/', import.meta.url));

export function loadWebAssets(root: string = DEFAULT_WEB_ROOT): Map<string, WebAsset> {
  const assets = new Map<string, WebAsset>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const type = TYPES[entry.name.slice(entry.name.lastIndexOf('.'))];
    if (type === undefined) continue;
    assets.set(`/${relative(root, path).split(sep).join('/')}`, { body: readFileSync(path, 'utf8'), type });
  }
  return assets;
}
