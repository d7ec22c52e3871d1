// The `type` rule of SqlBase.g4: ROW(...), INTERVAL x TO y, TIMESTAMP/TIME [(p)] [WITH[OUT] TIME ZONE],
// DOUBLE PRECISION, legacy ARRAY<t> / MAP<k,v>, `t ARRAY`, and generic name(args).
import type { DataType, GenericDataType, Identifier, IntervalField, NumericParameter, RowField } from './ast.js';
import { ParserBase } from './parser-base.js';

export const INTERVAL_FIELDS: readonly IntervalField[] = ['YEAR', 'MONTH', 'DAY', 'HOUR', 'MINUTE', 'SECOND'];

export abstract class TypeParser extends ParserBase {
  protected isIntervalFieldToken(t = this.tok): boolean {
    return t.keyword !== undefined && (INTERVAL_FIELDS as readonly string[]).includes(t.keyword);
  }

  protected intervalField(): IntervalField {
    return this.expectOneOf(INTERVAL_FIELDS);
  }

  /** type, reported as <type>. */
  protected parseType(): DataType {
    const saved = this.beginRule('<type>');
    this.enter();
    const start = this.tok.start;
    let type = this.typePrimary();
    let wraps = 0;
    // type ARRAY ('[' INTEGER_VALUE ']')?
    while (this.atKw('ARRAY')) {
      const arrayToken = this.advance();
      if (this.isSym('[')) this.errorAt(this.tok.start, 'Explicit array size not supported');
      this.enter();
      wraps++;
      type = genericType(this.keywordIdentifier(arrayToken.start, arrayToken.end, 'ARRAY'), [type], this.loc(start));
    }
    this.leave(wraps + 1);
    this.endRule(saved);
    return type;
  }

  private typePrimary(): DataType {
    const t = this.tok;
    const next = this.peek();
    if (t.keyword === 'ROW' && this.isSym('(', next)) return this.rowType();
    if (t.keyword === 'INTERVAL' && this.isIntervalFieldToken(next)) {
      this.advance();
      const from = this.intervalField();
      const to = this.acceptKw('TO') ? this.intervalField() : from;
      return { type: 'IntervalDataType', from, to, location: this.loc(t.start) };
    }
    if (t.keyword === 'TIMESTAMP' || t.keyword === 'TIME') return this.dateTimeType(t.keyword);
    if (t.keyword === 'DOUBLE' && next.keyword === 'PRECISION') {
      this.skip(2);
      return genericType(this.keywordIdentifier(t.start, t.end, t.text), [], this.loc(t.start));
    }
    if ((t.keyword === 'ARRAY' || t.keyword === 'MAP') && this.isSym('<', next)) return this.legacyType(t.keyword);
    const name = this.identifier();
    const args = this.atSym('(') ? this.parenthesizedList(() => this.typeParameter()) : [];
    return genericType(name, args, this.loc(t.start));
  }

  /** INTEGER_VALUE | type */
  private typeParameter(): DataType | NumericParameter {
    this.expecting('<integer>');
    if (this.tok.kind === 'integer') {
      const t = this.advance();
      return { type: 'NumericParameter', value: t.text, location: { start: t.start, end: t.end } };
    }
    return this.parseType();
  }

  private rowType(): DataType {
    const start = this.advance().start;
    this.expectSym('(');
    const fields: RowField[] = [];
    do {
      const fieldStart = this.tok.start;
      const name = this.isNamedRowField() ? this.identifier() : undefined;
      fields.push({ type: 'RowField', name, fieldType: this.parseType(), location: this.loc(fieldStart) });
    } while (this.acceptSym(','));
    this.expectSym(')');
    return { type: 'RowDataType', fields, location: this.loc(start) };
  }

  /** rowField: `identifier type` when a name is followed by a type; `int ARRAY` and DOUBLE PRECISION are types. */
  private isNamedRowField(): boolean {
    const next = this.peek();
    if (!this.isIdentifierToken() || !this.isIdentifierToken(next)) return false;
    const after = this.peek(2);
    const ends = this.isSym(',', after) || this.isSym(')', after);
    if (ends && next.keyword === 'ARRAY') return false;
    return !(ends && this.tok.keyword === 'DOUBLE' && next.keyword === 'PRECISION');
  }

  private dateTimeType(kind: 'TIMESTAMP' | 'TIME'): DataType {
    const start = this.advance().start;
    let precision: DataType | NumericParameter | undefined;
    if (this.acceptSym('(')) {
      precision = this.typeParameter();
      this.expectSym(')');
    }
    // WITH only when TIME follows: a column's `WITH (properties)` may come next.
    const withTimeZone = this.atKw('WITH') && this.isKw('TIME', this.peek());
    if (withTimeZone || this.acceptKw('WITHOUT')) {
      if (withTimeZone) this.advance();
      this.expectKw('TIME');
      this.expectKw('ZONE');
    }
    return { type: 'DateTimeDataType', kind, withTimeZone, precision, location: this.loc(start) };
  }

  /** ARRAY<t>, MAP<k, v> */
  private legacyType(kind: 'ARRAY' | 'MAP'): DataType {
    const t = this.advance();
    this.expectSym('<');
    const args = [this.parseType()];
    if (kind === 'MAP') {
      this.expectSym(',');
      args.push(this.parseType());
    }
    this.expectSym('>');
    return genericType(this.keywordIdentifier(t.start, t.end, t.text), args, this.loc(t.start));
  }

  protected keywordIdentifier(start: number, end: number, value: string): Identifier {
    return { type: 'Identifier', value, quoted: false, location: { start, end } };
  }
}

function genericType(
  name: Identifier,
  args: readonly (DataType | NumericParameter)[],
  location: { start: number; end: number },
): GenericDataType {
  return { type: 'GenericDataType', name, arguments: args, location };
}
