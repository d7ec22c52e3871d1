// DuckDB's serialized statement (json_serialize_sql) as JavaScript sees it: a loose JSON tree whose
// numbers keep their exact text. Shared by the statement rewriter and the Presto function rewrites.

/** DuckDB's serialized AST node: a loose JSON object. */
export type AstNode = { [key: string]: unknown };

export interface SerializedStatement {
  error: boolean;
  error_type?: string;
  error_message?: string;
  position?: unknown;
  statements?: { node: AstNode }[];
}

// JSON.parse would turn 18446744073709551615 or 1.0 into different numbers, and DuckDB's
// deserializer checks number kinds: numbers travel through JS as marked strings instead. DuckDB also
// writes doubles out of JSON's range bare (`SELECT 1e400` holds Infinity): they are numbers too.
export const NUMBER_MARK = '\u0000n:';
const TOKENS = /"(?:[^"\\]|\\.)*"|-?(?:Infinity|NaN|\d+(?:\.\d+)?(?:e[+-]?\d+)?)/gi;

/** Parses DuckDB's serialized AST keeping every number's exact text. */
export function parseAst(json: string): SerializedStatement {
  const marked = json.replace(TOKENS, (t) => (t.startsWith('"') ? t : `"\\u0000n:${t}"`));
  return JSON.parse(marked) as SerializedStatement;
}

/** Inverse of parseAst. */
export function stringifyAst(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0000n:([^"]*)"/g, '$1');
}

/** A number field of the AST (marked by parseAst or plain). */
export function astNumber(v: unknown): number {
  return Number(typeof v === 'string' && v.startsWith(NUMBER_MARK) ? v.slice(NUMBER_MARK.length) : v);
}
