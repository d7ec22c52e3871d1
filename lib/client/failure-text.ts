// How the CLI prints a failed query, after Trino's Query.renderFailure: the message with the error name,
// then the statement's line at the error location with a caret under the column (renderErrorLocation).
import type { QueryError } from './statement-client.js';

export function failureText(queryId: string, error: QueryError, sql: string): string {
  let out = `Query ${queryId} failed (${error.errorName}): ${error.message}\n`;
  const loc = error.errorLocation;
  if (loc === undefined) return out;
  const lines = sql.split('\n');
  const line = lines[loc.lineNumber - 1];
  if (line === undefined || loc.columnNumber < 1) return out;
  const prefix = `LINE ${loc.lineNumber}: `;
  // Tabs keep their place in the caret line so that the caret stays under the right character.
  const padding = Array.from(line.slice(0, loc.columnNumber - 1), (ch) => (ch === '\t' ? '\t' : ' ')).join('');
  out += `${prefix}${line}\n${' '.repeat(prefix.length)}${padding}^\n`;
  return out;
}
