// Where a query's output columns come from, as Trino's DESCRIBE OUTPUT shows it (a Field's origin table
// and whether its select item has an alias): a column named as it is (`name`, `n.name`) or expanded by `*`
// comes from the table it reads. Read off the tree of the outermost query specification; what it cannot
// tell (a column of a join named without its relation, of a subquery or WITH query) has no origin.
import type { Expression, Relation, SelectItem, Statement } from './ast.js';
import { fold, partsOf, qualifyTable, type QualifiedTable } from './names.js';

export interface OutputOrigin {
  /** The table (or view) the column is read from, resolved against the session. */
  table?: QualifiedTable;
  /** Its select item carries an alias (Trino's Field.isAliased). */
  aliased: boolean;
}

interface Source {
  /** The name the query may qualify its columns with: the alias, else the table's last name. */
  name?: string;
  table?: QualifiedTable;
}

/** The relations of a FROM clause in order, joins flattened. */
function sourcesOf(relation: Relation | undefined, withNames: ReadonlySet<string>, session: { catalog?: string; schema?: string }): Source[] {
  if (!relation) return [];
  const tableOf = (r: Relation): QualifiedTable | undefined => {
    if (r.type !== 'Table') return undefined;
    const parts = partsOf(r.name);
    return parts.length === 1 && withNames.has(parts[0]!) ? undefined : qualifyTable(parts, session.catalog, session.schema);
  };
  switch (relation.type) {
    case 'Join':
      return [...sourcesOf(relation.left, withNames, session), ...sourcesOf(relation.right, withNames, session)];
    case 'AliasedRelation': {
      // Renamed columns (`t (a, b)`) are still the table's, as Trino keeps a field's origin through an alias.
      const table = tableOf(relation.relation);
      return [table ? { name: fold(relation.alias.value), table } : { name: fold(relation.alias.value) }];
    }
    case 'Table': {
      const table = tableOf(relation);
      const parts = partsOf(relation.name);
      return [table ? { name: parts[parts.length - 1]!, table } : { name: parts[parts.length - 1]! }];
    }
    default:
      return [{}];
  }
}

/**
 * One origin per output column of `statement` (`columnCount` of them, as planned). A statement that is
 * not a query specification, or whose `*` items cannot be placed, gets none.
 */
export function outputOrigins(statement: Statement, columnCount: number, session: { catalog?: string; schema?: string }): OutputOrigin[] {
  const none = (): OutputOrigin[] => Array.from({ length: columnCount }, () => ({ aliased: false }));
  if (statement.type !== 'Query' || statement.body.type !== 'QuerySpecification') return none();
  const withNames = new Set((statement.with?.queries ?? []).map((q) => fold(q.name.value)));
  const sources = sourcesOf(statement.body.from, withNames, session);
  const byName = (name: string) => {
    const found = sources.filter((s) => s.name === name);
    return found.length === 1 ? found[0]!.table : undefined;
  };
  const only = sources.length === 1 ? sources[0]!.table : undefined;
  const columnOrigin = (e: Expression): QualifiedTable | undefined => {
    if (e.type === 'Identifier') return only;
    if (e.type === 'DereferenceExpression' && e.base.type === 'Identifier') return byName(fold(e.base.value));
    return undefined;
  };
  const items: readonly SelectItem[] = statement.body.select.selectItems;
  const stars = items.filter((item) => item.type === 'AllColumns');
  const starWidth = columnCount - (items.length - stars.length);
  // Two `*` items split the columns in a way only the tables' columns tell.
  if (stars.length > 1 || starWidth < 0 || (stars.length === 0 && starWidth !== 0)) return none();
  return items.flatMap((item): OutputOrigin[] => {
    if (item.type === 'SingleColumn') {
      const table = columnOrigin(item.expression);
      return [table ? { table, aliased: item.alias !== undefined } : { aliased: item.alias !== undefined }];
    }
    const table = item.target ? (item.target.type === 'Identifier' ? byName(fold(item.target.value)) : undefined) : only;
    return Array.from({ length: starWidth }, () => (table ? { table, aliased: false } : { aliased: false }));
  });
}
