// Bench children run the same build as their parent: `make bench` runs the compiled dist/bench (what
// `make run` serves: plain JavaScript, no loader), `npx tsx bench/run.ts` runs the TypeScript sources.
import { fileURLToPath } from 'node:url';

const compiled = import.meta.url.endsWith('.js');

/** Path of the bench script `name` (given as `x.ts`) next to this module, in this build. */
export function siblingScript(name: string): string {
  return fileURLToPath(new URL(compiled ? name.replace(/\.ts$/, '.js') : name, import.meta.url));
}

/** The checkout's root directory (bench/ is one level down in the sources, two in dist/). */
export const projectRoot = fileURLToPath(new URL(compiled ? '../../' : '../', import.meta.url));

/** Node options a child needs to run `siblingScript(...)`. */
export const loaderArgs: readonly string[] = compiled ? [] : ['--import', 'tsx'];
