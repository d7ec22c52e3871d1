// `--session name=value`, as Trino's CLI ClientSessionProperty reads it: split at the first '=', the name
// is `property` or `catalog.property`, the value is anything (it is URL-encoded in the header).

export class SessionOptionError extends Error {}

export function parseSessionOption(text: string): [name: string, value: string] {
  const eq = text.indexOf('=');
  if (eq < 0) throw new SessionOptionError(`Session property must be name=value: '${text}'`);
  const name = text.slice(0, eq).trim();
  const value = text.slice(eq + 1);
  if (name === '') throw new SessionOptionError('Session property name is empty');
  const parts = name.split('.');
  if (parts.length > 2 || parts.some((p) => p === '')) {
    throw new SessionOptionError(`Invalid session property: '${name}'`);
  }
  // The name travels raw in the header, so it must be a plain printable ASCII word.
  for (const ch of name) {
    const ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch === '_' || ch === '.';
    if (!ok) throw new SessionOptionError(`Invalid session property name: '${name}'`);
  }
  return [name, value];
}
