// The connectors' room imports none of the rooms above it (shared/docs/architecture.md): a connector knows
// files and formats, never the engine that runs statements, the cluster, the worker or HTTP. Read off the
// sources' import lines, so a new file is held to it without being listed.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const LIB = resolve('lib');
const FORBIDDEN = ['engine', 'cluster', 'worker', 'http', 'actors', 'planner'];

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((e) => {
    const path = join(directory, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** The relative module paths a file imports (static imports and exports, and dynamic import() of a literal). */
function importsOf(text: string): string[] {
  const found: string[] = [];
  for (const marker of [" from '", "import('"]) {
    for (let at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + 1)) {
      const start = at + marker.length;
      const end = text.indexOf("'", start);
      if (end > start) found.push(text.slice(start, end));
    }
  }
  return found.filter((p) => p.startsWith('.'));
}

describe('connectors layering', () => {
  it('no connector imports the engine, the cluster, the worker, HTTP, actors or the planner', () => {
    const offending: string[] = [];
    for (const file of sources(join(LIB, 'connectors'))) {
      for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
        const room = relative(LIB, resolve(dirname(file), specifier)).split('/')[0]!;
        if (FORBIDDEN.includes(room)) offending.push(`${relative(LIB, file)} -> ${specifier}`);
      }
    }
    expect(offending).to.deep.equal([]);
  });
});
