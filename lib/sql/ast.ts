// The one immutable tree of a Presto/Trino statement: a discriminated union on `type`, node names after
// Trino's io.trino.sql.tree classes. Every object in the tree is a node (has `type` and `location`), so
// tree-walk.ts can visit every child generically.

/** UTF-16 offsets into the statement text: [start, end). */
export interface Location {
  readonly start: number;
  readonly end: number;
}

interface NodeBase {
  readonly location: Location;
}

// ---------------------------------------------------------------- names

export interface Identifier extends NodeBase {
  readonly type: 'Identifier';
  /** As written: case kept; for a quoted identifier the text between the quotes, `""` unescaped. */
  readonly value: string;
  readonly quoted: boolean;
}

/** A dotted name: catalog.schema.table, a function name, a session property. */
export interface QualifiedName extends NodeBase {
  readonly type: 'QualifiedName';
  readonly parts: readonly Identifier[];
}

// ---------------------------------------------------------------- literals

export interface NullLiteral extends NodeBase {
  readonly type: 'NullLiteral';
}
export interface BooleanLiteral extends NodeBase {
  readonly type: 'BooleanLiteral';
  readonly value: boolean;
}
/** An INTEGER_VALUE (Trino's LongLiteral), with a leading '-' when written `-5`. */
export interface LongLiteral extends NodeBase {
  readonly type: 'LongLiteral';
  /** Decimal digits with sign, e.g. "-31" for -0x1F: within [-2^63, 2^63 - 1]. */
  readonly value: string;
  /** As written (without spaces), e.g. "-0x1F", "1_000". */
  readonly text: string;
}
/** 1.5, .5, 1. (exact decimal). */
export interface DecimalLiteral extends NodeBase {
  readonly type: 'DecimalLiteral';
  readonly value: string;
}
/** 1E10, 1.5e-3 (double). */
export interface DoubleLiteral extends NodeBase {
  readonly type: 'DoubleLiteral';
  readonly value: string;
}
export interface StringLiteral extends NodeBase {
  readonly type: 'StringLiteral';
  /** Decoded: '' unescaped, U&'...' escapes resolved. */
  readonly value: string;
}
/** X'DEADBEEF' */
export interface BinaryLiteral extends NodeBase {
  readonly type: 'BinaryLiteral';
  /** Hex digits, upper case, whitespace removed, even length. */
  readonly value: string;
}
/** `type 'value'`: DATE '2020-01-01', TIMESTAMP '...', DECIMAL '1.5', TIME '...', REAL '1', JSON '...', ... */
export interface GenericLiteral extends NodeBase {
  readonly type: 'GenericLiteral';
  /** The type as written (DOUBLE for DOUBLE PRECISION). */
  readonly typeName: Identifier;
  readonly value: string;
}
export type IntervalField = 'YEAR' | 'MONTH' | 'DAY' | 'HOUR' | 'MINUTE' | 'SECOND';
/** INTERVAL [+|-] 'value' field [TO field] */
export interface IntervalLiteral extends NodeBase {
  readonly type: 'IntervalLiteral';
  readonly value: string;
  readonly sign: 'POSITIVE' | 'NEGATIVE';
  readonly startField: IntervalField;
  readonly endField: IntervalField | undefined;
}
export type Literal =
  | NullLiteral
  | BooleanLiteral
  | LongLiteral
  | DecimalLiteral
  | DoubleLiteral
  | StringLiteral
  | BinaryLiteral
  | GenericLiteral
  | IntervalLiteral;

// ---------------------------------------------------------------- expressions

/** `?`: `index` counts from 0 in the order of the text. */
export interface Parameter extends NodeBase {
  readonly type: 'Parameter';
  readonly index: number;
}
/** base.field */
export interface DereferenceExpression extends NodeBase {
  readonly type: 'DereferenceExpression';
  readonly base: Expression;
  readonly field: Identifier;
}
/** base[index] */
export interface SubscriptExpression extends NodeBase {
  readonly type: 'SubscriptExpression';
  readonly base: Expression;
  readonly index: Expression;
}

export interface SortItem extends NodeBase {
  readonly type: 'SortItem';
  readonly sortKey: Expression;
  /** undefined when neither ASC nor DESC is written (ascending). */
  readonly ordering: 'ASC' | 'DESC' | undefined;
  readonly nullOrdering: 'FIRST' | 'LAST' | undefined;
}
export interface OrderBy extends NodeBase {
  readonly type: 'OrderBy';
  readonly sortItems: readonly SortItem[];
}

export type FrameBoundType = 'UNBOUNDED_PRECEDING' | 'PRECEDING' | 'CURRENT_ROW' | 'FOLLOWING' | 'UNBOUNDED_FOLLOWING';
export interface FrameBound extends NodeBase {
  readonly type: 'FrameBound';
  readonly boundType: FrameBoundType;
  /** For PRECEDING / FOLLOWING with an offset. */
  readonly value: Expression | undefined;
}
export interface WindowFrame extends NodeBase {
  readonly type: 'WindowFrame';
  readonly frameType: 'RANGE' | 'ROWS' | 'GROUPS';
  readonly start: FrameBound;
  readonly end: FrameBound | undefined;
}
/** `(existing PARTITION BY ... ORDER BY ... frame)` */
export interface WindowSpecification extends NodeBase {
  readonly type: 'WindowSpecification';
  readonly existingWindowName: Identifier | undefined;
  readonly partitionBy: readonly Expression[];
  readonly orderBy: OrderBy | undefined;
  readonly frame: WindowFrame | undefined;
}
/** OVER w */
export interface WindowReference extends NodeBase {
  readonly type: 'WindowReference';
  readonly name: Identifier;
}
export type Window = WindowSpecification | WindowReference;

/**
 * name([DISTINCT] args [ORDER BY ...]) [FILTER (WHERE ...)] [IGNORE|RESPECT NULLS] [OVER ...].
 * `count(*)` has no arguments. Special forms become calls as in Trino: SUBSTRING(a FROM b FOR c) is
 * substr(a, b, c), POSITION(a IN b) is strpos(b, a), NORMALIZE(a, NFC) is "normalize"(a, 'NFC'); if,
 * nullif, coalesce, try and format stay calls (arity checked as Trino does).
 */
export interface FunctionCall extends NodeBase {
  readonly type: 'FunctionCall';
  readonly name: QualifiedName;
  readonly distinct: boolean;
  readonly arguments: readonly Expression[];
  readonly orderBy: OrderBy | undefined;
  readonly filter: Expression | undefined;
  readonly nullTreatment: 'IGNORE' | 'RESPECT' | undefined;
  readonly window: Window | undefined;
}
/** x -> body, (x, y) -> body, () -> body */
export interface LambdaExpression extends NodeBase {
  readonly type: 'LambdaExpression';
  readonly arguments: readonly Identifier[];
  readonly body: Expression;
}
/** CAST(x AS type), TRY_CAST(x AS type) when `safe`. */
export interface Cast extends NodeBase {
  readonly type: 'Cast';
  readonly expression: Expression;
  readonly targetType: DataType;
  readonly safe: boolean;
}
export interface WhenClause extends NodeBase {
  readonly type: 'WhenClause';
  readonly operand: Expression;
  readonly result: Expression;
}
/** CASE operand WHEN ... THEN ... [ELSE ...] END */
export interface SimpleCaseExpression extends NodeBase {
  readonly type: 'SimpleCaseExpression';
  readonly operand: Expression;
  readonly whenClauses: readonly WhenClause[];
  readonly defaultValue: Expression | undefined;
}
/** CASE WHEN cond THEN ... [ELSE ...] END */
export interface SearchedCaseExpression extends NodeBase {
  readonly type: 'SearchedCaseExpression';
  readonly whenClauses: readonly WhenClause[];
  readonly defaultValue: Expression | undefined;
}
export type ComparisonOperator = '=' | '<>' | '<' | '<=' | '>' | '>=' | 'IS DISTINCT FROM' | 'IS NOT DISTINCT FROM';
/** `!=` is read as '<>'. */
export interface ComparisonExpression extends NodeBase {
  readonly type: 'ComparisonExpression';
  readonly operator: ComparisonOperator;
  readonly left: Expression;
  readonly right: Expression;
}
/** a AND b AND c: one node per chain of the same operator (parenthesized chains stay nested). */
export interface LogicalExpression extends NodeBase {
  readonly type: 'LogicalExpression';
  readonly operator: 'AND' | 'OR';
  readonly terms: readonly Expression[];
}
export interface NotExpression extends NodeBase {
  readonly type: 'NotExpression';
  readonly value: Expression;
}
export interface ArithmeticBinaryExpression extends NodeBase {
  readonly type: 'ArithmeticBinaryExpression';
  readonly operator: '+' | '-' | '*' | '/' | '%';
  readonly left: Expression;
  readonly right: Expression;
}
/** -x, +x (a minus written right before a number is part of the literal instead, as in Trino). */
export interface ArithmeticUnaryExpression extends NodeBase {
  readonly type: 'ArithmeticUnaryExpression';
  readonly sign: '+' | '-';
  readonly value: Expression;
}
/** a || b */
export interface ConcatExpression extends NodeBase {
  readonly type: 'ConcatExpression';
  readonly left: Expression;
  readonly right: Expression;
}
/** value [NOT] BETWEEN min AND max */
export interface BetweenPredicate extends NodeBase {
  readonly type: 'BetweenPredicate';
  readonly value: Expression;
  readonly min: Expression;
  readonly max: Expression;
  readonly negated: boolean;
}
/** (a, b, c) on the right of IN */
export interface InListExpression extends NodeBase {
  readonly type: 'InListExpression';
  readonly values: readonly Expression[];
}
/** value [NOT] IN (list) | value [NOT] IN (query) */
export interface InPredicate extends NodeBase {
  readonly type: 'InPredicate';
  readonly value: Expression;
  readonly valueList: InListExpression | SubqueryExpression;
  readonly negated: boolean;
}
/** value [NOT] LIKE pattern [ESCAPE escape] */
export interface LikePredicate extends NodeBase {
  readonly type: 'LikePredicate';
  readonly value: Expression;
  readonly pattern: Expression;
  readonly escape: Expression | undefined;
  readonly negated: boolean;
}
/** value IS [NOT] NULL */
export interface IsNullPredicate extends NodeBase {
  readonly type: 'IsNullPredicate';
  readonly value: Expression;
  readonly negated: boolean;
}
/** value op ALL|ANY|SOME (query) */
export interface QuantifiedComparisonExpression extends NodeBase {
  readonly type: 'QuantifiedComparisonExpression';
  readonly operator: '=' | '<>' | '<' | '<=' | '>' | '>=';
  readonly quantifier: 'ALL' | 'ANY' | 'SOME';
  readonly value: Expression;
  readonly subquery: SubqueryExpression;
}
export interface ExistsPredicate extends NodeBase {
  readonly type: 'ExistsPredicate';
  readonly subquery: SubqueryExpression;
}
/** (query) used as a value */
export interface SubqueryExpression extends NodeBase {
  readonly type: 'SubqueryExpression';
  readonly query: Query;
}
/** ROW(a, b) and (a, b) */
export interface Row extends NodeBase {
  readonly type: 'Row';
  readonly items: readonly Expression[];
}
/** ARRAY[a, b] */
export interface ArrayConstructor extends NodeBase {
  readonly type: 'ArrayConstructor';
  readonly values: readonly Expression[];
}
/** value AT TIME ZONE zone (zone: a string or interval literal) */
export interface AtTimeZone extends NodeBase {
  readonly type: 'AtTimeZone';
  readonly value: Expression;
  readonly timeZone: Expression;
}
export type ExtractField =
  | 'YEAR'
  | 'QUARTER'
  | 'MONTH'
  | 'WEEK'
  | 'DAY'
  | 'DAY_OF_MONTH'
  | 'DAY_OF_WEEK'
  | 'DOW'
  | 'DAY_OF_YEAR'
  | 'DOY'
  | 'YEAR_OF_WEEK'
  | 'YOW'
  | 'HOUR'
  | 'MINUTE'
  | 'SECOND'
  | 'TIMEZONE_MINUTE'
  | 'TIMEZONE_HOUR';
/** EXTRACT(field FROM value) */
export interface ExtractExpression extends NodeBase {
  readonly type: 'Extract';
  readonly field: ExtractField;
  readonly expression: Expression;
}
/** CURRENT_DATE, CURRENT_TIME[(p)], CURRENT_TIMESTAMP[(p)], LOCALTIME[(p)], LOCALTIMESTAMP[(p)] */
export interface CurrentTime extends NodeBase {
  readonly type: 'CurrentTime';
  readonly function: 'CURRENT_DATE' | 'CURRENT_TIME' | 'CURRENT_TIMESTAMP' | 'LOCALTIME' | 'LOCALTIMESTAMP';
  readonly precision: number | undefined;
}
export interface CurrentUser extends NodeBase {
  readonly type: 'CurrentUser';
}
export interface CurrentCatalog extends NodeBase {
  readonly type: 'CurrentCatalog';
}
export interface CurrentSchema extends NodeBase {
  readonly type: 'CurrentSchema';
}
export interface CurrentPath extends NodeBase {
  readonly type: 'CurrentPath';
}
/** TRIM([BOTH|LEADING|TRAILING] [char] FROM source), TRIM(source [, char]); the specification defaults to BOTH. */
export interface Trim extends NodeBase {
  readonly type: 'Trim';
  readonly specification: 'BOTH' | 'LEADING' | 'TRAILING';
  readonly trimSource: Expression;
  readonly trimCharacter: Expression | undefined;
}
/** GROUPING(a, b.c) */
export interface GroupingOperation extends NodeBase {
  readonly type: 'GroupingOperation';
  readonly groupingColumns: readonly QualifiedName[];
}

export type Expression =
  | Literal
  | Identifier
  | Parameter
  | DereferenceExpression
  | SubscriptExpression
  | FunctionCall
  | LambdaExpression
  | Cast
  | SimpleCaseExpression
  | SearchedCaseExpression
  | ComparisonExpression
  | LogicalExpression
  | NotExpression
  | ArithmeticBinaryExpression
  | ArithmeticUnaryExpression
  | ConcatExpression
  | BetweenPredicate
  | InPredicate
  | InListExpression
  | LikePredicate
  | IsNullPredicate
  | QuantifiedComparisonExpression
  | ExistsPredicate
  | SubqueryExpression
  | Row
  | ArrayConstructor
  | AtTimeZone
  | ExtractExpression
  | CurrentTime
  | CurrentUser
  | CurrentCatalog
  | CurrentSchema
  | CurrentPath
  | Trim
  | GroupingOperation;

// ---------------------------------------------------------------- data types

/** An integer argument of a type: VARCHAR(10), DECIMAL(10, 2). */
export interface NumericParameter extends NodeBase {
  readonly type: 'NumericParameter';
  readonly value: string;
}
/** name[(args)]: bigint, varchar(10), decimal(10,2), array(integer), map(varchar, bigint), DOUBLE (for DOUBLE
 *  PRECISION); `t ARRAY` and the legacy ARRAY<t> / MAP<k,v> are read as array(t) / map(k, v). */
export interface GenericDataType extends NodeBase {
  readonly type: 'GenericDataType';
  readonly name: Identifier;
  readonly arguments: readonly (DataType | NumericParameter)[];
}
export interface RowField extends NodeBase {
  readonly type: 'RowField';
  readonly name: Identifier | undefined;
  readonly fieldType: DataType;
}
/** ROW(name type, ...) */
export interface RowDataType extends NodeBase {
  readonly type: 'RowDataType';
  readonly fields: readonly RowField[];
}
/** TIMESTAMP[(p)] [WITH|WITHOUT TIME ZONE], TIME[(p)] [...] */
export interface DateTimeDataType extends NodeBase {
  readonly type: 'DateTimeDataType';
  readonly kind: 'TIMESTAMP' | 'TIME';
  readonly withTimeZone: boolean;
  readonly precision: DataType | NumericParameter | undefined;
}
/** INTERVAL YEAR TO MONTH, INTERVAL DAY TO SECOND (`to` is `from` when absent). */
export interface IntervalDataType extends NodeBase {
  readonly type: 'IntervalDataType';
  readonly from: IntervalField;
  readonly to: IntervalField;
}
export type DataType = GenericDataType | RowDataType | DateTimeDataType | IntervalDataType;

// ---------------------------------------------------------------- queries

export interface WithQuery extends NodeBase {
  readonly type: 'WithQuery';
  readonly name: Identifier;
  readonly columnNames: readonly Identifier[] | undefined;
  readonly query: Query;
}
export interface With extends NodeBase {
  readonly type: 'With';
  readonly recursive: boolean;
  readonly queries: readonly WithQuery[];
}
export interface Offset extends NodeBase {
  readonly type: 'Offset';
  readonly rowCount: LongLiteral | Parameter;
}
/** LIMIT ALL */
export interface AllRows extends NodeBase {
  readonly type: 'AllRows';
}
export interface Limit extends NodeBase {
  readonly type: 'Limit';
  readonly rowCount: LongLiteral | Parameter | AllRows;
}
/** FETCH FIRST|NEXT [n] ROW|ROWS ONLY|WITH TIES */
export interface FetchFirst extends NodeBase {
  readonly type: 'FetchFirst';
  readonly rowCount: LongLiteral | Parameter | undefined;
  readonly withTies: boolean;
}
/** A query: [WITH ...] body [ORDER BY] [OFFSET] [LIMIT | FETCH]. Statement and subquery alike. */
export interface Query extends NodeBase {
  readonly type: 'Query';
  readonly with: With | undefined;
  readonly body: QueryBody;
  readonly orderBy: OrderBy | undefined;
  readonly offset: Offset | undefined;
  readonly limit: Limit | FetchFirst | undefined;
}

export interface SingleColumn extends NodeBase {
  readonly type: 'SingleColumn';
  readonly expression: Expression;
  readonly alias: Identifier | undefined;
}
/** * or target.* [AS (a, b)] */
export interface AllColumns extends NodeBase {
  readonly type: 'AllColumns';
  readonly target: Expression | undefined;
  readonly aliases: readonly Identifier[];
}
export type SelectItem = SingleColumn | AllColumns;
export interface Select extends NodeBase {
  readonly type: 'Select';
  readonly distinct: boolean;
  readonly selectItems: readonly SelectItem[];
}
/** One grouping element of plain expressions: `a` or `(a, b)` or `()`. */
export interface SimpleGroupBy extends NodeBase {
  readonly type: 'SimpleGroupBy';
  readonly expressions: readonly Expression[];
}
/** ROLLUP (...), CUBE (...), GROUPING SETS (...): each set a list of expressions. */
export interface GroupingSets extends NodeBase {
  readonly type: 'GroupingSets';
  readonly groupingType: 'ROLLUP' | 'CUBE' | 'EXPLICIT';
  readonly sets: readonly (readonly Expression[])[];
}
export type GroupingElement = SimpleGroupBy | GroupingSets;
export interface GroupBy extends NodeBase {
  readonly type: 'GroupBy';
  readonly distinct: boolean;
  readonly groupingElements: readonly GroupingElement[];
}
export interface WindowDefinition extends NodeBase {
  readonly type: 'WindowDefinition';
  readonly name: Identifier;
  readonly window: WindowSpecification;
}
/** SELECT ... [FROM] [WHERE] [GROUP BY] [HAVING] [WINDOW]. A FROM list a, b is Join IMPLICIT. */
export interface QuerySpecification extends NodeBase {
  readonly type: 'QuerySpecification';
  readonly select: Select;
  readonly from: Relation | undefined;
  readonly where: Expression | undefined;
  readonly groupBy: GroupBy | undefined;
  readonly having: Expression | undefined;
  readonly windows: readonly WindowDefinition[];
}
/** VALUES row, row: each row an expression (usually a Row). */
export interface Values extends NodeBase {
  readonly type: 'Values';
  readonly rows: readonly Expression[];
}
/** Set operations; `distinct` is false for ALL. */
export interface Union extends NodeBase {
  readonly type: 'Union';
  readonly left: QueryBody;
  readonly right: QueryBody;
  readonly distinct: boolean;
}
export interface Intersect extends NodeBase {
  readonly type: 'Intersect';
  readonly left: QueryBody;
  readonly right: QueryBody;
  readonly distinct: boolean;
}
export interface Except extends NodeBase {
  readonly type: 'Except';
  readonly left: QueryBody;
  readonly right: QueryBody;
  readonly distinct: boolean;
}
/** A parenthesized query as a relation or as a query term. */
export interface TableSubquery extends NodeBase {
  readonly type: 'TableSubquery';
  readonly query: Query;
}
/** FOR TIMESTAMP|VERSION AS OF value */
export interface QueryPeriod extends NodeBase {
  readonly type: 'QueryPeriod';
  readonly rangeType: 'TIMESTAMP' | 'VERSION';
  readonly end: Expression;
}
/** A table by name (in FROM, in `TABLE name`, and as the target of INSERT, UPDATE, DELETE, MERGE). */
export interface Table extends NodeBase {
  readonly type: 'Table';
  readonly name: QualifiedName;
  readonly queryPeriod: QueryPeriod | undefined;
}
export type QueryBody = QuerySpecification | Values | Union | Intersect | Except | TableSubquery | Table;

// ---------------------------------------------------------------- relations

export interface AliasedRelation extends NodeBase {
  readonly type: 'AliasedRelation';
  readonly relation: Relation;
  readonly alias: Identifier;
  readonly columnNames: readonly Identifier[] | undefined;
}
export interface JoinOn extends NodeBase {
  readonly type: 'JoinOn';
  readonly expression: Expression;
}
export interface JoinUsing extends NodeBase {
  readonly type: 'JoinUsing';
  readonly columns: readonly Identifier[];
}
export interface NaturalJoin extends NodeBase {
  readonly type: 'NaturalJoin';
}
export interface Join extends NodeBase {
  readonly type: 'Join';
  readonly joinType: 'CROSS' | 'INNER' | 'LEFT' | 'RIGHT' | 'FULL' | 'IMPLICIT';
  readonly left: Relation;
  readonly right: Relation;
  readonly criteria: JoinOn | JoinUsing | NaturalJoin | undefined;
}
/** UNNEST(a, b) [WITH ORDINALITY] */
export interface Unnest extends NodeBase {
  readonly type: 'Unnest';
  readonly expressions: readonly Expression[];
  readonly withOrdinality: boolean;
}
/** LATERAL (query) */
export interface Lateral extends NodeBase {
  readonly type: 'Lateral';
  readonly query: Query;
}
/** relation TABLESAMPLE BERNOULLI|SYSTEM (percentage) */
export interface SampledRelation extends NodeBase {
  readonly type: 'SampledRelation';
  readonly relation: Relation;
  readonly samplingType: 'BERNOULLI' | 'SYSTEM';
  readonly samplePercentage: Expression;
}
export interface DescriptorField extends NodeBase {
  readonly type: 'DescriptorField';
  readonly name: Identifier;
  readonly fieldType: DataType | undefined;
}
/** DESCRIPTOR(a [type], ...); CAST(NULL AS DESCRIPTOR) has no fields and `isNull`. */
export interface Descriptor extends NodeBase {
  readonly type: 'Descriptor';
  readonly fields: readonly DescriptorField[];
  readonly isNull: boolean;
}
/** TABLE(name|query) [PARTITION BY ...] [PRUNE|KEEP WHEN EMPTY] [ORDER BY ...] as a table function argument. */
export interface TableFunctionTableArgument extends NodeBase {
  readonly type: 'TableFunctionTableArgument';
  readonly table: Relation;
  readonly partitionBy: readonly Expression[] | undefined;
  readonly emptyTableTreatment: 'PRUNE' | 'KEEP' | undefined;
  readonly orderBy: OrderBy | undefined;
}
export interface TableFunctionArgument extends NodeBase {
  readonly type: 'TableFunctionArgument';
  readonly name: Identifier | undefined;
  readonly value: Expression | TableFunctionTableArgument | Descriptor;
}
/** TABLE(fn(args) [COPARTITION (t1, t2), ...]) */
export interface TableFunctionInvocation extends NodeBase {
  readonly type: 'TableFunctionInvocation';
  readonly name: QualifiedName;
  readonly arguments: readonly TableFunctionArgument[];
  readonly copartitioning: readonly CopartitionTables[];
}
export interface CopartitionTables extends NodeBase {
  readonly type: 'CopartitionTables';
  readonly tables: readonly QualifiedName[];
}
export type Relation =
  | Table
  | AliasedRelation
  | Join
  | Unnest
  | Lateral
  | SampledRelation
  | TableSubquery
  | TableFunctionInvocation;

// ---------------------------------------------------------------- statements

/** name = value | name = DEFAULT (value undefined) */
export interface Property extends NodeBase {
  readonly type: 'Property';
  readonly name: Identifier;
  readonly value: Expression | undefined;
}
export interface ColumnDefinition extends NodeBase {
  readonly type: 'ColumnDefinition';
  readonly name: QualifiedName;
  readonly columnType: DataType;
  readonly nullable: boolean;
  readonly comment: string | undefined;
  readonly properties: readonly Property[];
}
/** LIKE other [INCLUDING|EXCLUDING PROPERTIES] in CREATE TABLE */
export interface LikeClause extends NodeBase {
  readonly type: 'LikeClause';
  readonly tableName: QualifiedName;
  readonly propertiesOption: 'INCLUDING' | 'EXCLUDING' | undefined;
}
export interface ExplainOption extends NodeBase {
  readonly type: 'ExplainOption';
  readonly option: 'TYPE' | 'FORMAT';
  /** TYPE: LOGICAL, DISTRIBUTED, VALIDATE, IO; FORMAT: TEXT, GRAPHVIZ, JSON. */
  readonly value: string;
}
/** EXPLAIN [(options)] statement; EXPLAIN ANALYZE [VERBOSE] statement */
export interface Explain extends NodeBase {
  readonly type: 'Explain';
  readonly analyze: boolean;
  readonly verbose: boolean;
  readonly options: readonly ExplainOption[];
  readonly statement: Statement;
}
/** LIKE 'pattern' [ESCAPE 'e'] of SHOW statements */
interface LikeFilter {
  readonly likePattern: string | undefined;
  readonly escape: string | undefined;
}
export interface ShowCatalogs extends NodeBase, LikeFilter {
  readonly type: 'ShowCatalogs';
}
export interface ShowSchemas extends NodeBase, LikeFilter {
  readonly type: 'ShowSchemas';
  readonly catalog: Identifier | undefined;
}
export interface ShowTables extends NodeBase, LikeFilter {
  readonly type: 'ShowTables';
  readonly schema: QualifiedName | undefined;
}
/** SHOW COLUMNS FROM t, and DESCRIBE t / DESC t (as in Trino). */
export interface ShowColumns extends NodeBase, LikeFilter {
  readonly type: 'ShowColumns';
  readonly table: QualifiedName;
}
export interface ShowFunctions extends NodeBase, LikeFilter {
  readonly type: 'ShowFunctions';
  readonly schema: QualifiedName | undefined;
}
export interface ShowSession extends NodeBase, LikeFilter {
  readonly type: 'ShowSession';
}
export interface ShowCreate extends NodeBase {
  readonly type: 'ShowCreate';
  readonly objectType: 'TABLE' | 'VIEW' | 'SCHEMA' | 'MATERIALIZED VIEW';
  readonly name: QualifiedName;
}
/** SHOW STATS FOR t | SHOW STATS FOR (query) */
export interface ShowStats extends NodeBase {
  readonly type: 'ShowStats';
  readonly relation: Table | TableSubquery;
}
export interface DescribeInput extends NodeBase {
  readonly type: 'DescribeInput';
  readonly name: Identifier;
}
export interface DescribeOutput extends NodeBase {
  readonly type: 'DescribeOutput';
  readonly name: Identifier;
}
/** USE [catalog.]schema */
export interface Use extends NodeBase {
  readonly type: 'Use';
  readonly catalog: Identifier | undefined;
  readonly schema: Identifier;
}
export interface SetSession extends NodeBase {
  readonly type: 'SetSession';
  readonly name: QualifiedName;
  readonly value: Expression;
}
export interface ResetSession extends NodeBase {
  readonly type: 'ResetSession';
  readonly name: QualifiedName;
}
/** SET TIME ZONE LOCAL (timeZone undefined) | SET TIME ZONE expression */
export interface SetTimeZone extends NodeBase {
  readonly type: 'SetTimeZone';
  readonly timeZone: Expression | undefined;
}
/** SET ROLE (ALL | NONE | role) [IN catalog] */
export interface SetRole extends NodeBase {
  readonly type: 'SetRole';
  readonly role: 'ALL' | 'NONE' | Identifier;
  readonly catalog: Identifier | undefined;
}
/** SET PATH a, b.c */
export interface SetPath extends NodeBase {
  readonly type: 'SetPath';
  readonly path: readonly QualifiedName[];
}
export interface Prepare extends NodeBase {
  readonly type: 'Prepare';
  readonly name: Identifier;
  readonly statement: Statement;
}
export interface Execute extends NodeBase {
  readonly type: 'Execute';
  readonly name: Identifier;
  readonly parameters: readonly Expression[];
}
/** EXECUTE IMMEDIATE 'sql' [USING ...]: the SQL text is not parsed here. */
export interface ExecuteImmediate extends NodeBase {
  readonly type: 'ExecuteImmediate';
  readonly statement: StringLiteral;
  readonly parameters: readonly Expression[];
}
/** DEALLOCATE PREPARE name */
export interface Deallocate extends NodeBase {
  readonly type: 'Deallocate';
  readonly name: Identifier;
}
export interface Isolation extends NodeBase {
  readonly type: 'Isolation';
  readonly level: 'READ UNCOMMITTED' | 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE';
}
export interface TransactionAccessMode extends NodeBase {
  readonly type: 'TransactionAccessMode';
  readonly readOnly: boolean;
}
export interface StartTransaction extends NodeBase {
  readonly type: 'StartTransaction';
  readonly transactionModes: readonly (Isolation | TransactionAccessMode)[];
}
export interface Commit extends NodeBase {
  readonly type: 'Commit';
}
export interface Rollback extends NodeBase {
  readonly type: 'Rollback';
}
export interface CreateTable extends NodeBase {
  readonly type: 'CreateTable';
  readonly name: QualifiedName;
  readonly elements: readonly (ColumnDefinition | LikeClause)[];
  readonly replace: boolean;
  readonly notExists: boolean;
  readonly comment: string | undefined;
  readonly properties: readonly Property[];
}
export interface CreateTableAsSelect extends NodeBase {
  readonly type: 'CreateTableAsSelect';
  readonly name: QualifiedName;
  readonly columnAliases: readonly Identifier[] | undefined;
  readonly query: Query;
  readonly replace: boolean;
  readonly notExists: boolean;
  readonly comment: string | undefined;
  readonly properties: readonly Property[];
  /** false for WITH NO DATA */
  readonly withData: boolean;
}
export interface Insert extends NodeBase {
  readonly type: 'Insert';
  readonly target: Table;
  readonly columns: readonly Identifier[] | undefined;
  readonly query: Query;
}
export interface Delete extends NodeBase {
  readonly type: 'Delete';
  readonly table: Table;
  readonly where: Expression | undefined;
}
export interface UpdateAssignment extends NodeBase {
  readonly type: 'UpdateAssignment';
  readonly name: Identifier;
  readonly value: Expression;
}
export interface Update extends NodeBase {
  readonly type: 'Update';
  readonly table: Table;
  readonly assignments: readonly UpdateAssignment[];
  readonly where: Expression | undefined;
}
export interface MergeUpdate extends NodeBase {
  readonly type: 'MergeUpdate';
  readonly condition: Expression | undefined;
  readonly assignments: readonly UpdateAssignment[];
}
export interface MergeDelete extends NodeBase {
  readonly type: 'MergeDelete';
  readonly condition: Expression | undefined;
}
export interface MergeInsert extends NodeBase {
  readonly type: 'MergeInsert';
  readonly condition: Expression | undefined;
  readonly columns: readonly Identifier[];
  readonly values: readonly Expression[];
}
/** MERGE INTO target [[AS] alias] USING source ON condition WHEN ... */
export interface Merge extends NodeBase {
  readonly type: 'Merge';
  readonly target: Table | AliasedRelation;
  readonly source: Relation;
  readonly predicate: Expression;
  readonly cases: readonly (MergeUpdate | MergeDelete | MergeInsert)[];
}
export interface TruncateTable extends NodeBase {
  readonly type: 'TruncateTable';
  readonly name: QualifiedName;
}
export interface DropTable extends NodeBase {
  readonly type: 'DropTable';
  readonly name: QualifiedName;
  readonly exists: boolean;
}
/** USER name | ROLE name | name */
export interface PrincipalSpecification extends NodeBase {
  readonly type: 'PrincipalSpecification';
  readonly principalType: 'USER' | 'ROLE' | 'UNSPECIFIED';
  readonly name: Identifier;
}
export interface CreateSchema extends NodeBase {
  readonly type: 'CreateSchema';
  readonly name: QualifiedName;
  readonly notExists: boolean;
  readonly principal: PrincipalSpecification | undefined;
  readonly properties: readonly Property[];
}
export interface DropSchema extends NodeBase {
  readonly type: 'DropSchema';
  readonly name: QualifiedName;
  readonly exists: boolean;
  readonly cascade: boolean;
}
export interface RenameSchema extends NodeBase {
  readonly type: 'RenameSchema';
  readonly source: QualifiedName;
  readonly target: Identifier;
}
/** ALTER TABLE [IF EXISTS] a RENAME TO b */
export interface RenameTable extends NodeBase {
  readonly type: 'RenameTable';
  readonly source: QualifiedName;
  readonly target: QualifiedName;
  readonly exists: boolean;
}
export interface AddColumn extends NodeBase {
  readonly type: 'AddColumn';
  readonly name: QualifiedName;
  readonly column: ColumnDefinition;
  readonly tableExists: boolean;
  readonly columnNotExists: boolean;
}
export interface DropColumn extends NodeBase {
  readonly type: 'DropColumn';
  readonly table: QualifiedName;
  readonly field: QualifiedName;
  readonly tableExists: boolean;
  readonly columnExists: boolean;
}
export interface RenameColumn extends NodeBase {
  readonly type: 'RenameColumn';
  readonly table: QualifiedName;
  readonly source: QualifiedName;
  readonly target: Identifier;
  readonly tableExists: boolean;
  readonly columnExists: boolean;
}
/** ALTER TABLE t ALTER COLUMN c SET DATA TYPE type */
export interface SetColumnType extends NodeBase {
  readonly type: 'SetColumnType';
  readonly tableName: QualifiedName;
  readonly columnName: QualifiedName;
  readonly columnType: DataType;
  readonly tableExists: boolean;
}
/** ALTER TABLE t ALTER COLUMN c DROP NOT NULL */
export interface DropNotNullConstraint extends NodeBase {
  readonly type: 'DropNotNullConstraint';
  readonly table: QualifiedName;
  readonly column: Identifier;
  readonly tableExists: boolean;
}
/** ALTER TABLE|MATERIALIZED VIEW name SET PROPERTIES a = 1, b = DEFAULT */
export interface SetProperties extends NodeBase {
  readonly type: 'SetProperties';
  readonly objectType: 'TABLE' | 'MATERIALIZED VIEW';
  readonly name: QualifiedName;
  readonly properties: readonly Property[];
}
export interface CreateView extends NodeBase {
  readonly type: 'CreateView';
  readonly name: QualifiedName;
  readonly query: Query;
  readonly replace: boolean;
  readonly comment: string | undefined;
  readonly security: 'DEFINER' | 'INVOKER' | undefined;
}
export interface DropView extends NodeBase {
  readonly type: 'DropView';
  readonly name: QualifiedName;
  readonly exists: boolean;
}
export interface CreateMaterializedView extends NodeBase {
  readonly type: 'CreateMaterializedView';
  readonly name: QualifiedName;
  readonly query: Query;
  readonly replace: boolean;
  readonly notExists: boolean;
  readonly gracePeriod: IntervalLiteral | undefined;
  readonly comment: string | undefined;
  readonly properties: readonly Property[];
}
export interface DropMaterializedView extends NodeBase {
  readonly type: 'DropMaterializedView';
  readonly name: QualifiedName;
  readonly exists: boolean;
}
/** COMMENT ON TABLE|VIEW|COLUMN name IS 'text' | NULL (comment undefined) */
export interface Comment extends NodeBase {
  readonly type: 'Comment';
  readonly objectType: 'TABLE' | 'VIEW' | 'COLUMN';
  readonly name: QualifiedName;
  readonly comment: string | undefined;
}
export interface CallArgument extends NodeBase {
  readonly type: 'CallArgument';
  readonly name: Identifier | undefined;
  readonly value: Expression;
}
export interface Call extends NodeBase {
  readonly type: 'Call';
  readonly name: QualifiedName;
  readonly arguments: readonly CallArgument[];
}

/**
 * Statements the project refuses (NOT_SUPPORTED): parsed in full so that real Trino syntax is accepted and
 * anything else is a SYNTAX_ERROR, but kept compact. `text` is the statement's source, which the
 * formatter prints back; `name` is the main object named, when there is one.
 */
export type OtherStatementKind =
  | 'Grant'
  | 'Revoke'
  | 'Deny'
  | 'GrantRoles'
  | 'RevokeRoles'
  | 'CreateRole'
  | 'DropRole'
  | 'ShowGrants'
  | 'ShowRoles'
  | 'ShowRoleGrants'
  | 'SetSessionAuthorization'
  | 'ResetSessionAuthorization'
  | 'CreateFunction'
  | 'DropFunction'
  | 'Analyze'
  | 'RefreshMaterializedView'
  | 'RenameMaterializedView'
  | 'RenameView'
  | 'SetSchemaAuthorization'
  | 'SetTableAuthorization'
  | 'SetViewAuthorization'
  | 'TableExecute'
  | 'CreateCatalog'
  | 'DropCatalog';
export interface OtherStatement extends NodeBase {
  readonly type: OtherStatementKind;
  readonly name: QualifiedName | undefined;
  readonly text: string;
  /** CREATE CATALOG and DROP CATALOG: what the coordinator's catalog manager needs (the rest is text). */
  readonly catalog?: CatalogStatementParts;
}

/** The parts of CREATE CATALOG (connector, properties) and DROP CATALOG (cascade) besides the name. */
export interface CatalogStatementParts {
  /** IF NOT EXISTS (CREATE) or IF EXISTS (DROP). */
  readonly ifClause: boolean;
  readonly connector?: Identifier;
  readonly comment?: string;
  readonly principal?: PrincipalSpecification;
  readonly properties: readonly Property[];
  /** DROP ... CASCADE. */
  readonly cascade: boolean;
}

export type Statement =
  | Query
  | Explain
  | ShowCatalogs
  | ShowSchemas
  | ShowTables
  | ShowColumns
  | ShowFunctions
  | ShowSession
  | ShowCreate
  | ShowStats
  | DescribeInput
  | DescribeOutput
  | Use
  | SetSession
  | ResetSession
  | SetTimeZone
  | SetPath
  | SetRole
  | Prepare
  | Execute
  | ExecuteImmediate
  | Deallocate
  | StartTransaction
  | Commit
  | Rollback
  | CreateTable
  | CreateTableAsSelect
  | Insert
  | Delete
  | Update
  | Merge
  | TruncateTable
  | DropTable
  | CreateSchema
  | DropSchema
  | RenameSchema
  | RenameTable
  | AddColumn
  | DropColumn
  | RenameColumn
  | SetColumnType
  | DropNotNullConstraint
  | SetProperties
  | CreateView
  | DropView
  | CreateMaterializedView
  | DropMaterializedView
  | Comment
  | Call
  | OtherStatement;

/** Nodes that only occur inside others. */
export type AuxiliaryNode =
  | QualifiedName
  | SortItem
  | OrderBy
  | FrameBound
  | WindowFrame
  | WindowSpecification
  | WindowReference
  | WhenClause
  | NumericParameter
  | RowField
  | WithQuery
  | With
  | Offset
  | AllRows
  | Limit
  | FetchFirst
  | SingleColumn
  | AllColumns
  | Select
  | SimpleGroupBy
  | GroupingSets
  | GroupBy
  | WindowDefinition
  | QueryPeriod
  | JoinOn
  | JoinUsing
  | NaturalJoin
  | DescriptorField
  | Descriptor
  | TableFunctionTableArgument
  | TableFunctionArgument
  | CopartitionTables
  | Property
  | ColumnDefinition
  | LikeClause
  | ExplainOption
  | Isolation
  | TransactionAccessMode
  | UpdateAssignment
  | MergeUpdate
  | MergeDelete
  | MergeInsert
  | PrincipalSpecification
  | CallArgument;

/** Any node of the tree. */
export type Node = Statement | Expression | DataType | Relation | QueryBody | AuxiliaryNode;
export type NodeType = Node['type'];
/** The node type named `T`. */
export type NodeOfType<T extends NodeType> = Extract<Node, { type: T }>;
