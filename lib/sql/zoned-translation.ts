// The translation of what makes and reads `timestamp with time zone` values, as zoned values
// (zoned-timestamps.ts): literals, AT TIME ZONE, casts, current_timestamp and the zone functions make them;
// fields, casts, comparisons and differences read them through the zoned macros
// (lib/engine/zoned-macros.ts), which pass any other value on unchanged. Reading is wrapped only in a
// statement that may meet zoned values (mayMeetZones), so other statements translate as before. Where the
// tree states the zone (staticZone: a constant one), the work is constant-zone SQL without dispatch.
// duckdb-printer.ts calls in here; rewritten calls are new call nodes the printer prints as usual.
import type { DataType, Expression, FunctionCall, Node } from './ast.js';
import { fold } from './names.js';
import { numeric } from './duckdb-type-names.js';
import { quoteString } from './sql-formatter.js';
import { parseZone, type Zone } from './time-zones.js';
import { constantZone, knownZone, naive, staticZone } from './static-zones.js';
import { instantKey, isColumn, surelyUnzoned, ZONED_UTC, zonedMacro, zonedType, zonedValue } from './zoned-timestamps.js';
import { declaredType } from './declared-types.js';
import type { ErrorName } from '../protocol/error-codes.js';
import type { VivaceError } from '../protocol/vivace-error.js';

/** What the zoned translation needs from the printer. */
export interface ZonedPrinter {
  expression(e: Expression): string;
  dataType(t: DataType): string;
  /** Whether the statement may meet zoned values (zoned-timestamps.ts mayMeetZones). */
  meetsZones(): boolean;
  /** Whether its columns may take the typed macros directly (zoned-timestamps.ts typedColumnsIn). */
  typedColumns(): boolean;
  /** The session's zone as zoned values name it (`UTC`, `America/New_York`, `+05:30`). */
  readonly sessionZoneName: string;
  /**
   * The query's start (epoch milliseconds), which current_timestamp, now(), current_date, current_time,
   * localtime and localtimestamp all read, as Trino reads the session's start: every task of a staged plan
   * prints the same instant. Absent: DuckDB's transaction start (get_current_timestamp()).
   */
  readonly queryStart: number | undefined;
  fail(node: Node, name: ErrorName, message: string): VivaceError;
}

/** Functions of a timestamp's local fields: on a zoned value they read its local time in its zone. */
const LOCAL_FIELD_FUNCTIONS: ReadonlySet<string> = new Set([
  'year', 'quarter', 'month', 'week', 'week_of_year', 'day', 'day_of_month', 'day_of_week', 'dow', 'day_of_year', 'doy',
  'hour', 'minute', 'second', 'millisecond', 'year_of_week', 'yow', 'last_day_of_month', 'date_format', 'format_datetime', 'date',
]);

/** date_diff units Trino counts on the instant (duration fields); longer ones count in the local calendar. */
const INSTANT_UNITS: ReadonlySet<string> = new Set(['millisecond', 'second', 'minute', 'hour']);

const dateTimeType = (kind: 'TIMESTAMP' | 'TIME', withTimeZone: boolean, precision: number): DataType =>
  ({ type: 'DateTimeDataType', kind, withTimeZone, precision: { type: 'NumericParameter', value: String(precision) } }) as DataType;

const identifier = (value: string, at: Node) => ({ type: 'Identifier' as const, value, quoted: false, location: at.location });

/** A call node of `name` standing where `at` stands (so errors in it point there). */
export function callNode(name: string, args: readonly Expression[], at: Node): FunctionCall {
  return {
    type: 'FunctionCall', name: { type: 'QualifiedName', parts: [identifier(name, at)], location: at.location }, distinct: false,
    arguments: args, orderBy: undefined, filter: undefined, nullTreatment: undefined, window: undefined, location: at.location,
  };
}

const text = (value: string, at: Node): Expression => ({ type: 'StringLiteral', value, location: at.location }) as Expression;

/** `struct_extract(e, 'vivace_utc')`: a zoned value's instant as a naive UTC time. */
const utcField = (e: Expression): Expression => callNode('struct_extract', [e, text(ZONED_UTC, e)], e);

/** Whether an expression is a name or a literal, or a cast of one: cheap to write twice, and holding nothing written twice. */
const simple = (e: Expression): boolean =>
  isColumn(e) || e.type.endsWith('Literal') || (e.type === 'Cast' && simple(e.expression));

/**
 * `body(v)` of the value `sql` (of `e`), NULL when it is NULL (a zoned value of NULL would be a row of
 * NULLs): a simple value is written twice, anything else bound once (a value written twice per level of
 * nesting would double the text per level).
 */
function nullSafe(e: Expression, sql: string, body: (v: string) => string): string {
  if (simple(e)) return `CASE WHEN ${sql} IS NULL THEN NULL ELSE ${body(sql)} END`;
  return `list_transform([${sql}], lambda vivace_n: CASE WHEN vivace_n IS NULL THEN NULL ELSE ${body('vivace_n')} END)[1]`;
}

/** Operands that are neither a timestamp nor an interval: arithmetic over them is DuckDB's to refuse, with its location. */
const NEVER_TEMPORAL: ReadonlySet<string> = new Set(['ArrayConstructor', 'Row']);

export class ZonedTranslation {
  constructor(private readonly p: ZonedPrinter) {}

  /** Whether the SQL printed holds the query's start: its text is that query's alone (a plan cached by text must not serve another query). */
  readsQueryStart = false;

  /** Whether `e` is to be read through the zoned macros: the statement meets zones and `e` may be zoned. */
  private reads(e: Expression | undefined): e is Expression {
    return e !== undefined && this.p.meetsZones() && !surelyUnzoned(e);
  }

  private session(at: Node): Expression {
    return text(this.p.sessionZoneName, at);
  }

  /** `vivace_local(e, session)`: a zoned value's local time, anything else as it is; in a constant zone, without dispatch. */
  private local(e: Expression): Expression {
    const zone = this.staticZone(e);
    if (zone) return callNode('vivace_local_us', [utcField(e), text(zone.name, e)], e);
    return callNode(zonedMacro('vivace_local', e, this.p.typedColumns()), [e, this.session(e)], e);
  }

  /** `vivace_instant_key(e)`: a zoned value's instant, anything else as it is. */
  private key(e: Expression): Expression {
    if (!this.reads(e)) return e;
    return this.staticZone(e) ? utcField(e) : callNode(instantKey(e, this.p.typedColumns()), [e], e);
  }

  /** The precision the tree declares for a timestamp with time zone expression, or undefined. */
  private static precision(e: Expression): number | undefined {
    const t = declaredType(e);
    return t?.base === 'timestamp with time zone' ? (t as { precision: number }).precision : undefined;
  }

  /** A zone argument as zoned values name it: a constant read here (failing as Trino does), else in SQL. */
  private zoneName(zone: Expression): Expression {
    const constant = this.constantZone(zone);
    return constant ? text(constant.name, zone) : callNode('vivace_zone_name', [zone], zone);
  }

  /** A constant zone argument as Trino names it (static-zones.ts), or undefined for a computed one. */
  private constantZone(zone: Expression): Zone | undefined {
    return constantZone(zone, this.p.fail);
  }

  /** The session's zone, as Trino names it. */
  private get sessionZone(): Zone {
    return knownZone(this.p.sessionZoneName) ?? parseZone(this.p.sessionZoneName) ?? { name: 'UTC' };
  }

  /** The zone every value of `e` carries where the tree states it (static-zones.ts), else undefined. */
  staticZone(e: Expression): Zone | undefined {
    return staticZone(e, this.sessionZone, this.p.fail);
  }


  /** `value` as a zoned value in `zone`: the same instant (a timestamp without zone read in the session's zone). */
  private atZone(value: Expression, zone: Expression, at: Node): Expression {
    return callNode('vivace_set_zone', [callNode('vivace_zoned', [value, this.session(at)], value), this.zoneName(zone)], at);
  }

  /**
   * DuckDB SQL of `value` in constant zone `zone` where the tree tells what `value` is (a timestamp or
   * date read in `from`, or a zoned value) and the result's precision: no dispatch, no per-row zone.
   */
  private atConstantZone(value: Expression, zone: Zone, from: Zone, precision: number | undefined): string | undefined {
    if (precision === undefined || precision > 6) return undefined;
    let utc: ((v: string) => string) | undefined;
    if (naive(value)) utc = (v) => `vivace_utc_of(${v}, ${quoteString(from.name)})`;
    else if (declaredType(value)?.base === 'timestamp with time zone') utc = (v) => `struct_extract(${v}, '${ZONED_UTC}')`;
    if (!utc) return undefined;
    return nullSafe(value, this.p.expression(value), (v) => zonedValue(utc!(v), quoteString(zone.name), precision));
  }

  /** The query's start as a naive UTC timestamp (a literal: the same text in every task of the query), or DuckDB's transaction start. */
  private instant(): string {
    const start = this.p.queryStart;
    if (start === undefined) return `timezone('UTC', get_current_timestamp())`;
    this.readsQueryStart = true;
    return `TIMESTAMP '${new Date(start).toISOString().replace('T', ' ').slice(0, 23)}'`;
  }

  /**
   * current_timestamp(p) and now(), current_date, current_time(p), localtime(p) and localtimestamp(p) of
   * the query's start, read in the session's zone as Trino does (precision 3 unless given).
   */
  private currentTime(fn: Extract<Expression, { type: 'CurrentTime' }>['function'], precision: number | undefined): string {
    const zone = quoteString(this.p.sessionZoneName);
    const p = precision ?? 3;
    const local = `vivace_local_us(${this.instant()}, ${zone})`;
    switch (fn) {
      case 'CURRENT_TIMESTAMP':
        return zonedValue(this.instant(), zone, p);
      case 'CURRENT_DATE':
        return `CAST(${local} AS DATE)`;
      case 'LOCALTIMESTAMP':
        return `CAST(${local} AS ${this.p.dataType(dateTimeType('TIMESTAMP', false, p))})`;
      case 'LOCALTIME':
        return `CAST(${local} AS TIME)`;
      case 'CURRENT_TIME':
        return `CAST(vivace_zoned_timetz(${zonedValue(this.instant(), zone, p)}) AS TIMETZ)`;
    }
  }

  /** DuckDB SQL of an expression that makes or reads zoned values, or undefined to print it as usual. */
  expression(e: Expression): string | undefined {
    const p = this.p;
    switch (e.type) {
      case 'AtTimeZone': {
        const zone = this.constantZone(e.timeZone);
        return (zone && this.atConstantZone(e.value, zone, this.sessionZone, ZonedTranslation.precision(e))) ?? p.expression(this.atZone(e.value, e.timeZone, e));
      }
      case 'CurrentTime':
        return this.currentTime(e.function, e.precision);
      case 'Extract': {
        if (!this.reads(e.expression)) return undefined;
        if (e.field === 'TIMEZONE_HOUR' || e.field === 'TIMEZONE_MINUTE') {
          return p.expression(callNode(zonedMacro(e.field === 'TIMEZONE_HOUR' ? 'vivace_timezone_hour' : 'vivace_timezone_minute', e.expression, this.p.typedColumns()), [e.expression, this.session(e)], e));
        }
        return `EXTRACT(${e.field} FROM ${p.expression(this.local(e.expression))})`;
      }
      case 'Cast':
        return this.cast(e);
      case 'ComparisonExpression':
        return this.reads(e.left) && this.reads(e.right) ? `(${p.expression(this.key(e.left))} ${e.operator} ${p.expression(this.key(e.right))})` : undefined;
      case 'BetweenPredicate':
        if (!this.reads(e.value)) return undefined;
        return `(${p.expression(this.key(e.value))} ${e.negated ? 'NOT ' : ''}BETWEEN ${p.expression(this.key(e.min))} AND ${p.expression(this.key(e.max))})`;
      case 'InPredicate': {
        if (!this.reads(e.value)) return undefined;
        const list = e.valueList.type === 'InListExpression' ? `(${e.valueList.values.map((v) => p.expression(this.key(v))).join(', ')})` : this.keyedSubquery(e.valueList);
        return list && `(${p.expression(this.key(e.value))} ${e.negated ? 'NOT ' : ''}IN ${list})`;
      }
      case 'QuantifiedComparisonExpression': {
        const subquery = this.reads(e.value) ? this.keyedSubquery(e.subquery) : undefined;
        return subquery && `(${p.expression(this.key(e.value))} ${e.operator} ${e.quantifier} ${subquery})`;
      }
      case 'SimpleCaseExpression': {
        // CASE x WHEN a: equality of instants.
        if (!this.reads(e.operand)) return undefined;
        const whens = e.whenClauses.map((w) => `WHEN ${p.expression(this.key(w.operand))} THEN ${p.expression(w.result)}`).join(' ');
        return `(CASE ${p.expression(this.key(e.operand))} ${whens}${e.defaultValue ? ` ELSE ${p.expression(e.defaultValue)}` : ''} END)`;
      }
      default:
        return undefined;
    }
  }

  /** A subquery of one column (`IN (SELECT ...)`, `= ANY (SELECT ...)`) printed with that column's instant, or undefined for another shape. */
  private keyedSubquery(subquery: Extract<Expression, { type: 'SubqueryExpression' }>): string | undefined {
    const body = subquery.query.body;
    const item = body.type === 'QuerySpecification' && body.select.selectItems.length === 1 ? body.select.selectItems[0] : undefined;
    if (body.type !== 'QuerySpecification' || item?.type !== 'SingleColumn' || surelyUnzoned(item.expression)) return undefined;
    const keyed = { ...body, select: { ...body.select, selectItems: [{ ...item, expression: callNode(instantKey(item.expression, this.p.typedColumns()), [item.expression], item.expression) }] } };
    return this.p.expression({ ...subquery, query: { ...subquery.query, body: keyed } });
  }

  /**
   * a + b or a - b where neither side is written as an interval (the printer takes those): a zoned value
   * moved by an interval, or two zoned values' difference, is for DuckDB to tell by their types.
   */
  arithmetic(operator: '+' | '-', left: Expression, right: Expression, at: Node): string | undefined {
    if (!this.reads(left) || !this.reads(right) || NEVER_TEMPORAL.has(left.type) || NEVER_TEMPORAL.has(right.type)) return undefined;
    const name = `vivace_zoned_${operator === '+' ? 'plus' : 'minus'}`;
    const macro = isColumn(left) && isColumn(right) ? `vivace_typed_${name}` : name;
    return this.p.expression(callNode(macro, [left, right], at));
  }

  private cast(e: Extract<Expression, { type: 'Cast' }>): string | undefined {
    const p = this.p;
    const target = e.targetType;
    const cast = e.safe ? 'TRY_CAST' : 'CAST';
    if (target.type === 'DateTimeDataType' && target.kind === 'TIMESTAMP' && target.withTimeZone) {
      const precision = target.precision?.type === 'NumericParameter' ? Number(target.precision.value) : 3;
      // DuckDB casts between second and millisecond timestamps only through microseconds (rounding, as Trino).
      const value = p.expression(callNode('vivace_zoned', [e.expression, this.session(e)], e));
      const zoned = `CAST(${precision === 6 || precision === 9 ? value : `CAST(${value} AS ${zonedType(6)})`} AS ${zonedType(precision)})`;
      // A text that is no timestamp fails inside vivace_zoned, where TRY_CAST cannot see it.
      return e.safe ? `try(${zoned})` : zoned;
    }
    if (!this.reads(e.expression)) return undefined;
    if (target.type === 'DateTimeDataType' && target.kind === 'TIME' && target.withTimeZone) {
      return `${cast}(${p.expression(callNode(zonedMacro('vivace_zoned_timetz', e.expression, this.p.typedColumns()), [e.expression], e))} AS ${p.dataType(target)})`;
    }
    const name = target.type === 'GenericDataType' ? fold(target.name.value) : undefined;
    const local = (target.type === 'DateTimeDataType' && !target.withTimeZone) || name === 'date';
    if (local) {
      const value = p.expression(this.local(e.expression));
      // To timestamp(p): rounded half up, as Trino (lib/engine/temporal-macros.ts; DuckDB truncates, or has no cast from nanoseconds to _S).
      const precision = target.type === 'DateTimeDataType' && target.kind === 'TIMESTAMP' ? (numeric(target.precision) ?? 3) : 9;
      const rounded = precision < 9 ? `${precision <= 6 ? 'vivace_round_us' : 'vivace_round_ns'}(${value}, ${precision})` : value;
      return `${cast}(${rounded} AS ${p.dataType(target)})`;
    }
    if (name === 'varchar' || name === 'char') return `${cast}(${p.expression(callNode(zonedMacro('vivace_zoned_text', e.expression, this.p.typedColumns()), [e.expression], e))} AS ${p.dataType(target)})`;
    return undefined;
  }

  /**
   * A call that makes or reads zoned values as the call to print instead (its arguments rewritten), or
   * DuckDB SQL for it; undefined to print the call as it is.
   */
  call(name: string, call: FunctionCall): FunctionCall | string | undefined {
    const args = call.arguments;
    const [first, second, third] = args;
    switch (name) {
      case 'now':
        return args.length === 0 ? this.currentTime('CURRENT_TIMESTAMP', undefined) : undefined;
      case 'at_timezone': {
        if (args.length !== 2) return undefined;
        const zone = this.constantZone(second!);
        return (zone && this.atConstantZone(first!, zone, this.sessionZone, ZonedTranslation.precision(call))) ?? (this.atZone(first!, second!, call) as FunctionCall);
      }
      case 'with_timezone': {
        if (args.length !== 2) return undefined;
        const constant = this.constantZone(second!);
        const fast = constant && this.atConstantZone(first!, constant, constant, ZonedTranslation.precision(call));
        if (fast) return fast;
        // The local time read in the zone given, kept in it.
        const zone = this.zoneName(second!);
        return callNode('vivace_set_zone', [callNode('vivace_zoned', [first!, zone], first!), zone], call);
      }
      case 'from_unixtime': {
        if (args.length < 1 || args.length > 3) return undefined;
        const instant = `timezone('UTC', to_timestamp(CAST(${this.p.expression(first!)} AS DOUBLE)))`;
        let zone = quoteString(this.p.sessionZoneName);
        if (args.length === 2) zone = this.p.expression(this.zoneName(second!));
        if (args.length === 3) {
          const minutes = `(CAST(${this.p.expression(second!)} AS INTEGER) * 60 + CAST(${this.p.expression(third!)} AS INTEGER))`;
          zone = `vivace_zone_name(CASE WHEN ${minutes} < 0 THEN '-' ELSE '+' END || lpad((abs(${minutes}) // 60)::VARCHAR, 2, '0') || ':' || lpad((abs(${minutes}) % 60)::VARCHAR, 2, '0'))`;
        }
        return zonedValue(instant, zone, 3);
      }
      case 'nullif': {
        // NULL when the instants are equal.
        if (args.length !== 2 || !this.reads(first) || !this.reads(second)) return undefined;
        return `(CASE WHEN ${this.p.expression(this.key(first!))} = ${this.p.expression(this.key(second!))} THEN NULL ELSE ${this.p.expression(first!)} END)`;
      }
      case 'from_iso8601_timestamp':
        return args.length === 1 ? `CAST(${this.p.expression(callNode('vivace_zoned', [first!, this.session(call)], call))} AS ${zonedType(3)})` : undefined;
      default:
        break;
    }
    if (name === 'date_trunc' && args.length === 2) {
      // In a constant zone: truncate the local time there, without dispatch.
      const zone = this.staticZone(second!);
      const precision = ZonedTranslation.precision(call);
      if (zone && precision !== undefined && precision <= 6) {
        const z = quoteString(zone.name);
        const unit = this.p.expression(first!);
        return nullSafe(second!, this.p.expression(second!), (v) =>
          zonedValue(`vivace_utc_of(system.main.date_trunc(${unit}, vivace_local_us(struct_extract(${v}, '${ZONED_UTC}'), ${z})), ${z})`, z, precision));
      }
    }
    if (name === 'date_diff' && args.length === 3 && this.reads(second) && this.reads(third)) {
      // Units up to an hour count on the instants, longer ones on the local times (Trino's chronology fields).
      const onInstants = first!.type === 'StringLiteral' && INSTANT_UNITS.has(first!.value.toLowerCase());
      return { ...call, arguments: [first!, onInstants ? this.key(second!) : this.local(second!), onInstants ? this.key(third!) : this.local(third!)] };
    }
    if (!this.reads(first)) return undefined;
    if (LOCAL_FIELD_FUNCTIONS.has(name)) return { ...call, arguments: [this.local(first), ...args.slice(1)] };
    if ((name === 'timezone_hour' || name === 'timezone_minute') && args.length === 1) return callNode(zonedMacro(`vivace_${name}`, first, this.p.typedColumns()), [first, this.session(call)], call);
    if (name === 'to_unixtime' && args.length === 1) return { ...call, arguments: [this.key(first)] };
    return undefined;
  }
}
