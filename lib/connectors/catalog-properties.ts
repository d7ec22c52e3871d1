// One catalog file's properties as its connector takes them: each read marks its property used, so what
// is left at the end is unknown (an error, as in Trino); every problem names the property and its line.
import { parseDataSize } from '../protocol/data-size.js';
import { parseDuration } from '../protocol/duration.js';
import type { PropertyEntry } from './properties-text.js';

/** A problem with one property (or a missing one: line undefined). */
export class PropertyProblem extends Error {
  constructor(readonly property: string, readonly line: number | undefined, message: string) {
    super(message);
  }
}

export class CatalogProperties {
  private readonly values = new Map<string, PropertyEntry>();
  private readonly used = new Set<string>();

  /** `file`: where the entries come from (absent for a built-in catalog). A key twice: the last wins, as Properties.load. */
  constructor(entries: readonly PropertyEntry[], readonly file?: string) {
    for (const entry of entries) this.values.set(entry.key, entry);
  }

  fail(property: string, message: string): never {
    throw new PropertyProblem(property, this.values.get(property)?.line, message);
  }

  optional(property: string): string | undefined {
    this.used.add(property);
    return this.values.get(property)?.value.trim();
  }

  take(property: string, fallback: string): string {
    return this.optional(property) ?? fallback;
  }

  required(property: string): string {
    const value = this.optional(property);
    if (value === undefined || value === '') this.fail(property, 'is required');
    return value;
  }

  boolean(property: string, fallback: boolean): boolean {
    const value = this.optional(property);
    if (value === undefined) return fallback;
    const v = value.toLowerCase();
    if (v !== 'true' && v !== 'false') this.fail(property, `must be true or false: ${value}`);
    return v === 'true';
  }

  integer(property: string, fallback: number): number {
    const value = this.optional(property);
    if (value === undefined) return fallback;
    const n = Number(value);
    if (value === '' || !Number.isSafeInteger(n) || n < 1) this.fail(property, `must be a positive integer: ${value}`);
    return n;
  }

  dataSize(property: string, fallback: number): number {
    const value = this.optional(property);
    if (value === undefined) return fallback;
    let bytes: number;
    try {
      bytes = parseDataSize(value);
    } catch {
      this.fail(property, `must be a data size such as 64MB: ${value}`);
    }
    if (!(bytes >= 1)) this.fail(property, `must be at least 1B: ${value}`);
    return bytes;
  }

  duration(property: string): number | undefined {
    const value = this.optional(property);
    if (value === undefined) return undefined;
    try {
      return parseDuration(value);
    } catch {
      this.fail(property, `must be a duration such as 5s: ${value}`);
    }
  }

  /** One of `choices`, case-insensitively (airlift's enum properties), in its canonical spelling. */
  choice<T extends string>(property: string, choices: readonly T[], fallback: T): T {
    const value = this.optional(property);
    if (value === undefined) return fallback;
    const found = choices.find((c) => c.toLowerCase() === value.toLowerCase());
    if (found === undefined) this.fail(property, `must be one of ${choices.join(', ')}: ${value}`);
    return found;
  }

  /** Throws for the first property no read asked for (in file order). */
  checkAllUsed(connector: string): void {
    for (const [key] of [...this.values].sort((a, b) => a[1].line - b[1].line)) {
      if (!this.used.has(key)) this.fail(key, `is not a property of the ${connector} connector here`);
    }
  }
}
