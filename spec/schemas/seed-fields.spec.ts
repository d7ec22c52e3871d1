// Every field the seed's tables name must be declared, with a compatible JSON type, in the matching schema.
// The seed's field tables are a fixture of the project (spec/fixtures/seed-fields.md, copied verbatim from the
// seed), so a clone with nothing beside it checks the same contract.
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { at, groupAt, propertyFacts, type Located } from './schema-tree.js';

const SEED_PATH = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures/seed-fields.md');

interface SeedRow {
  /** One row may name several fields: "totalSplits, queuedSplits, runningSplits, completedSplits". */
  names: string[];
  type: string;
  notes: string;
}

/** The first markdown table after the line that starts with `title` (a heading or a "queryStats fields:" line). */
function seedTable(lines: readonly string[], title: string): SeedRow[] {
  const start = lines.findIndex((l) => l.replace(/^#+\s*/, '').startsWith(title));
  if (start < 0) throw new Error(`seed has no section "${title}"`);
  let i = start + 1;
  while (i < lines.length && !lines[i].startsWith('|')) {
    if (/^#/.test(lines[i])) throw new Error(`seed section "${title}" has no table`);
    i++;
  }
  const rows: SeedRow[] = [];
  for (i += 2; i < lines.length && lines[i].startsWith('|'); i++) {
    const cells = lines[i].split('|').slice(1, -1).map((c) => c.trim());
    rows.push({ names: cells[0].split(',').map((n) => n.trim()).filter(Boolean), type: cells[1], notes: cells[2] ?? '' });
  }
  if (rows.length === 0) throw new Error(`seed table "${title}" is empty`);
  return rows;
}

/** "Fields: `user` (string), `startTime` (integer, ...)" inside a note or a line of the seed. */
function inlineFields(text: string): SeedRow[] {
  return [...text.matchAll(/`(\w+)` \(([^)]*)\)/g)].map((m) => ({ names: [m[1]], type: m[2], notes: '' }));
}

/** The JSON type the seed's type text means. */
function jsonType(seedType: string): string {
  const t = seedType.toLowerCase();
  for (const [prefix, json] of [['string', 'string'], ['integer', 'integer'], ['number', 'number'], ['boolean', 'boolean'], ['object', 'object'], ['stage object', 'object'], ['array', 'array']] as const) {
    if (t.startsWith(prefix)) return json;
  }
  throw new Error(`unknown seed type "${seedType}"`);
}

/** The shared pattern a seed type text implies, if any (URL, ISO 8601, airlift duration, data size). */
function formatDef(seedType: string): string | undefined {
  if (/\bURL\b/.test(seedType)) return 'absoluteUrl';
  if (/ISO 8601/.test(seedType)) return 'isoTime';
  if (/duration/i.test(seedType)) return 'duration';
  if (/data size/i.test(seedType)) return 'dataSize';
  return undefined;
}

function patternOf(def: string): string {
  const node = at('defs.schema.json', `/$defs/${def}`).node;
  if (typeof node !== 'object' || typeof node.pattern !== 'string') throw new Error(`defs ${def} has no pattern`);
  return node.pattern;
}

/** JSON types a field may take beyond the seed's, from protocol features added later: `data` as the spooling protocol's object. */
const BEYOND_SEED: Readonly<Record<string, readonly string[]>> = { data: ['object'] };

/** One `it` per field: declared in the group, typed as the seed says, with the shared pattern where the seed implies one. */
function checkFields(label: string, group: () => Located[], rows: readonly SeedRow[], forbidden: readonly string[] = []): void {
  for (const row of rows) {
    for (const name of row.names) {
      if (forbidden.includes(name)) {
        it(`${label}: forbids ${name} (seed says it carries none)`, () => {
          expect(propertyFacts(group(), name).forbidden, `${label} should set "${name}": false`).to.equal(true);
        });
        continue;
      }
      it(`${label}: ${name} is ${row.type}`, () => {
        const facts = propertyFacts(group(), name);
        expect(facts.declared, `${label} does not declare "${name}"`).to.equal(true);
        expect(facts.forbidden, `${label} forbids "${name}"`).to.equal(false);
        const beyond = Object.hasOwn(BEYOND_SEED, name) ? BEYOND_SEED[name]! : [];
        expect([...facts.types].filter((t) => !beyond.includes(t)), `JSON type of ${label}.${name}`).to.deep.equal([jsonType(row.type)]);
        const def = formatDef(row.type);
        if (def) expect([...facts.patterns], `pattern of ${label}.${name} (${def})`).to.include(patternOf(def));
      });
    }
  }
}

describe('schemas cover every field of the seed', () => {
  if (!existsSync(SEED_PATH)) {
    it('finds the seed fixture', () => {
      expect.fail(`seed fixture not found at ${SEED_PATH}; it is the contract these specs check the schemas against`);
    });
    return;
  }
  const lines = readFileSync(SEED_PATH, 'utf8').split('\n');

  describe('Statement response', () => {
    const rows = seedTable(lines, 'Statement response');
    const notesSay = (which: RegExp): string[] =>
      rows.filter((r) => which.test(r.notes)).flatMap((r) => r.names.filter((n) => new RegExp(`carries no ${n}\\b`).test(r.notes)));
    const finalForbids = notesSay(/final-result response carries no/);
    const initialForbids = notesSay(/initial POST response carries no/);

    it('the seed notes name what the final and initial responses lack', () => {
      expect(finalForbids).to.deep.equal(['nextUri']);
      expect(initialForbids).to.deep.equal(['data']);
    });
    checkFields('statement-progress', () => groupAt(at('statement-progress.schema.json')), rows);
    checkFields('statement-final', () => groupAt(at('statement-final.schema.json')), rows, finalForbids);
    checkFields('statement-initial', () => groupAt(at('statement-initial.schema.json')), rows, initialForbids);

    const columnLine = lines.find((l) => l.startsWith('Column:'));
    it('the seed describes the column object', () => expect(columnLine, 'seed line "Column: ..."').to.be.a('string'));
    checkFields('defs column', () => groupAt(at('defs.schema.json', '/$defs/column')), inlineFields(columnLine ?? ''));
    checkFields('statement-progress columns[]', () => groupAt(at('defs.schema.json', '/$defs/columns/items')), inlineFields(columnLine ?? ''));
  });

  describe('Query statistics (stats)', () => {
    const rows = seedTable(lines, 'Query statistics (stats)');
    checkFields('defs statementStats', () => groupAt(at('defs.schema.json', '/$defs/statementStats')), rows);
    checkFields('statement-final stats', () => groupAt(at('statement-final.schema.json'), ['stats']), rows);
  });

  describe('Stage object', () => {
    const rows = seedTable(lines, 'Stage object');
    checkFields('defs stage', () => groupAt(at('defs.schema.json', '/$defs/stage')), rows);
    checkFields('statement-initial stats.rootStage', () => groupAt(at('statement-initial.schema.json'), ['stats', 'rootStage']), rows);
  });

  describe('Node object', () => {
    const rows = seedTable(lines, 'Node object');
    checkFields('node', () => groupAt(at('node.schema.json')), rows);
    const failure = rows.find((r) => r.names.includes('lastFailureInfo'));
    checkFields('node lastFailureInfo', () => groupAt(at('node.schema.json'), ['lastFailureInfo']), inlineFields(failure?.notes ?? ''));
    it('node-list items are node objects', () => {
      const items = at('node-list.schema.json', '/items').node;
      expect(items).to.deep.equal({ $ref: 'node.schema.json' });
    });
  });

  describe('Query information object', () => {
    const rows = seedTable(lines, 'Query information object');
    checkFields('query-info', () => groupAt(at('query-info.schema.json')), rows);
    const session = rows.find((r) => r.names.includes('session'));
    checkFields('query-info session', () => groupAt(at('query-info.schema.json'), ['session']), inlineFields(session?.notes ?? ''));
  });

  describe('queryStats fields', () => {
    const rows = seedTable(lines, 'queryStats fields:');
    checkFields('query-info queryStats', () => groupAt(at('query-info.schema.json'), ['queryStats']), rows);
  });
});
