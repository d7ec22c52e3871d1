// Zones the tree states as constants, where a timestamp with time zone's zone is the same for every row:
// a literal's zone, AT TIME ZONE / at_timezone / with_timezone with a constant zone, the session's for
// current_timestamp, now(), from_unixtime and casts of timestamps, and what date_trunc, date_add and interval
// arithmetic keep. zoned-translation.ts works in such a zone as constant-zone SQL (DuckDB prepares the zone
// once), and zoned-grouping.ts groups such values as they are. Zone names are Trino's (its zone keys).
import type { Expression, Node } from './ast.js';
import { fold } from './names.js';
import { knownZone, literalParts, offsetZone, type Zone } from './time-zones.js';

export { knownZone };
import { declaredType } from './declared-types.js';
import type { ErrorName } from '../protocol/error-codes.js';
import type { VivaceError } from '../protocol/vivace-error.js';

/** Raises a translation error at a node. */
export type Fail = (node: Node, name: ErrorName, message: string) => VivaceError;

/**
 * A zone argument written as a constant (a string, an HOUR/MINUTE interval literal) as Trino names it,
 * failing as Trino does for one it does not know; undefined for a computed zone.
 */
export function constantZone(zone: Expression, fail: Fail): Zone | undefined {
  if (zone.type === 'StringLiteral') {
    const parsed = knownZone(zone.value);
    if (!parsed) throw fail(zone, 'INVALID_FUNCTION_ARGUMENT', `Time zone not supported: ${zone.value}`);
    return parsed;
  }
  if (zone.type === 'IntervalLiteral' && (zone.startField === 'HOUR' || zone.startField === 'MINUTE')) {
    const minutes = intervalMinutes(zone.value, zone.startField, zone.endField);
    const parsed = minutes === undefined ? undefined : offsetZone(zone.sign === 'NEGATIVE' ? -minutes : minutes);
    if (!parsed) throw fail(zone, 'INVALID_FUNCTION_ARGUMENT', `Invalid time zone offset interval: ${zone.value}`);
    return parsed;
  }
  return undefined;
}

/** Whether the tree says `e` is a timestamp without zone or a date (a literal, a cast). */
export function naive(e: Expression): boolean {
  if (declaredType(e)?.base === 'timestamp') return true;
  if (e.type === 'GenericLiteral') return fold(e.typeName.value) === 'date';
  return e.type === 'Cast' && e.targetType.type === 'GenericDataType' && fold(e.targetType.name.value) === 'date';
}

/** Whether an operand is written as an interval (a literal, a cast to one, a negated one). */
export const isIntervalText = (e: Expression): boolean =>
  e.type === 'IntervalLiteral' || (e.type === 'Cast' && e.targetType.type === 'IntervalDataType') || (e.type === 'ArithmeticUnaryExpression' && isIntervalText(e.value));

/** The zone every value of `e` carries where the tree states it (see above); undefined where it may vary from row to row. */
export function staticZone(e: Expression, session: Zone, fail: Fail): Zone | undefined {
  switch (e.type) {
    case 'GenericLiteral': {
      const parts = fold(e.typeName.value) === 'timestamp' ? literalParts(e.value) : undefined;
      return parts && knownZone(parts.zone.name);
    }
    case 'AtTimeZone':
      return constantZone(e.timeZone, fail);
    case 'CurrentTime':
      return e.function === 'CURRENT_TIMESTAMP' ? session : undefined;
    case 'Cast': {
      const target = e.targetType;
      if (target.type !== 'DateTimeDataType' || target.kind !== 'TIMESTAMP' || !target.withTimeZone) return undefined;
      return staticZone(e.expression, session, fail) ?? (naive(e.expression) ? session : undefined);
    }
    case 'ArithmeticBinaryExpression':
      if (e.operator === '+' && isIntervalText(e.left)) return staticZone(e.right, session, fail);
      return (e.operator === '+' || e.operator === '-') && isIntervalText(e.right) ? staticZone(e.left, session, fail) : undefined;
    case 'FunctionCall': {
      const name = fold(e.name.parts[e.name.parts.length - 1]!.value);
      const args = e.arguments;
      if ((name === 'now' && args.length === 0) || (name === 'from_unixtime' && args.length === 1)) return session;
      if ((name === 'at_timezone' || name === 'with_timezone' || name === 'from_unixtime') && args.length === 2) return constantZone(args[1]!, fail);
      if (name === 'date_trunc' && args.length === 2) return staticZone(args[1]!, session, fail);
      if (name === 'date_add' && args.length === 3) return staticZone(args[2]!, session, fail);
      return undefined;
    }
    default:
      return undefined;
  }
}

/** Minutes of an HOUR, MINUTE or HOUR TO MINUTE interval literal's text (`2`, `-5`, `05:30`), or undefined. */
function intervalMinutes(value: string, from: string, to: string | undefined): number | undefined {
  const v = value.trim();
  const negative = v.startsWith('-');
  const body = negative ? v.slice(1) : v;
  const parts = body.split(':');
  if (parts.length > 2 || parts.some((x) => x.length === 0 || x.length > 2 || [...x].some((c) => c < '0' || c > '9'))) return undefined;
  let minutes: number;
  if (parts.length === 2) {
    if (from !== 'HOUR' || to !== 'MINUTE') return undefined;
    minutes = Number(parts[0]) * 60 + Number(parts[1]);
  } else {
    if (to !== undefined && to !== from) return undefined;
    minutes = from === 'HOUR' ? Number(parts[0]) * 60 : Number(parts[0]);
  }
  return negative ? -minutes : minutes;
}
