// `new_user` of an impersonation rule: a pattern that may refer to the groups `original_user` captured
// (`"original_user": "team_(.*)", "new_user": "team_$1_sandbox"`), as Trino's ImpersonationRule does
// with Java's appendReplacement. Two deliberate differences, both about hostile names:
// - a captured piece of the user name goes in as a literal (quoted), never as pattern text, so a user
//   named `team_.*` cannot widen the rule to every `team_..._sandbox`;
// - a backslash keeps its pattern meaning (`\.` stays a literal dot), where Java's replacement would drop it.
// References are checked at load: one to a group `original_user` does not have is a startup error
// (Trino finds it only at the first matching request).
import { RulePattern, invalidRules, quotePattern } from './rule-pattern.js';

type Part = { text: string } | { group: number };

function isDigit(c: string | undefined): c is string {
  return c !== undefined && c >= '0' && c <= '9';
}

/** Splits `source` into pattern text and group references, as Java reads `$n` and `${name}` in a replacement. */
function parseTemplate(source: string, original: RulePattern, where: string): Part[] {
  const missing = `${where}: new_user in impersonation rule refers to a capturing group that does not exist in original_user`;
  const parts: Part[] = [];
  let text = '';
  const flush = () => {
    if (text !== '') parts.push({ text });
    text = '';
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      text += source.slice(i, i + 2); // the escape and what it escapes stay pattern text
      i++;
      continue;
    }
    if (c !== '$') {
      text += c;
      continue;
    }
    const next = source[i + 1];
    if (next === '{') {
      const close = source.indexOf('}', i + 2);
      if (close < 0) throw invalidRules(`${where}: new_user has a named group reference without its closing '}'`);
      const group = original.namedGroups[source.slice(i + 2, close)];
      if (group === undefined) throw invalidRules(missing);
      flush();
      parts.push({ group });
      i = close;
    } else if (isDigit(next)) {
      // Java's rule: the first digit is the reference; more digits join while the number stays a group.
      let group = Number(next);
      if (group > original.groupCount) throw invalidRules(missing);
      i++;
      while (isDigit(source[i + 1]) && group * 10 + Number(source[i + 1]) <= original.groupCount) {
        group = group * 10 + Number(source[i + 1]);
        i++;
      }
      flush();
      parts.push({ group });
    } else {
      throw invalidRules(`${where}: new_user has an illegal group reference at '$' (use \\$ for a literal dollar sign)`);
    }
  }
  flush();
  return parts;
}

export class NewUserPattern {
  private constructor(
    /** the pattern as written: used as is when there is no original_user, or no reference in it */
    private readonly plain: RulePattern,
    private readonly template: Part[] | undefined,
    private readonly where: string,
  ) {}

  static compile(source: string, original: RulePattern | undefined, where: string): NewUserPattern {
    // As Trino, new_user must be a valid pattern as written, before any substitution.
    const plain = RulePattern.compile(source, where);
    if (original === undefined) return new NewUserPattern(plain, undefined, where);
    const template = parseTemplate(source, original, where);
    if (template.every((p) => 'text' in p)) return new NewUserPattern(plain, undefined, where);
    const rule = new NewUserPattern(plain, template, where);
    // A substituted piece is always one quoted, grouped literal, so one trial shows the shape is valid for every name.
    RulePattern.compile(rule.substituted(Array(original.groupCount + 1).fill('user')), where);
    return rule;
  }

  private substituted(groups: readonly (string | null)[]): string {
    return this.template!.map((p) => ('text' in p ? p.text : `(?:${quotePattern(groups[p.group] ?? '')})`)).join('');
  }

  /** Whether `newUser` matches, given the groups of `original_user`'s match (when the rule has one). */
  matches(newUser: string, originalGroups: readonly (string | null)[] | undefined): boolean {
    if (this.template === undefined || originalGroups === undefined) return this.plain.matches(newUser);
    return RulePattern.compile(this.substituted(originalGroups), this.where).matches(newUser);
  }
}
