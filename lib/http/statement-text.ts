// Checks on the SQL text of a request before any of it reaches the engine.
import type { Session } from '../protocol/types.js';
import { VivaceError } from '../protocol/vivace-error.js';

/** 1-based line and column of a 0-based offset. */
function lineAndColumn(text: string, offset: number): { lineNumber: number; columnNumber: number } {
  let lineNumber = 1;
  let lineStart = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) {
    lineNumber++;
    lineStart = at + 1;
  }
  return { lineNumber, columnNumber: offset - lineStart + 1 };
}

/**
 * A NUL character is a 400 SYNTAX_ERROR at its place: DuckDB reads SQL as a C string and would run only
 * the text before it, so the statement checked and the statement run would differ. (Trino's lexer
 * rejects it outside literals; inside a literal it is a character this engine cannot take.)
 */
export function refuseNulCharacters(sql: string, session: Session): void {
  const at = sql.indexOf('\0');
  if (at !== -1) {
    const location = lineAndColumn(sql, at);
    throw new VivaceError('SYNTAX_ERROR', `line ${location.lineNumber}:${location.columnNumber}: NUL character (U+0000) is not allowed in a statement`, {
      location,
      httpStatus: 400,
    });
  }
  for (const [name, text] of Object.entries(session.preparedStatements)) {
    if (text.includes('\0')) throw new VivaceError('SYNTAX_ERROR', `Prepared statement '${name}' contains a NUL character (U+0000)`, { httpStatus: 400 });
  }
}
