// Where a failed query's error points in its SQL: the text cut into numbered lines, the error's line
// split around the token at its column (Trino's errorLocation: line and column from 1). Pure, for specs.
import type { ErrorLocation } from './types.js';

export interface SqlLine {
  number: number;
  /** On the error's line: the text before the mark, the marked token, and the rest. Else all in `before`. */
  before: string;
  marked: string;
  after: string;
  error: boolean;
}

function isWordChar(ch: string): boolean {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch === '_';
}

/**
 * The lines of `sql`, one marked when `location` falls on it. A column past the line's end marks a space
 * after it (Trino points there for a statement that ends too early); a location off the text marks nothing.
 */
export function markSql(sql: string, location: ErrorLocation | undefined): SqlLine[] {
  const texts = sql.split('\n');
  const line = location?.lineNumber;
  const column = location?.columnNumber;
  return texts.map((text, i) => {
    const number = i + 1;
    if (number !== line || column === undefined || !Number.isInteger(column) || column < 1) {
      return { number, before: text, marked: '', after: '', error: false };
    }
    const start = column - 1;
    if (start >= text.length) return { number, before: text, marked: ' ', after: '', error: true };
    let end = start + 1;
    if (isWordChar(text[start]!)) while (end < text.length && isWordChar(text[end]!)) end++;
    return { number, before: text.slice(0, start), marked: text.slice(start, end), after: text.slice(end), error: true };
  });
}
