// Splits CLI input into statements on ';', as Trino's CLI StatementSplitter does: a ';' inside a string
// literal, a quoted identifier or a comment does not end a statement. One linear pass by hand (no regex).

export interface SplitResult {
  /** Complete statements, trimmed, without their ';'; empty ones (";;", a lone comment) left out. */
  statements: string[];
  /** The text after the last ';': an unfinished statement (the prompt keeps reading lines). */
  rest: string;
}

export function splitStatements(text: string): SplitResult {
  const statements: string[] = [];
  let start = 0;
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === "'" || ch === '"') {
      i = quotedEnd(text, i, ch);
    } else if (ch === '-' && text[i + 1] === '-') {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl + 1;
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (ch === ';') {
      const statement = text.slice(start, i).trim();
      if (!isBlank(statement)) statements.push(statement);
      start = ++i;
    } else {
      i++;
    }
  }
  return { statements, rest: text.slice(start) };
}

/** True when the text holds nothing but whitespace and comments. */
export function isBlank(text: string): boolean {
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '-' && text[i + 1] === '-') {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl + 1;
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) return false;
      i = end + 2;
    } else if (ch.trim() === '') {
      i++;
    } else {
      return false;
    }
  }
  return true;
}

/** Index just past a '...' or "..." run opened at `open`; a doubled quote is an escaped one. Unclosed: the end. */
function quotedEnd(text: string, open: number, quote: string): number {
  let i = open + 1;
  for (;;) {
    const close = text.indexOf(quote, i);
    if (close < 0) return text.length;
    if (text[close + 1] !== quote) return close + 1;
    i = close + 2;
  }
}
