// Trees of queries that passed the SQL gate, by session catalog, schema and text: a client repeating a
// query (dashboards, benchmarks, retries) skips the parse and the checks. Bounded: oldest out first.
// (Admission depends on nothing else today; once access control is per user, the user joins the key.)
import type { Statement } from '../sql/ast.js';

export class AdmittedQueries {
  private readonly trees = new Map<string, Statement>();

  constructor(
    private readonly capacity = 1000,
    /** Longer texts are not kept (the key holds the text). */
    private readonly maxTextLength = 10_000,
  ) {}

  static key(sql: string, catalog: string | undefined, schema: string | undefined): string {
    return `${catalog ?? ''}\u0000${schema ?? ''}\u0000${sql}`;
  }

  get(key: string): Statement | undefined {
    return this.trees.get(key);
  }

  /** Keeps `statement` if it is a query: its admission depends on nothing but the key (not on prepared statements). */
  remember(key: string, statement: Statement): void {
    if (statement.type !== 'Query' || key.length > this.maxTextLength) return;
    if (this.trees.size >= this.capacity) this.trees.delete(this.trees.keys().next().value!);
    this.trees.set(key, statement);
  }
}
