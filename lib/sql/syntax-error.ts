// SYNTAX_ERROR values with Trino's wording and location: "line L:C: message", line and column 1-based.
// Columns count code points, as ANTLR's CharStreams.fromString does for Trino; lines end at '\n' only.
import { VivaceError } from '../protocol/vivace-error.js';

export interface TextPosition {
  readonly lineNumber: number;
  readonly columnNumber: number;
}

/** Line and column (1-based) of a UTF-16 offset in `text`. */
export function positionAt(text: string, offset: number): TextPosition {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  let column = 1;
  for (let i = lineStart; i < end; i++) {
    const c = text.charCodeAt(i);
    // The second unit of a surrogate pair is part of the same code point.
    if (c >= 0xdc00 && c <= 0xdfff && i > lineStart && isHighSurrogate(text.charCodeAt(i - 1))) continue;
    column++;
  }
  return { lineNumber: line, columnNumber: column };
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/** A SYNTAX_ERROR at `offset` of `text`: message "line L:C: <message>". */
export function syntaxError(text: string, offset: number, message: string): VivaceError {
  const location = positionAt(text, offset);
  return new VivaceError('SYNTAX_ERROR', `line ${location.lineNumber}:${location.columnNumber}: ${message}`, {
    location,
  });
}

/** Trino's answer when nesting exceeds what the parser allows ("statement", "expression", "type"). */
export function tooLargeError(text: string, offset: number, what: string): VivaceError {
  return syntaxError(text, offset, `${what} is too large (stack overflow while parsing)`);
}
