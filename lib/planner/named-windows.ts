// A query's named windows (`WINDOW w AS (PARTITION BY ...)`, `OVER w`, `OVER (w ORDER BY ...)`) written
// into each OVER clause that names one, so the window planner (window-stages.ts) and the others read them as
// any window: the same query, as Trino's analyzer resolves a window reference (StatementAnalyzer's
// resolveWindowSpecification: the named window's PARTITION BY, its ORDER BY unless the reference adds one,
// the reference's frame). A reference that breaks the standard's rules (its own PARTITION BY, a second ORDER
// BY, a named window with a frame) or names no window leaves that query as written: the one-task path
// reports Trino's error. Each query specification's names are its own.
import { mapTree, type Node, type Query, type Statement, type Window, type WindowDefinition, type WindowSpecification } from '../sql/index.js';
import { fold } from '../sql/names.js';

/** `statement` with every query's named windows written into their references; the statement itself when it names none. */
export function inlineNamedWindows(statement: Statement): Statement {
  let named = false;
  mapTree(statement, (n) => {
    if (n.type === 'QuerySpecification' && n.windows.length > 0) named = true;
    return named ? n : undefined;
  });
  return named ? inline(statement) : statement;
}

function inline<T>(node: T): T {
  return mapTree(node, (n) => (n.type === 'Query' && n.body.type === 'QuerySpecification' && n.body.windows.length > 0 ? inlineQuery(n) : undefined));
}

function inlineQuery(q: Query): Query {
  if (q.body.type !== 'QuerySpecification') return q;
  const definitions = resolveDefinitions(q.body.windows);
  if (!definitions) return q;
  let failed = false;
  const replace = (n: Node): Node | undefined => {
    if (n.type === 'Query') return inline(n);
    if (n.type !== 'FunctionCall' || !n.window) return undefined;
    const window = resolveWindow(n.window, definitions);
    if (!window) failed = true;
    return { ...n, arguments: mapTree(n.arguments, replace), filter: n.filter && mapTree(n.filter, replace), window: window ?? n.window };
  };
  const spec = q.body;
  // FROM and WHERE hold no window of this query; their subqueries have their own names.
  const body = {
    ...spec, select: mapTree(spec.select, replace), having: spec.having && mapTree(spec.having, replace), windows: [],
    from: spec.from && inline(spec.from), where: spec.where && inline(spec.where),
  };
  const rewritten: Query = { ...q, body, orderBy: q.orderBy && mapTree(q.orderBy, replace) };
  return failed ? q : rewritten;
}

/** Each definition by its folded name, itself resolved against the earlier ones; undefined when one breaks the rules. */
function resolveDefinitions(windows: readonly WindowDefinition[]): Map<string, WindowSpecification> | undefined {
  const out = new Map<string, WindowSpecification>();
  for (const w of windows) {
    const name = fold(w.name.value);
    if (out.has(name)) return undefined;
    const resolved = resolveWindow(w.window, out);
    if (!resolved || resolved.type !== 'WindowSpecification') return undefined;
    out.set(name, resolved);
  }
  return out;
}

/** A window with its reference to a named window resolved; undefined when the reference breaks the rules. */
function resolveWindow(window: Window, definitions: ReadonlyMap<string, WindowSpecification>): WindowSpecification | undefined {
  if (window.type === 'WindowReference') return definitions.get(fold(window.name.value));
  if (!window.existingWindowName) return window;
  const base = definitions.get(fold(window.existingWindowName.value));
  if (!base || window.partitionBy.length > 0 || base.frame || (base.orderBy && window.orderBy)) return undefined;
  return { ...window, existingWindowName: undefined, partitionBy: base.partitionBy, orderBy: window.orderBy ?? base.orderBy };
}
