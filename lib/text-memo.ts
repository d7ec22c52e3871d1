// A bounded memo of what a pure function of a text answers (a fragment's table names, whether it may meet
// zoned values): the coordinator and workers plan each statement anew, but its fragments' texts recur with
// the query. Most recently used last; the oldest goes past `max` entries, and a text longer than `maxText`
// is never kept (its answer is computed every time).
export class TextMemo<T> {
  private readonly kept = new Map<string, T>();

  constructor(private readonly max: number, private readonly maxText: number) {}

  /** `compute(key)`'s answer, kept. */
  get(key: string, compute: (key: string) => T): T {
    if (this.kept.has(key)) {
      const value = this.kept.get(key)!;
      this.kept.delete(key);
      this.kept.set(key, value);
      return value;
    }
    const value = compute(key);
    if (key.length <= this.maxText) {
      this.kept.set(key, value);
      if (this.kept.size > this.max) this.kept.delete(this.kept.keys().next().value!);
    }
    return value;
  }

  get size(): number {
    return this.kept.size;
  }
}
