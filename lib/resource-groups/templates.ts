// Resource group names and ids with variables, as Trino's ResourceGroupNameTemplate and ResourceGroupIdTemplate:
// `pipeline_${USER}` is one segment, `global.adhoc.${USER}` a path of segments. A variable name is a letter
// then letters or digits; any other '$', '{' or '}' is an error, and so is a '.' inside a segment.

export type NameFragment = { literal: string } | { variable: string };

/** Trino's messages (checkArgument in ResourceGroupNameTemplate), thrown as plain errors for the caller to place. */
export class TemplateError extends Error {}

function isLetter(ch: string): boolean {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

function isDigit(ch: string): boolean {
  return ch >= '0' && ch <= '9';
}

/** Whether `name` can be a template variable (and so a named regex group that defines one). */
export function isVariableName(name: string): boolean {
  if (name.length === 0 || !isLetter(name[0]!)) return false;
  for (const ch of name) if (!isLetter(ch) && !isDigit(ch)) return false;
  return true;
}

/** The `${name}` at `at`, or undefined when there is none. */
function variableAt(text: string, at: number): string | undefined {
  if (text[at] !== '$' || text[at + 1] !== '{') return undefined;
  const close = text.indexOf('}', at + 2);
  if (close < 0) return undefined;
  const name = text.slice(at + 2, close);
  return isVariableName(name) ? name : undefined;
}

export class NameTemplate {
  readonly fragments: readonly NameFragment[];

  constructor(readonly text: string) {
    if (text.length === 0) throw new TemplateError('Resource group name is empty');
    if (text.includes('.')) throw new TemplateError(`Invalid resource group name. '${text}' contains a '.'`);
    const fragments: NameFragment[] = [];
    let literal = '';
    for (let i = 0; i < text.length; ) {
      const variable = variableAt(text, i);
      if (variable !== undefined) {
        if (literal) fragments.push({ literal });
        literal = '';
        fragments.push({ variable });
        i += variable.length + 3;
        continue;
      }
      const ch = text[i]!;
      if (ch === '$' || ch === '{' || ch === '}') throw new TemplateError(`Invalid resource group name. '${text}' contains extraneous '$', '{', or '}`);
      literal += ch;
      i++;
    }
    if (literal) fragments.push({ literal });
    this.fragments = fragments;
  }

  get variables(): string[] {
    return this.fragments.flatMap((f) => ('variable' in f ? [f.variable] : []));
  }

  expand(variables: ReadonlyMap<string, string>): string {
    let out = '';
    for (const fragment of this.fragments) {
      if ('literal' in fragment) {
        out += fragment.literal;
        continue;
      }
      const value = variables.get(fragment.variable);
      if (value === undefined) {
        throw new TemplateError(`unresolved variable '${fragment.variable}' in resource group '${this.text}', available: ${javaMap(variables)}`);
      }
      out += value;
    }
    return out;
  }

  toString(): string {
    return this.text;
  }
}

/** A map as Java's toString prints it: `{USER=alice, SOURCE=}`. */
function javaMap(map: ReadonlyMap<string, string>): string {
  return `{${[...map].map(([k, v]) => `${k}=${v}`).join(', ')}}`;
}

export class IdTemplate {
  readonly segments: readonly NameTemplate[];

  constructor(readonly text: string) {
    this.segments = text.split('.').map((segment) => new NameTemplate(segment));
  }

  get variables(): Set<string> {
    return new Set(this.segments.flatMap((segment) => segment.variables));
  }

  /** The group id as its path of names. */
  expand(variables: ReadonlyMap<string, string>): string[] {
    return this.segments.map((segment) => segment.expand(variables));
  }

  toString(): string {
    return this.text;
  }
}
