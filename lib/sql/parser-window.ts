// ORDER BY sort items and window specifications: OVER name | OVER ([existing] [PARTITION BY ...]
// [ORDER BY ...] [RANGE|ROWS|GROUPS [BETWEEN] bound [AND bound]]).
import type { Expression, FrameBound, OrderBy, SortItem, Window, WindowFrame, WindowSpecification } from './ast.js';
import { ExpressionParser } from './parser-expressions.js';

export abstract class WindowParser extends ExpressionParser {
  /** [ORDER BY sortItem (',' sortItem)*] */
  protected orderByClause(): OrderBy | undefined {
    if (!this.atKw('ORDER')) return undefined;
    const start = this.advance().start;
    this.expectKw('BY');
    const sortItems = this.commaList(() => this.sortItem());
    return { type: 'OrderBy', sortItems, location: this.loc(start) };
  }

  /** expression [ASC|DESC] [NULLS FIRST|LAST] */
  protected sortItem(): SortItem {
    const start = this.tok.start;
    const sortKey = this.parseExpression();
    const ordering = this.acceptOneOf(['ASC', 'DESC']) as 'ASC' | 'DESC' | undefined;
    const nullOrdering = this.acceptKw('NULLS') ? this.expectOneOf(['FIRST', 'LAST']) : undefined;
    return { type: 'SortItem', sortKey, ordering, nullOrdering, location: this.loc(start) };
  }

  /** OVER identifier | OVER '(' windowSpecification ')' (the caller saw OVER followed by one of them) */
  protected over(): Window {
    this.advance();
    const start = this.tok.start;
    if (this.isIdentifierToken() && !this.isSym('(')) {
      const name = this.identifier();
      return { type: 'WindowReference', name, location: this.loc(start) };
    }
    this.expectSym('(');
    const spec = this.windowSpecification();
    this.expectSym(')');
    return spec;
  }

  /** The inside of a window's parentheses. */
  protected windowSpecification(): WindowSpecification {
    const start = this.tok.start;
    const existingWindowName = this.startsWindowClause() ? undefined : this.acceptIdentifier();
    let partitionBy: Expression[] = [];
    if (this.atKw('PARTITION') && this.isKw('BY', this.peek())) {
      this.skip(2);
      partitionBy = this.commaList(() => this.parseExpression());
    }
    const orderBy = this.orderByClause();
    const frame = this.atKw('RANGE') || this.atKw('ROWS') || this.atKw('GROUPS') ? this.windowFrame() : undefined;
    return { type: 'WindowSpecification', existingWindowName, partitionBy, orderBy, frame, location: this.loc(start) };
  }

  /** PARTITION BY and frame types are non-reserved: they begin a clause, not a window name, when one follows. */
  private startsWindowClause(): boolean {
    const t = this.tok;
    if (t.keyword === 'PARTITION') return this.isKw('BY', this.peek());
    if (t.keyword === 'RANGE' || t.keyword === 'ROWS' || t.keyword === 'GROUPS') {
      const next = this.peek();
      return !this.isSym(')', next) && next.keyword !== 'ORDER' && next.keyword !== 'PARTITION';
    }
    return false;
  }

  private windowFrame(): WindowFrame {
    const t = this.advance();
    const frameType = t.keyword as 'RANGE' | 'ROWS' | 'GROUPS';
    let end: FrameBound | undefined;
    let start: FrameBound;
    if (this.acceptKw('BETWEEN')) {
      start = this.frameBound();
      this.expectKw('AND');
      end = this.frameBound();
    } else {
      start = this.frameBound();
    }
    return { type: 'WindowFrame', frameType, start, end, location: this.loc(t.start) };
  }

  /** UNBOUNDED PRECEDING|FOLLOWING | CURRENT ROW | expression PRECEDING|FOLLOWING */
  private frameBound(): FrameBound {
    const start = this.tok.start;
    this.expecting("'UNBOUNDED'");
    this.expecting("'CURRENT'");
    if (this.isKw('UNBOUNDED')) {
      this.advance();
      const direction = this.expectOneOf(['PRECEDING', 'FOLLOWING']);
      return { type: 'FrameBound', boundType: `UNBOUNDED_${direction}`, value: undefined, location: this.loc(start) };
    }
    if (this.isKw('CURRENT')) {
      this.advance();
      this.expectKw('ROW');
      return { type: 'FrameBound', boundType: 'CURRENT_ROW', value: undefined, location: this.loc(start) };
    }
    const value = this.parseExpression();
    const boundType = this.expectOneOf(['PRECEDING', 'FOLLOWING']);
    return { type: 'FrameBound', boundType, value, location: this.loc(start) };
  }
}
