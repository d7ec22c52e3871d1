// The regular expressions of the access-control rules file. The operator writes them, but they run over
// user and catalog names, which clients choose, so they run on RE2 (re2js: linear time, no backtracking),
// never on JavaScript's RegExp. As Trino's Java `Matcher.matches()`, a pattern must match the whole name.
import { RE2JS } from 're2js';
import { VivaceError } from '../protocol/vivace-error.js';

/** Longest piece of a pattern quoted back in an error message. */
const SHOWN_PATTERN_CHARS = 200;

/** `text` for an error message: JSON-quoted, and cut when long. */
export function shown(text: string): string {
  return JSON.stringify(text.length > SHOWN_PATTERN_CHARS ? `${text.slice(0, SHOWN_PATTERN_CHARS)}...` : text);
}

/** A rules-file problem: the operator's, found at load (startup or refresh). */
export function invalidRules(message: string): VivaceError {
  return new VivaceError('CONFIGURATION_INVALID', message);
}

/** RE2's own reason, without the pattern it echoes (which may be huge). */
function reasonOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const cut = message.indexOf(': `');
  return cut < 0 ? message : message.slice(0, cut);
}

export class RulePattern {
  private constructor(
    readonly source: string,
    private readonly re: RE2JS,
  ) {}

  /**
   * `where` names the rule and field for the error, e.g. `queries[2].user`. RE2 refuses what would need
   * backtracking (backreferences, lookaround, possessive or atomic groups): a clear error, not a slow match.
   */
  static compile(source: string, where: string): RulePattern {
    try {
      return new RulePattern(source, RE2JS.compile(source));
    } catch (err) {
      throw invalidRules(`${where}: invalid pattern ${shown(source)}: ${reasonOf(err)}`);
    }
  }

  /** Whole-name match, as Java's `matches()`: `alice` matches neither `alice2` nor `malice`. */
  matches(text: string): boolean {
    return this.re.matches(text);
  }

  get groupCount(): number {
    return this.re.groupCount();
  }

  /** Capturing group numbers by name (`(?<name>...)` or `(?P<name>...)`). */
  get namedGroups(): Readonly<Record<string, number>> {
    return this.re.namedGroups();
  }

  /** The groups of a whole-name match (index 0 is the whole name; null for a group that took no part), or undefined. */
  wholeMatch(text: string): (string | null)[] | undefined {
    const matcher = this.re.matcher(text);
    if (!matcher.matches()) return undefined;
    const groups: (string | null)[] = [];
    for (let i = 0; i <= matcher.groupCount(); i++) groups.push(matcher.group(i));
    return groups;
  }
}

/** Escapes `text` so that RE2 reads it as itself. */
export function quotePattern(text: string): string {
  return RE2JS.quote(text);
}
