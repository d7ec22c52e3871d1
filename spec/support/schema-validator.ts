// Validates response bodies against schemas/*.schema.json; every schema is loaded and compiled once, on import.
import { AssertionError } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type AnySchemaObject, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';

export const SCHEMAS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../schemas');

/** Every schema document by `$id` (= file name), as parsed JSON. */
export const schemaDocuments: ReadonlyMap<string, AnySchemaObject> = loadSchemas();

// strictRequired is off: schemas add `required` in if/then branches and beside a $ref to a base whose
// `properties` Ajv cannot see; schemas.spec.ts checks instead that every required name is declared.
const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
for (const doc of schemaDocuments.values()) ajv.addSchema(doc);

/** Compiled validators by `$id`; defs.schema.json only holds definitions and is compiled with the others. */
const validators = new Map<string, ValidateFunction>();
for (const id of schemaDocuments.keys()) validators.set(id, ajv.getSchema(id) ?? fail(`schema ${id} did not compile`));

/** The ids of all schemas, e.g. 'statement-final.schema.json'. */
export const schemaIds: readonly string[] = [...schemaDocuments.keys()];

function loadSchemas(): Map<string, AnySchemaObject> {
  const docs = new Map<string, AnySchemaObject>();
  for (const file of readdirSync(SCHEMAS_DIR).filter((f) => f.endsWith('.schema.json')).sort()) {
    const doc = JSON.parse(readFileSync(join(SCHEMAS_DIR, file), 'utf8')) as AnySchemaObject;
    if (doc.$id !== file) throw new Error(`schemas/${file}: $id is ${JSON.stringify(doc.$id)}, expected "${file}"`);
    docs.set(file, doc);
  }
  return docs;
}

function fail(message: string): never {
  throw new Error(message);
}

function validatorFor(schemaId: string): ValidateFunction {
  const id = schemaId.endsWith('.schema.json') ? schemaId : `${schemaId}.schema.json`;
  const validate = validators.get(id);
  if (!validate) throw new Error(`unknown schema "${schemaId}"; known: ${schemaIds.join(', ')}`);
  return validate;
}

/** Ajv errors of `body` against the schema (empty when valid). `schemaId` may omit the `.schema.json` suffix. */
export function validationErrors(schemaId: string, body: unknown): ErrorObject[] {
  const validate = validatorFor(schemaId);
  return validate(body) ? [] : [...(validate.errors ?? [])];
}

export function isValid(schemaId: string, body: unknown): boolean {
  return validationErrors(schemaId, body).length === 0;
}

/** One line per Ajv error: instance path, message, params, schema path. */
export function formatErrors(errors: readonly ErrorObject[]): string {
  return errors
    .map((e) => {
      const params = Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : '';
      return `  ${e.instancePath || '(root)'}: ${e.message ?? e.keyword}${params}  [${e.schemaPath}]`;
    })
    .join('\n');
}

/** Throws an AssertionError listing every Ajv error when `body` does not match the schema. */
export function validateResponse(schemaId: string, body: unknown): void {
  const errors = validationErrors(schemaId, body);
  if (errors.length === 0) return;
  let shown = JSON.stringify(body);
  if (shown !== undefined && shown.length > 2000) shown = `${shown.slice(0, 2000)}...`;
  throw new AssertionError({
    message: `body does not match ${schemaId} (${errors.length} error${errors.length === 1 ? '' : 's'}):\n${formatErrors(errors)}\nbody: ${shown}`,
    actual: body,
    expected: schemaId,
    operator: 'validateResponse',
  });
}

/** For specs: `expectValid('node-list', res.body)`; returns the body so it can be chained. */
export function expectValid<T>(schemaId: string, body: T): T {
  validateResponse(schemaId, body);
  return body;
}
