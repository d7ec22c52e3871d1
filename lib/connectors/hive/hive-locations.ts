// Where a hive catalog may read and write: every location a statement names (a schema's `location`, a
// table's `external_location`) and every directory derived from names, resolved and held under the
// catalog's root before anything is touched. Trino's LocalFileSystem rule (`local:///x` is `<root>/x`,
// `Location references data outside of the root`), plus plain absolute paths under the root.
import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { VivaceError } from '../../protocol/vivace-error.js';
import type { ErrorName } from '../../protocol/error-codes.js';

/** Whether `path` is `parent` or lies below it (both absolute and normalized). */
export function isWithin(path: string, parent: string): boolean {
  return path === parent || path.startsWith(parent.endsWith(sep) ? parent : `${parent}${sep}`);
}

/** `path`'s real location: the real path of its deepest existing ancestor, with the rest appended as written. */
export function realLocation(path: string): string {
  let existing = path;
  const rest: string[] = [];
  while (!existsSync(existing)) {
    const parent = dirname(existing);
    if (parent === existing) break;
    rest.unshift(existing.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
    existing = parent;
  }
  let real: string;
  try {
    // The native call resolves in one system call; the JS one lstats every component (~45 us a path here).
    real = realpathSync.native(existing);
  } catch {
    real = existing;
  }
  return rest.length === 0 ? real : resolve(real, ...rest);
}

export interface LocationRules {
  /** The catalog's root (absolute). */
  root: string;
  /** The roots of the node's other catalogs: never reachable from this one. */
  otherRoots: readonly string[];
}

const URI_SCHEMES = ['local://', 'file://'];

/**
 * The absolute directory a location names, checked to lie strictly under the root, in no other catalog's
 * root, and, symlinks resolved, still so. `error`: the Trino error a refusal carries (the property's).
 * Text is never decoded (`%2e%2e` is a name, which stays inside).
 */
export function resolveLocation(text: string, rules: LocationRules, error: ErrorName = 'INVALID_TABLE_PROPERTY'): string {
  const refuse = (message: string) => new VivaceError(error, message);
  const outside = () => refuse(`Location references data outside of the root: ${text}`);
  if (text.includes('\u0000')) throw refuse(`Location contains a NUL character`);
  let path: string;
  const scheme = URI_SCHEMES.find((s) => text.startsWith(s));
  if (scheme !== undefined) {
    const rest = text.slice(scheme.length);
    // local:///x: no user info or host (Trino's LocalFileSystem.validate); the path is the root's.
    if (!rest.startsWith('/')) throw refuse(`Local location cannot contain a host: ${text}`);
    path = resolve(rules.root, `.${rest}`);
  } else if (isAbsolute(text)) {
    path = resolve(text);
  } else {
    throw refuse(`Location must be an absolute path or a local:/// URI under the catalog's root: ${text}`);
  }
  checkUnderRoot(path, rules, outside);
  return path;
}

/** Throws `outside()` unless `path` lies strictly under the root and outside the other roots, symlinks resolved too. */
export function checkUnderRoot(path: string, rules: LocationRules, outside?: () => Error): void {
  rootChecker(rules)(path, outside);
}

/**
 * checkUnderRoot for many paths of one statement: the roots' real paths are resolved once (a table of 84
 * partitions checked each directory against freshly resolved roots: 4 realpath calls a partition).
 */
export function rootChecker(rules: LocationRules): (path: string, outside?: () => Error) => void {
  const root = resolve(rules.root);
  let real: { root: string; others: string[] } | undefined;
  return (path, outside = () => new VivaceError('PERMISSION_DENIED', `Location references data outside of the root: ${path}`)) => {
    if (path === root || !isWithin(path, root)) throw outside();
    for (const other of rules.otherRoots) {
      if (isWithin(path, other) || isWithin(other, path)) throw outside();
    }
    real ??= { root: realLocation(root), others: rules.otherRoots.map(realLocation) };
    const realPath = realLocation(path);
    if (realPath === real.root || !isWithin(realPath, real.root)) throw outside();
    for (const realOther of real.others) {
      if (isWithin(realPath, realOther) || isWithin(realOther, realPath)) throw outside();
    }
  };
}
