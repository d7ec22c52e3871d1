// Presto syntax DuckDB's parser reads differently or not at all, fixed on the text before parsing:
//   X'DEADBEEF'                -> '\xDE\xAD\xBE\xEF'::BLOB   (DuckDB reads X'..' as the string 'xDEADBEEF')
//   VALUES 1, 2, 3             -> VALUES (1), (2), (3)       (one-column rows without parentheses)
//   TABLESAMPLE BERNOULLI (10) -> TABLESAMPLE BERNOULLI (10 PERCENT)  (DuckDB reads a bare number as rows)
//   if(c, x)                   -> if(c, x, NULL)             (DuckDB's parser wants all three arguments)
// String literals, quoted identifiers and comments are left alone. Text without any of these
// patterns is returned as is without tokenizing.

import { RewriteMap, type Rewritten } from './rewrite-map.js';

const CANDIDATE = /x'|\bvalues\b|\btablesample\b|\bif\s*\(/i;

interface Token {
  kind: 'string' | 'ident' | 'comment' | 'word' | 'number' | 'space' | 'punct';
  text: string;
  /** offset in the statement and the text there (`text` is what the rewrite makes of it) */
  start: number;
  original: string;
}

const TOKEN = /'(?:[^']|'')*'?|"(?:[^"]|"")*"?|--[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|[A-Z_][\w$]*|\d+(?:\.\d*)?(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?|\s+|\S/gi;

function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  for (const m of sql.matchAll(TOKEN)) {
    const text = m[0];
    const c = text[0]!;
    const kind: Token['kind'] =
      c === "'" ? 'string'
      : c === '"' ? 'ident'
      : text.startsWith('--') || text.startsWith('/*') ? 'comment'
      : /[A-Z_]/i.test(c) ? 'word'
      : /[\d.]/.test(c) && text !== '.' ? 'number'
      : /\s/.test(c) ? 'space'
      : 'punct';
    tokens.push({ kind, text, start: m.index, original: text });
  }
  return tokens;
}

const isWord = (t: Token | undefined, word: string) => t?.kind === 'word' && t.text.toLowerCase() === word;
const significant = (t: Token) => t.kind !== 'space' && t.kind !== 'comment';

/** Keywords that end a VALUES list at the top level. */
const VALUES_END = new Set(['order', 'limit', 'offset', 'union', 'except', 'intersect', 'fetch', 'window', 'on', 'returning']);

/**
 * The statement with Presto's X'..' literals, bare VALUES rows and TABLESAMPLE percentages in DuckDB syntax,
 * and the map from the rewritten text's offsets back to `sql`'s.
 */
export function rewritePrestoLiterals(sql: string): Rewritten {
  const unchanged = { text: sql, map: RewriteMap.IDENTITY };
  if (!CANDIDATE.test(sql)) return unchanged;
  const tokens = tokenize(sql);
  let changed = false;
  const next = (i: number) => {
    let j = i + 1;
    while (j < tokens.length && !significant(tokens[j]!)) j++;
    return j;
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    // X'..': the letter directly followed by a string.
    if (t.kind === 'word' && (t.text === 'X' || t.text === 'x') && tokens[i + 1]?.kind === 'string') {
      const body = tokens[i + 1]!.text.slice(1, -1).replace(/\s+/g, '');
      if (tokens[i + 1]!.text.length >= 2 && tokens[i + 1]!.text.endsWith("'") && /^(?:[0-9A-F]{2})*$/i.test(body)) {
        t.text = `'${body.replace(/../g, (h) => `\\x${h.toUpperCase()}`)}'::BLOB`;
        tokens[i + 1]!.text = '';
        changed = true;
      }
      continue;
    }
    if (isWord(t, 'tablesample')) {
      const method = next(i);
      const open = next(method);
      const size = next(open);
      const close = next(size);
      if ((isWord(tokens[method], 'bernoulli') || isWord(tokens[method], 'system')) && tokens[open]?.text === '(' && tokens[size]?.kind === 'number' && tokens[close]?.text === ')') {
        tokens[size]!.text += ' PERCENT';
        changed = true;
      }
      continue;
    }
    if (isWord(t, 'if') && tokens[next(i)]?.text === '(') {
      // Count the top-level arguments up to the matching parenthesis.
      let depth = 0;
      let commas = 0;
      let j = next(i);
      for (; j < tokens.length; j++) {
        const u = tokens[j]!;
        if (u.text === '(' || u.text === '[') depth++;
        else if (u.text === ')' || u.text === ']') {
          depth--;
          if (depth === 0) break;
        } else if (depth === 1 && u.text === ',') commas++;
      }
      if (j < tokens.length && commas === 1) {
        tokens[j]!.text = ', NULL)';
        changed = true;
      }
      continue;
    }
    if (isWord(t, 'values')) {
      const first = next(i);
      const head = tokens[first];
      if (!head || head.text === '(' || head.text === ';' || head.text === ')' || (head.kind === 'word' && VALUES_END.has(head.text.toLowerCase()))) continue;
      // Wrap each top-level comma-separated item in parentheses.
      let depth = 0;
      let start = first;
      let j = first;
      const wrap = (from: number, to: number) => {
        // from..to inclusive, trimmed to significant tokens
        let a = from;
        let b = to;
        while (a <= b && !significant(tokens[a]!)) a++;
        while (b >= a && !significant(tokens[b]!)) b--;
        if (a > b) return;
        tokens[a]!.text = `(${tokens[a]!.text}`;
        tokens[b]!.text = `${tokens[b]!.text})`;
      };
      for (; j < tokens.length; j++) {
        const u = tokens[j]!;
        if (u.text === '(' || u.text === '[') depth++;
        else if (u.text === ')' || u.text === ']') {
          if (depth === 0) break;
          depth--;
        } else if (depth === 0 && u.text === ';') break;
        else if (depth === 0 && u.kind === 'word' && VALUES_END.has(u.text.toLowerCase())) break;
        else if (depth === 0 && u.text === ',') {
          wrap(start, j - 1);
          start = j + 1;
        }
      }
      wrap(start, j - 1);
      changed = true;
      i = j - 1;
    }
  }
  if (!changed) return unchanged;
  return {
    text: tokens.map((t) => t.text).join(''),
    map: RewriteMap.of(tokens.map((t) => ({ origin: t.start, text: t.text, kept: t.text === t.original }))),
  };
}
