// Presto's names for a query's output columns, from the tree: an alias, else a plain column reference's
// name, else `_col{i}`; star expansions keep the engine's names; VALUES columns are all `_col{i}`.
import type { Expression, QueryBody, SelectItem, Statement } from './ast.js';

/** The select list that names the output: the first branch of a set operation, through parentheses. */
function namingBody(body: QueryBody): QueryBody {
  if (body.type === 'Union' || body.type === 'Intersect' || body.type === 'Except') return namingBody(body.left);
  if (body.type === 'TableSubquery') return namingBody(body.query.body);
  return body;
}

function plainName(e: Expression): string | undefined {
  if (e.type === 'Identifier') return e.value;
  if (e.type === 'DereferenceExpression') return e.field.value;
  return undefined;
}

/** The output names of `statement` given the engine's (`engineNames`, one per output column). */
export function outputNames(statement: Statement, engineNames: readonly string[]): string[] {
  if (statement.type !== 'Query') return [...engineNames];
  const body = namingBody(statement.body);
  if (body.type === 'Values') return engineNames.map((_, i) => `_col${i}`);
  if (body.type !== 'QuerySpecification') return [...engineNames];
  const items: readonly SelectItem[] = body.select.selectItems;
  // SELECT * FROM (VALUES ...): the VALUES columns, unnamed.
  const only = items.length === 1 ? items[0] : undefined;
  if (only?.type === 'AllColumns' && only.target === undefined && body.from?.type === 'TableSubquery' && body.from.query.body.type === 'Values') {
    return engineNames.map((_, i) => `_col${i}`);
  }
  const names = [...engineNames];
  const nameOf = (item: SelectItem, position: number): string | undefined => {
    if (item.type !== 'SingleColumn') return undefined;
    return item.alias?.value ?? plainName(item.expression) ?? `_col${position}`;
  };
  const starAt = items.findIndex((i) => i.type === 'AllColumns');
  const head = starAt < 0 ? items.length : starAt;
  for (let i = 0; i < head && i < names.length; i++) names[i] = nameOf(items[i]!, i) ?? names[i]!;
  if (starAt >= 0) {
    // Items after the last star map from the end of the output.
    let lastStar = items.length - 1;
    while (items[lastStar]!.type !== 'AllColumns') lastStar--;
    const tail = items.length - 1 - lastStar;
    for (let k = 1; k <= tail; k++) {
      const position = names.length - k;
      if (position >= head) names[position] = nameOf(items[items.length - k]!, position) ?? names[position]!;
    }
  }
  return names;
}
