// A user's statement, admitted by the gate, as the DuckDB SQL the engine runs (duckdb-printer.ts), with
// the tables it names and a way back from an offset in that SQL to the statement as written.
import type { Statement } from './ast.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { DuckDbPrinter, TRACE, type GuardedSql, type TableReference, type TranslationContext } from './duckdb-printer.js';

export type { GuardedRead, GuardedSql, TableReference, TranslationContext } from './duckdb-printer.js';

export interface Translation {
  /** The DuckDB SQL: one statement, names quoted and fully qualified. */
  sql: string;
  /** Tables the statement names (not CTEs), resolved against the session. */
  tables: TableReference[];
  /** DuckDB statements to run after `sql` on its connection, once it succeeded (column comments of CREATE TABLE). */
  followUps: readonly string[];
  /** The access control's masks and filters the statement's reads go through (their types are checked before it runs). */
  guarded: readonly GuardedSql[];
  /**
   * Whether `sql` holds the query's start (current_timestamp and its kin, TranslationContext.queryStart): it
   * is then that query's text alone, and a plan kept by the statement's text must not serve another query.
   */
  readsQueryStart: boolean;
  /** The offset in the statement as written of the node whose DuckDB text holds `offset` (error locations). */
  toOriginal(offset: number): number;
}

/** The DuckDB SQL of an admitted statement. `sql` is the text the tree was parsed from (error locations). */
export function translateStatement(statement: Statement, sql: string, written: TranslationContext): Translation {
  // A view keeps its query to run later: current_timestamp there is each reading query's, never this one's start.
  const { queryStart: _start, ...unpinned } = written;
  const context: TranslationContext = statement.type === 'CreateView' || statement.type === 'CreateMaterializedView' ? unpinned : written;
  const printer = new DuckDbPrinter(context, sql);
  const text = print(printer, statement);
  let spans: Span[] | undefined;
  return {
    sql: text,
    tables: printer.tables,
    followUps: printer.followUps,
    guarded: printer.guarded,
    readsQueryStart: printer.readsQueryStart,
    toOriginal(offset: number): number {
      // Errors are rare: the traced print runs only when one needs placing.
      spans ??= tracedSpans(statement, sql, context);
      let best: Span | undefined;
      for (const span of spans) {
        if (span.start <= offset && offset < span.end && (!best || span.end - span.start < best.end - best.start)) best = span;
      }
      if (!best) return 0;
      // Between its children (an operator): as far past the closest child before it as in the translation.
      // Trino places `a + b` and `a = b` at the operator, and so does DuckDB's caret.
      let before: Span | undefined;
      for (const span of spans) {
        const inside = span !== best && span.start >= best.start && span.end <= best.end;
        if (inside && span.end <= offset && (!before || span.end > before.end)) before = span;
      }
      if (!before) return best.origin;
      return Math.min(before.originEnd + (offset - before.end), Math.max(best.origin, best.originEnd - 1));
    },
  };
}

/** The printer's text; a tree too deep for the stack is the statement's fault, as in the parser. */
function print(printer: DuckDbPrinter, statement: Statement): string {
  try {
    return printer.translate(statement);
  } catch (err) {
    if (err instanceof RangeError) throw new VivaceError('SYNTAX_ERROR', 'line 1:1: statement is too large (stack overflow while translating)', { location: { lineNumber: 1, columnNumber: 1 } });
    throw err;
  }
}

/** A traced node: where its text lies in the DuckDB SQL, and where the node lies in the statement as written. */
interface Span {
  start: number;
  end: number;
  origin: number;
  originEnd: number;
}

/** Where each traced node's text lies in the DuckDB SQL, read off the marks of a traced print. */
function tracedSpans(statement: Statement, sql: string, context: TranslationContext): Span[] {
  const printer = new DuckDbPrinter(context, sql, true);
  const marked = print(printer, statement);
  const spans: Span[] = [];
  const open: { start: number; origin: number; originEnd: number }[] = [];
  let length = 0;
  for (let i = 0; i < marked.length; i++) {
    const c = marked[i];
    if (c === TRACE.open) {
      const separator = marked.indexOf(TRACE.separator, i + 1);
      if (separator < 0) break;
      const source = printer.marks[Number(marked.slice(i + 1, separator))];
      open.push({ start: length, origin: source?.start ?? 0, originEnd: source?.end ?? 0 });
      i = separator;
    } else if (c === TRACE.close) {
      const node = open.pop();
      if (node) spans.push({ start: node.start, end: length, origin: node.origin, originEnd: node.originEnd });
    } else {
      length++;
    }
  }
  return spans;
}
