// Static view of the schema documents for specs: resolve $ref, gather the schemas that apply to one
// instance location, and list what they declare (property schemas, types, patterns).
import type { AnySchemaObject } from 'ajv/dist/2020.js';
import { schemaDocuments } from '../support/schema-validator.js';

/** A schema node together with the document its relative $refs resolve against. */
export interface Located {
  doc: string;
  node: AnySchemaObject | boolean;
}

export function at(docId: string, pointer = ''): Located {
  const root = schemaDocuments.get(docId);
  if (!root) throw new Error(`no schema document ${docId}`);
  let node: unknown = root;
  for (const part of pointer.split('/').filter(Boolean)) {
    const key = decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
    node = (node as Record<string, unknown> | undefined)?.[key];
    if (node === undefined) throw new Error(`${docId}#${pointer} does not exist`);
  }
  return { doc: docId, node: node as AnySchemaObject | boolean };
}

export function resolveRef(ref: string, fromDoc: string): Located {
  const [file, pointer = ''] = ref.split('#');
  return at(file || fromDoc, pointer);
}

/** The node and every schema it pulls in for the same instance: $ref targets and allOf/anyOf/oneOf/then/else members. */
export function expand(start: Located): Located[] {
  const out: Located[] = [];
  const seen = new Set<unknown>();
  const visit = (l: Located): void => {
    if (seen.has(l.node)) return;
    seen.add(l.node);
    out.push(l);
    if (typeof l.node !== 'object') return;
    const s = l.node;
    if (typeof s.$ref === 'string') visit(resolveRef(s.$ref, l.doc));
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      for (const member of (s[key] as AnySchemaObject[] | undefined) ?? []) visit({ doc: l.doc, node: member });
    }
    for (const key of ['then', 'else'] as const) if (s[key] !== undefined) visit({ doc: l.doc, node: s[key] });
  };
  visit(start);
  return out;
}

/** Every schema that the group gives for property `name` (a `false` entry means the property is forbidden). */
export function propertySchemas(group: readonly Located[], name: string): Located[] {
  const found: Located[] = [];
  for (const l of group) {
    if (typeof l.node !== 'object') continue;
    const props = l.node.properties as Record<string, AnySchemaObject | boolean> | undefined;
    if (props && Object.prototype.hasOwnProperty.call(props, name)) found.push({ doc: l.doc, node: props[name] });
  }
  return found;
}

/** What the schemas of a property say about it, after expanding every candidate. */
export interface PropertyFacts {
  declared: boolean;
  forbidden: boolean;
  types: Set<string>;
  patterns: Set<string>;
}

export function propertyFacts(group: readonly Located[], name: string): PropertyFacts {
  const candidates = propertySchemas(group, name);
  const facts: PropertyFacts = { declared: candidates.length > 0, forbidden: false, types: new Set(), patterns: new Set() };
  for (const c of candidates) {
    for (const l of expand(c)) {
      if (l.node === false) facts.forbidden = true;
      if (typeof l.node !== 'object') continue;
      const t = l.node.type as string | string[] | undefined;
      for (const one of t === undefined ? [] : Array.isArray(t) ? t : [t]) facts.types.add(one);
      if (typeof l.node.pattern === 'string') facts.patterns.add(l.node.pattern);
    }
  }
  return facts;
}

/** The schemas applying to the instance at a property path, e.g. ['stats', 'rootStage'] of a statement response. */
export function groupAt(start: Located, path: readonly string[] = []): Located[] {
  let group = expand(start);
  for (const name of path) group = propertySchemas(group, name).flatMap(expand);
  return group;
}

/**
 * Checks what Ajv's strictRequired cannot see through $ref and if/then: every name in a `required` list is
 * declared in `properties` of some schema applying to the same instance. Returns "doc#path: name" per miss.
 */
export function undeclaredRequired(): string[] {
  const misses: string[] = [];
  const walk = (l: Located, path: string, sameLevel: readonly Located[]): void => {
    if (typeof l.node !== 'object') return;
    const s = l.node;
    const group = [...sameLevel, ...expand(l)];
    for (const name of (s.required as string[] | undefined) ?? []) {
      if (propertySchemas(group, name).length === 0) misses.push(`${l.doc}#${path}: ${name}`);
    }
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      ((s[key] as AnySchemaObject[] | undefined) ?? []).forEach((m, i) => walk({ doc: l.doc, node: m }, `${path}/${key}/${i}`, group));
    }
    for (const key of ['if', 'then', 'else', 'not'] as const) {
      if (s[key] !== undefined) walk({ doc: l.doc, node: s[key] }, `${path}/${key}`, group);
    }
    for (const [name, sub] of Object.entries((s.properties as Record<string, AnySchemaObject> | undefined) ?? {})) {
      const siblings = propertySchemas(group, name).filter((c) => c.node !== sub).flatMap(expand);
      walk({ doc: l.doc, node: sub }, `${path}/properties/${name}`, siblings);
    }
    if (s.items !== undefined) walk({ doc: l.doc, node: s.items }, `${path}/items`, []);
    if (s.additionalProperties !== undefined) walk({ doc: l.doc, node: s.additionalProperties }, `${path}/additionalProperties`, []);
    for (const [name, sub] of Object.entries((s.$defs as Record<string, AnySchemaObject> | undefined) ?? {})) {
      walk({ doc: l.doc, node: sub }, `${path}/$defs/${name}`, []);
    }
  };
  for (const doc of schemaDocuments.keys()) walk(at(doc), '', []);
  return misses;
}
