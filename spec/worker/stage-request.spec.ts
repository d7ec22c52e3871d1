// The `stage` field of a task request (task-protocol.ts) under hostile input: any JSON in any place is
// a stage read with its types, or a 400 with a message; never anything else.
import { expect } from 'chai';
import fc from 'fast-check';
import { parseTaskPlanRequest } from '../../lib/worker/task-request.js';
import { MAX_BUCKETS, MAX_FRAGMENTS, MAX_STAGE_ITEMS } from '../../lib/cluster/task-protocol.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { session } from './worker-support.js';
import { distributedPlanFor } from '../../lib/planner/statement-plans.js';
import { MAX_SUB_PLAN_DEPTH } from '../../lib/planner/fragment.types.js';
import { tinyMetadata } from '../planner/fragment-runner.js';

const read = (stage: unknown) => parseTaskPlanRequest(JSON.parse(JSON.stringify({ queryId: 'q', sql: 'SELECT 1', session: session(), stage })), 10_000);

function refusal(stage: unknown): VivaceError {
  try {
    read(stage);
  } catch (err) {
    expect(err).to.be.instanceOf(VivaceError);
    return err as VivaceError;
  }
  throw new Error(`accepted ${JSON.stringify(stage).slice(0, 200)}`);
}

describe('task request: stage', () => {
  it('reads a leaf\'s splits and a root\'s inputs', () => {
    expect(read({ kind: 'leaf', splits: [{ file: 'lineitem/lineitem-00001.parquet', slice: 0, slices: 2 }] }).stage)
      .to.deep.equal({ kind: 'leaf', splits: [{ file: 'lineitem/lineitem-00001.parquet', slice: 0, slices: 2 }] });
    expect(read({ kind: 'root', inputs: [{ uri: 'http://127.0.0.1:8081', taskId: 'q.1.0.0' }] }).stage)
      .to.deep.equal({ kind: 'root', inputs: [{ uri: 'http://127.0.0.1:8081', taskId: 'q.1.0.0' }] });
    expect(read(undefined).stage).to.equal(undefined);
    // A lake split's byte range.
    expect(read({ kind: 'leaf', splits: [{ file: 'k=1/f', slice: 0, slices: 1, start: 0, length: 33_554_432 }] }).stage)
      .to.deep.equal({ kind: 'leaf', splits: [{ file: 'k=1/f', slice: 0, slices: 1, start: 0, length: 33_554_432 }] });
  });

  it('refuses odd ones with a 400 and a message', () => {
    for (const stage of [
      'leaf', [], { kind: 'middle' }, { kind: 'leaf' }, { kind: 'leaf', splits: [] }, { kind: 'leaf', splits: [{ file: 1, slice: 0, slices: 1 }] },
      { kind: 'leaf', splits: [{ file: 'a', slice: 0.5, slices: 1 }] }, { kind: 'leaf', splits: Array.from({ length: MAX_STAGE_ITEMS + 1 }, () => ({ file: 'a', slice: 0, slices: 1 })) },
      { kind: 'root', inputs: [{ uri: 'file:///etc/passwd', taskId: 'q.1.0.0' }] }, { kind: 'root', inputs: [{ uri: 'not a url', taskId: 'q' }] },
      { kind: 'root', inputs: [{ uri: 'http://h:1', taskId: 'a b' }] }, { kind: 'root', inputs: [{ uri: `http://h:1/${'x'.repeat(2000)}`, taskId: 'q' }] },
      { kind: 'leaf', splits: [{ file: 'x'.repeat(2000), slice: 0, slices: 1 }] },
      ...[{ start: 0 }, { length: 5 }, { start: -1, length: 5 }, { start: 0, length: 0 }, { start: 0.5, length: 5 }, { start: '0', length: 5 }, { start: 0, length: 2 ** 60 }, { start: 2 ** 52, length: 2 ** 52 }]
        .map((range) => ({ kind: 'leaf', splits: [{ file: 'a', slice: 0, slices: 1, ...range }] })),
    ]) {
      const err = refusal(stage);
      expect(err.httpStatus, JSON.stringify(stage).slice(0, 100)).to.equal(400);
      expect(err.message).to.not.equal('');
    }
  });

  it('reads any JSON value as a stage, or refuses it with a 400', () => {
    const anyStage = fc.oneof(
      fc.jsonValue(),
      fc.record({ kind: fc.constantFrom('leaf', 'root'), splits: fc.array(fc.record({ file: fc.jsonValue(), slice: fc.jsonValue(), slices: fc.jsonValue(), start: fc.oneof(fc.integer(), fc.jsonValue()), length: fc.oneof(fc.integer(), fc.jsonValue()) }, { requiredKeys: [] })), inputs: fc.array(fc.record({ uri: fc.oneof(fc.webUrl(), fc.string()), taskId: fc.string() })) }, { requiredKeys: ['kind'] }),
    );
    fc.assert(fc.property(anyStage, (stage) => {
      let request: ReturnType<typeof read> | undefined;
      try {
        request = read(stage);
      } catch (err) {
        expect(err).to.be.instanceOf(VivaceError);
        expect((err as VivaceError).httpStatus).to.equal(400);
        return;
      }
      const s = request.stage;
      if (s?.kind === 'leaf') {
        for (const split of s.splits) {
          expect([typeof split.file, Number.isSafeInteger(split.slice), Number.isSafeInteger(split.slices)]).to.deep.equal(['string', true, true]);
          if (split.start !== undefined || split.length !== undefined) expect([split.start! >= 0, split.length! >= 1, Number.isSafeInteger(split.start! + split.length!)]).to.deep.equal([true, true, true]);
        }
      }
      if (s?.kind === 'root') for (const input of s.inputs) expect(new URL(input.uri).protocol).to.match(/^https?:$/);
    }), { numRuns: 1000 });
  });

  it('reads a fragment task: splits, inputs per source fragment with a bucket of a HASH output, its output and the plan choices', () => {
    const stage = {
      kind: 'fragment', fragmentId: 1,
      inputs: [{ fragmentId: 2, tasks: [{ uri: 'http://127.0.0.1:8081', taskId: 'q.2.0.0' }], bucket: 1, buckets: 2 }, { fragmentId: 3, tasks: [{ uri: 'http://127.0.0.1:8082', taskId: 'q.3.0.0' }] }],
      output: { kind: 'HASH', buckets: 4 },
      choices: { order: [1, 0, 2], joins: ['PARTITIONED', 'BROADCAST'], split: [true, false, true], semis: [true, false, 'PARTITIONED'], correlated: [false, true], derived: [{ order: [0, 1], joins: ['BROADCAST'], split: [false, true], correlated: [true] }] },
    };
    expect(read(stage).stage).to.deep.equal(stage);
    const leaf = { kind: 'fragment', fragmentId: 2, splits: [{ file: 'orders/orders-00001.parquet', slice: 0, slices: 1 }], inputs: [], output: { kind: 'SINGLE' } };
    expect(read(leaf).stage).to.deep.equal(leaf);
    expect(read({ kind: 'fragment', fragmentId: 0 }).stage).to.deep.equal({ kind: 'fragment', fragmentId: 0, inputs: [] });
    // A gathered plan's held catalogs (memory): a worker without them derives the pinned fragment from them.
    const held = { kind: 'fragment', fragmentId: 0, inputs: [], choices: { order: [], joins: [], split: [false, true], held: ['memory'] } };
    expect(read(held).stage).to.deep.equal(held);
    // Fragments read in place by their consumers (inline-fragments.ts): named in the top choices.
    const inline = { kind: 'fragment', fragmentId: 1, inputs: [], choices: { order: [0, 1], joins: ['BROADCAST'], split: [true, false], inline: [2, 3] } };
    expect(read(inline).stage).to.deep.equal(inline);
    // A scattered scan's task (lib/spooling/scattered-scan.ts): the root over splits, marked in the top choices.
    const scattered = { kind: 'fragment', fragmentId: 0, splits: [{ file: 'lineitem/lineitem-00001.parquet', slice: 0, slices: 1 }], inputs: [], choices: { order: [], joins: [], split: [true], scattered: true } };
    expect(read(scattered).stage).to.deep.equal(scattered);
  });

  it('reads a union\'s branches, each with its kind and its planner\'s choices, and a worker derives the coordinator\'s fragments from them', () => {
    const sql = `SELECT orderpriority AS k, count(*) AS n FROM orders GROUP BY 1 UNION ALL SELECT name, nationkey FROM nation
      UNION ALL SELECT t.n, count(*) FROM (SELECT o.custkey, count(*) AS n FROM orders o GROUP BY o.custkey) AS t GROUP BY t.n
      UNION ALL SELECT p.size, count(*) FROM part p, partsupp ps WHERE p.partkey = ps.partkey AND ps.availqty > 9000
        AND p.retailprice > (SELECT min(l.extendedprice) / 10 FROM lineitem l WHERE l.partkey = p.partkey AND l.quantity > 49) GROUP BY 1`;
    const tiny = session({ catalog: 'tpch', schema: 'tiny' });
    const plan = distributedPlanFor(sql, tiny, tinyMetadata((t) => t === 'orders' || t === 'lineitem'))!;
    expect(plan.choices.branches!.map((b) => b.kind)).to.deep.equal(['fixed', 'single', 'join', 'join']);
    const stage = { kind: 'fragment', fragmentId: 3, inputs: [], output: { kind: 'SINGLE' }, choices: plan.choices };
    const sent = read(stage).stage as { choices: typeof plan.choices };
    expect(sent).to.deep.equal(stage);
    // The worker's own layouts split nothing: the choices say how each branch was planned.
    expect(distributedPlanFor(sql, tiny, tinyMetadata(() => false), sent.choices)).to.deep.equal(plan);
  });

  it('refuses a fragment task out of bounds: ids, bucket counts, a bucket out of range, odd outputs and choices', () => {
    const one = { order: [], joins: [], split: [true] };
    const input = (extra: Record<string, unknown>) => ({ kind: 'fragment', fragmentId: 1, inputs: [{ fragmentId: 2, tasks: [{ uri: 'http://h:1', taskId: 'q.2.0.0' }], ...extra }] });
    for (const stage of [
      { kind: 'fragment' }, { kind: 'fragment', fragmentId: -1 }, { kind: 'fragment', fragmentId: MAX_FRAGMENTS }, { kind: 'fragment', fragmentId: 1.5 },
      { kind: 'fragment', fragmentId: 1, inputs: {} }, { kind: 'fragment', fragmentId: 1, inputs: [{ fragmentId: 0, tasks: [{ uri: 'http://h:1', taskId: 'q' }] }] },
      { kind: 'fragment', fragmentId: 1, inputs: [{ fragmentId: 2, tasks: [] }] },
      input({ bucket: 0 }), input({ buckets: 2 }), input({ bucket: 2, buckets: 2 }), input({ bucket: -1, buckets: 2 }), input({ bucket: 0, buckets: MAX_BUCKETS + 1 }), input({ bucket: 0, buckets: 0 }),
      { kind: 'fragment', fragmentId: 1, output: { kind: 'HASH' } }, { kind: 'fragment', fragmentId: 1, output: { kind: 'HASH', buckets: MAX_BUCKETS + 1 } }, { kind: 'fragment', fragmentId: 1, output: { kind: 'ROUND_ROBIN' } },
      { kind: 'fragment', fragmentId: 1, choices: { joins: ['AUTOMATIC'] } }, { kind: 'fragment', fragmentId: 1, choices: [] },
      { kind: 'fragment', fragmentId: 1, choices: { order: [0, -1], joins: ['BROADCAST'], split: [true, true] } },
      { kind: 'fragment', fragmentId: 1, choices: { order: [0, 1.5], joins: ['BROADCAST'], split: [true, true] } },
      { kind: 'fragment', fragmentId: 1, choices: { order: [0, 1], joins: ['BROADCAST'], split: [true, 'yes'] } },
      { kind: 'fragment', fragmentId: 1, choices: { order: [0, 1], joins: ['BROADCAST'] } },
      { kind: 'fragment', fragmentId: 1, choices: { order: [0, 1], joins: ['BROADCAST'], split: [true, true], semis: [1] } },
      { kind: 'fragment', fragmentId: 1, choices: { order: [0, 1], joins: ['BROADCAST'], split: [true, true], semis: ['BROADCAST'] } },
      { kind: 'fragment', fragmentId: 1, choices: { order: [0, 1], joins: ['BROADCAST'], split: [true, true], correlated: [true, 0] } },
      { kind: 'fragment', fragmentId: 1, choices: { order: [], joins: [], split: [false, true], held: 'memory' } },
      { kind: 'fragment', fragmentId: 1, choices: { order: [], joins: [], split: [false, true], held: [''] } },
      { kind: 'fragment', fragmentId: 1, choices: { order: [], joins: [], split: [false, true], held: ['x'.repeat(257)] } },
      { kind: 'fragment', fragmentId: 1, choices: { order: [0], joins: [], split: [true], derived: [{ order: [0], joins: [], split: [true], correlated: 'yes' }] } },
      // Fragments read in place: ids of fragments other than the root, at the top only.
      ...[[0], [1.5], ['2'], 3, Array.from({ length: MAX_FRAGMENTS + 1 }, () => 1)].map((inline) => ({ kind: 'fragment', fragmentId: 1, choices: { order: [0], joins: [], split: [true], inline } })),
      { kind: 'fragment', fragmentId: 1, choices: { order: [0], joins: [], split: [true], derived: [{ order: [0], joins: [], split: [true], inline: [1] }] } },
      // A scattered scan's mark: true, at the top only.
      ...[false, 1, 'true', {}].map((scattered) => ({ kind: 'fragment', fragmentId: 0, choices: { order: [], joins: [], split: [true], scattered } })),
      { kind: 'fragment', fragmentId: 1, choices: { order: [0], joins: [], split: [true], derived: [{ order: [0], joins: [], split: [true], scattered: true }] } },
      // A derived table's choices are checked alike, and nest only so deep.
      { kind: 'fragment', fragmentId: 1, choices: { order: [0], joins: [], split: [true], derived: [{ order: [0], joins: ['CROSS'], split: [true] }] } },
      { kind: 'fragment', fragmentId: 1, choices: { order: [0], joins: [], split: [true], derived: {} } },
      { kind: 'fragment', fragmentId: 1, choices: Array.from({ length: 10 }).reduce<Record<string, unknown>>((inner) => ({ order: [0], joins: [], split: [true], derived: [inner] }), { order: [0], joins: [], split: [true] }) },
      { kind: 'fragment', fragmentId: 1, choices: { order: Array.from({ length: MAX_FRAGMENTS + 1 }, (_, i) => i % 10), joins: [], split: [] } },
      // A union's branches: a kind of BRANCH_KINDS, choices checked alike, 1 to MAX_FRAGMENTS of them, at the top only, MAX_FRAGMENTS choices in all.
      ...[
        [], {}, [{ kind: 'join' }], [{ kind: 'other', choices: one }], [{ kind: 'fixed', choices: { ...one, split: ['yes'] } }], ['fixed'],
        [{ kind: 'join', choices: { ...one, branches: [{ kind: 'fixed', choices: one }] } }],
        Array.from({ length: MAX_FRAGMENTS + 1 }, () => ({ kind: 'fixed', choices: one })),
        Array.from({ length: MAX_FRAGMENTS / 2 }, () => ({ kind: 'join', choices: { ...one, derived: [one] } })),
        [{ kind: 'join', choices: Array.from({ length: MAX_SUB_PLAN_DEPTH + 1 }).reduce<Record<string, unknown>>((inner) => ({ ...one, derived: [inner] }), one) }],
      ].map((branches) => ({ kind: 'fragment', fragmentId: 1, choices: { order: [], joins: [], split: [], branches } })),
      { kind: 'fragment', fragmentId: 1, choices: { ...one, derived: [{ ...one, branches: [{ kind: 'fixed', choices: one }] }] } },
      { kind: 'fragment', fragmentId: 1, splits: [] }, { kind: 'fragment', fragmentId: 1, inputs: [{ fragmentId: 2, tasks: [{ uri: 'file:///etc/passwd', taskId: 'q' }] }] },
    ]) {
      const err = refusal(stage);
      expect(err.httpStatus, JSON.stringify(stage)).to.equal(400);
      expect(err.message).to.not.equal('');
    }
  });
});
