// Vivace's own version, the "version" of its package.json, read once when this module loads: /v1/info
// and /v1/status report it (and SELECT version() should), never DuckDB's.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest package.json named vivace above this file: lib/protocol from source, dist/lib/protocol when built. */
function readVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    let text: string | undefined;
    try {
      text = readFileSync(join(dir, 'package.json'), 'utf8');
    } catch {
      // no package.json here: look further up
    }
    if (text !== undefined) {
      const pkg = JSON.parse(text) as { name?: unknown; version?: unknown };
      if (pkg.name === 'vivace' && typeof pkg.version === 'string') return pkg.version;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`vivace-version: no package.json of vivace above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

const VERSION = readVersion();

/** Vivace's version, e.g. "0.1.0". */
export function vivaceVersion(): string {
  return VERSION;
}
