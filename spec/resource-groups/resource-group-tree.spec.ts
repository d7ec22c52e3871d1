// Resource groups as state (lib/resource-groups/resource-group-tree.ts) against Trino's InternalResourceGroup:
// selection (StaticSelector: first match, templates, named groups), queueing when a group or an ancestor is
// full, QUERY_QUEUE_FULL, and each policy's start order; plus the query types selectors match on.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import fc from 'fast-check';
import { parseResourceGroupsConfig, type ResourceGroupsConfig } from '../../lib/resource-groups/resource-groups-config.js';
import { ResourceGroupTree, globalGroupConfig, type SelectionCriteria } from '../../lib/resource-groups/resource-group-tree.js';
import { queryTypeOf } from '../../lib/resource-groups/selection.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { seeded } from './seeded-random.js';

const EXAMPLE = parseResourceGroupsConfig(readFileSync(new URL('./fixtures/resource-groups-example.json', import.meta.url), 'utf8'), 'example.json');

function config(json: unknown): ResourceGroupsConfig {
  return parseResourceGroupsConfig(JSON.stringify(json), 'rg.json');
}

const group = (name: string, hard: number, extra: Record<string, unknown> = {}) => ({ name, softMemoryLimit: '100%', hardConcurrencyLimit: hard, maxQueued: 10_000, ...extra });

/** One root with sub groups a and b under `policy`; users a* go to a, the rest to b. */
function twoGroups(policy: string, rootHard: number, a: Record<string, unknown> = {}, b: Record<string, unknown> = {}): ResourceGroupsConfig {
  return config({
    rootGroups: [group('root', rootHard, { schedulingPolicy: policy, subGroups: [group('a', 100, a), group('b', 100, b)] })],
    selectors: [{ user: 'a.*', group: 'root.a' }, { group: 'root.b' }],
  });
}

describe('resource group tree (InternalResourceGroup)', () => {
  describe('selection', () => {
    const tree = new ResourceGroupTree(EXAMPLE);
    const select = (criteria: SelectionCriteria) => tree.select(criteria).id.join('.');

    it("places queries as Trino's documented example says", () => {
      expect(select({ user: 'bob' })).to.equal('admin');
      expect(select({ user: 'carol', userGroups: ['staff', 'admin'] })).to.equal('admin');
      expect(select({ user: 'carol', source: 'nightly-pipeline', queryType: 'DATA_DEFINITION' })).to.equal('global.data_definition');
      expect(select({ user: 'carol', source: 'nightly-pipeline', queryType: 'SELECT' })).to.equal('global.pipeline.pipeline_carol');
      // the doc's own case: source jdbc#powerfulbi, user kayla, tags hipri and fast
      expect(select({ user: 'kayla', source: 'jdbc#powerfulbi', clientTags: ['hipri', 'fast'] })).to.equal('global.adhoc.bi-powerfulbi.kayla');
      expect(select({ user: 'kayla', source: 'jdbc#powerfulbi', clientTags: ['fast'] })).to.equal('global.adhoc.other.kayla');
      expect(select({ user: 'dave' })).to.equal('global.adhoc.other.dave');
    });

    it('matches whole values only, as Java matches()', () => {
      expect(select({ user: 'bobby' })).to.equal('global.adhoc.other.bobby');
    });

    it('fails a query no selector matches with QUERY_REJECTED', () => {
      const only = new ResourceGroupTree(config({ rootGroups: [group('g', 1)], selectors: [{ user: 'alice', group: 'g' }] }));
      const error = (() => {
        try {
          only.select({ user: 'mallory' });
        } catch (err) {
          return err as VivaceError;
        }
        throw new Error('selected');
      })();
      expect(error.errorName).to.equal('QUERY_REJECTED');
      expect(error.message).to.equal('Query did not match any selection rule');
    });

    it('expands ${SOURCE} (empty when absent)', () => {
      const bySource = new ResourceGroupTree(config({ rootGroups: [group('s', 1, { subGroups: [group('src-${SOURCE}', 1)] })], selectors: [{ group: 's.src-${SOURCE}' }] }));
      expect(bySource.select({ user: 'u', source: 'cli' }).id).to.deep.equal(['s', 'src-cli']);
      expect(bySource.select({ user: 'u' }).id).to.deep.equal(['s', 'src-']);
    });
  });

  it('runs up to hardConcurrencyLimit, queues the rest, and fails past maxQueued with Trino\'s message', () => {
    const tree = new ResourceGroupTree(config({ rootGroups: [group('g', 2, { maxQueued: 1 })], selectors: [{ group: 'g' }] }));
    const submit = (id: string) => tree.submit({ queryId: id, priority: 1 }, { user: 'u' });
    expect(submit('q1').state).to.equal('running');
    expect(submit('q2').state).to.equal('running');
    expect(submit('q3').state).to.equal('queued');
    const rejected = submit('q4');
    expect(rejected.state).to.equal('rejected');
    if (rejected.state !== 'rejected') return;
    expect(rejected.error.errorName).to.equal('QUERY_QUEUE_FULL');
    expect(rejected.error.message).to.equal('Too many queued queries for "g"');
    expect(tree.finish('q1')).to.deep.equal(['q3']);
    expect(tree.info(['g'])).to.include({ numRunningQueries: 2, numQueuedQueries: 0, state: 'CAN_QUEUE' });
  });

  it('queues a query whose leaf has room while an ancestor is full, and names the leaf when the queue is full', () => {
    const tree = new ResourceGroupTree(config({
      rootGroups: [group('root', 1, { maxQueued: 1, subGroups: [group('${USER}', 5)] })],
      selectors: [{ group: 'root.${USER}' }],
    }));
    expect(tree.submit({ queryId: 'a1', priority: 1 }, { user: 'alice' }).state).to.equal('running');
    expect(tree.submit({ queryId: 'b1', priority: 1 }, { user: 'bob' }).state).to.equal('queued');
    const full = tree.submit({ queryId: 'c1', priority: 1 }, { user: 'carol' });
    expect(full.state === 'rejected' && full.error.message).to.equal('Too many queued queries for "root.carol"');
    expect(tree.finish('a1')).to.deep.equal(['b1']);
    // the template's groups are dropped once empty; the root written in the file stays
    expect(tree.info(['root', 'alice'])).to.equal(undefined);
    expect(tree.info(['root', 'bob'])).to.include({ numRunningQueries: 1 });
    tree.finish('b1');
    expect(tree.info(['root'])).to.include({ numRunningQueries: 0, numQueuedQueries: 0 });
  });

  it('fair: queued queries by arrival, sub groups taking turns', () => {
    const tree = new ResourceGroupTree(twoGroups('fair', 1));
    tree.submit({ queryId: 'a0', priority: 1 }, { user: 'ann' });
    for (const id of ['a1', 'a2', 'a3']) tree.submit({ queryId: id, priority: 1 }, { user: 'ann' });
    for (const id of ['b1', 'b2']) tree.submit({ queryId: id, priority: 1 }, { user: 'ben' });
    const order: string[] = [];
    let running = 'a0';
    for (let i = 0; i < 5; i++) {
      const started = tree.finish(running);
      expect(started).to.have.length(1);
      order.push((running = started[0]!));
    }
    expect(order).to.deep.equal(['a1', 'b1', 'a2', 'b2', 'a3']);
  });

  it('weighted: with weights 3 and 1 the starts split about 3 to 1 while both have work queued', () => {
    const tree = new ResourceGroupTree(twoGroups('weighted', 1, { schedulingWeight: 3 }, { schedulingWeight: 1 }), { random: seeded(42) });
    tree.submit({ queryId: 'first', priority: 1 }, { user: 'ann' });
    for (let i = 0; i < 4500; i++) {
      tree.submit({ queryId: `a${i}`, priority: 1 }, { user: 'ann' });
      tree.submit({ queryId: `b${i}`, priority: 1 }, { user: 'ben' });
    }
    const starts = { a: 0, b: 0 };
    let running = 'first';
    for (let i = 0; i < 4000; i++) {
      running = tree.finish(running)[0]!;
      starts[running[0] as 'a' | 'b']++;
    }
    expect(starts.a + starts.b).to.equal(4000);
    expect(starts.a / starts.b).to.be.within(2.7, 3.3);
  });

  it('weighted_fair: the sub group furthest below its share of running queries starts next', () => {
    const tree = new ResourceGroupTree(twoGroups('weighted_fair', 4, { schedulingWeight: 3 }, { schedulingWeight: 1 }));
    for (let i = 0; i < 4; i++) tree.submit({ queryId: `x${i}`, priority: 1 }, { user: 'ann' });
    for (let i = 0; i < 8; i++) {
      tree.submit({ queryId: `a${i}`, priority: 1 }, { user: 'ann' });
      tree.submit({ queryId: `b${i}`, priority: 1 }, { user: 'ben' });
    }
    // The four slots free one by one: b (none running) gets the first, then a keeps about three of four.
    const started = ['x0', 'x1', 'x2', 'x3'].flatMap((id) => tree.finish(id));
    expect(started).to.deep.equal(['b0', 'a0', 'a1', 'a2']);
  });

  it('query_priority: the highest query_priority first, arrival among equals, across sub groups', () => {
    const tree = new ResourceGroupTree(twoGroups('query_priority', 1));
    tree.submit({ queryId: 'run', priority: 1 }, { user: 'ann' });
    tree.submit({ queryId: 'a-low', priority: 1 }, { user: 'ann' });
    tree.submit({ queryId: 'b-high', priority: 5 }, { user: 'ben' });
    tree.submit({ queryId: 'a-mid', priority: 3 }, { user: 'ann' });
    tree.submit({ queryId: 'b-mid', priority: 3 }, { user: 'ben' });
    const order: string[] = [];
    let running = 'run';
    for (let i = 0; i < 4; i++) order.push((running = tree.finish(running)[0]!));
    expect(order).to.deep.equal(['b-high', 'a-mid', 'b-mid', 'a-low']);
    expect(tree.info(['root', 'a'])!.schedulingPolicy).to.equal('query_priority');
  });

  it('softMemoryLimit: a group over it queues until its running queries report less', () => {
    const tree = new ResourceGroupTree(config({ rootGroups: [group('g', 10, { softMemoryLimit: '1MB' })], selectors: [{ group: 'g' }] }));
    tree.submit({ queryId: 'big', priority: 1 }, { user: 'u' });
    expect(tree.reportUsage('big', { memoryBytes: 2 * 1024 * 1024, cpuMillis: 0 })).to.deep.equal([]);
    expect(tree.submit({ queryId: 'next', priority: 1 }, { user: 'u' }).state).to.equal('queued');
    expect(tree.info(['g'])).to.include({ state: 'CAN_QUEUE', memoryUsageBytes: 2 * 1024 * 1024 });
    expect(tree.reportUsage('big', { memoryBytes: 1024, cpuMillis: 0 })).to.deep.equal(['next']);
  });

  it('softMemoryLimit as a percentage of the cluster memory', () => {
    const tree = new ResourceGroupTree(config({ rootGroups: [group('g', 10, { softMemoryLimit: '50%' })], selectors: [{ group: 'g' }] }), { clusterMemoryBytes: 1000 });
    tree.submit({ queryId: 'q', priority: 1 }, { user: 'u' });
    expect(tree.info(['g'])!.softMemoryLimitBytes).to.equal(500);
    tree.reportUsage('q', { memoryBytes: 501, cpuMillis: 0 });
    expect(tree.submit({ queryId: 'r', priority: 1 }, { user: 'u' }).state).to.equal('queued');
  });

  it('hardCpuLimit: a group that spent its CPU quota queues until the quota regenerates', () => {
    const tree = new ResourceGroupTree(config({ rootGroups: [group('g', 10, { hardCpuLimit: '10s' })], selectors: [{ group: 'g' }], cpuQuotaPeriod: '100s' }));
    tree.submit({ queryId: 'q', priority: 1 }, { user: 'u' });
    tree.reportUsage('q', { memoryBytes: 0, cpuMillis: 12_000 });
    tree.finish('q');
    expect(tree.submit({ queryId: 'r', priority: 1 }, { user: 'u' }).state).to.equal('queued');
    // 10 s per 100 s: 100 ms of quota per second; 2.001 s of CPU to win back takes 21 s
    expect(tree.generateQuotas(20)).to.deep.equal([]);
    expect(tree.generateQuotas(1)).to.deep.equal(['r']);
  });

  it('a new configuration changes the limits of existing groups and starts what now fits', () => {
    const tree = new ResourceGroupTree(config({ rootGroups: [group('g', 1)], selectors: [{ group: 'g' }] }));
    tree.submit({ queryId: 'q1', priority: 1 }, { user: 'u' });
    tree.submit({ queryId: 'q2', priority: 1 }, { user: 'u' });
    expect(tree.reconfigure(config({ rootGroups: [group('g', 2)], selectors: [{ group: 'g' }] }))).to.deep.equal(['q2']);
    expect(tree.info(['g'])!.hardConcurrencyLimit).to.equal(2);
  });

  it('while paused nothing starts; resuming starts what fits', () => {
    const tree = new ResourceGroupTree(globalGroupConfig(2, 10));
    tree.pause();
    expect(tree.submit({ queryId: 'q1', priority: 1 }, { user: 'u' }).state).to.equal('queued');
    expect(tree.resume()).to.deep.equal(['q1']);
  });

  it('refuses a query in a group that has sub groups', () => {
    const tree = new ResourceGroupTree(config({ rootGroups: [group('p', 1, { subGroups: [group('c', 1)] })], selectors: [{ user: 'x', group: 'p.c' }, { group: 'p' }] }));
    tree.submit({ queryId: 'q1', priority: 1 }, { user: 'x' });
    expect(() => tree.submit({ queryId: 'q2', priority: 1 }, { user: 'y' })).to.throw("Cannot add queries to 'p'. It is not a leaf group.");
  });

  it("classes statements as Trino's query types", () => {
    const cases: [string, string | undefined][] = [
      ['SELECT 1', 'SELECT'],
      ['  -- hi\n/* c */ (select 1)', 'SELECT'],
      ['with x as (select 1) select * from x', 'SELECT'],
      // Trino's grammar has no WITH inside parentheses: text that does not parse has no type
      ['(with x as (select 1) select * from x)', undefined],
      ['VALUES 1', 'SELECT'],
      ['EXPLAIN SELECT 1', 'EXPLAIN'],
      ['EXPLAIN ANALYZE INSERT INTO t VALUES 1', 'INSERT'],
      ['EXPLAIN ANALYZE VERBOSE SELECT 1', 'SELECT'],
      ['SHOW TABLES', 'DESCRIBE'],
      ['describe t', 'DESCRIBE'],
      ['INSERT INTO t SELECT 1', 'INSERT'],
      ['CREATE TABLE hive.s.t AS SELECT 1', 'INSERT'],
      ['CREATE TABLE IF NOT EXISTS t WITH (format = \'PARQUET\') AS SELECT 1', 'INSERT'],
      ['CREATE TABLE t (a int) WITH (format = \'PARQUET\')', 'DATA_DEFINITION'],
      ['REFRESH MATERIALIZED VIEW v', 'INSERT'],
      ['UPDATE t SET a = 1', 'UPDATE'],
      ['MERGE INTO t USING s ON true WHEN MATCHED THEN DELETE', 'MERGE'],
      ['DELETE FROM t', 'DELETE'],
      ['ANALYZE t', 'ANALYZE'],
      ['ALTER TABLE t EXECUTE optimize', 'ALTER_TABLE_EXECUTE'],
      ['ALTER TABLE t ADD COLUMN b int', 'DATA_DEFINITION'],
      ['DROP TABLE t', 'DATA_DEFINITION'],
      ['SET SESSION query_priority = 2', 'DATA_DEFINITION'],
      ['START TRANSACTION', 'DATA_DEFINITION'],
      ['EXECUTE stmt', undefined],
      ['', undefined],
      // read from the tree: a quoted name, a column or a comment that spells a keyword changes nothing
      ['CREATE TABLE "AS" (a int)', 'DATA_DEFINITION'],
      ['ALTER TABLE t ADD COLUMN "execute" int', 'DATA_DEFINITION'],
      ['/* DELETE */ SELECT \'INSERT\'', 'SELECT'],
      ['SHOW GRANTS', 'DESCRIBE'],
      ["EXECUTE IMMEDIATE 'DELETE FROM t'", 'DELETE'],
    ];
    for (const [sql, type] of cases) expect(queryTypeOf(sql), sql).to.equal(type);
  });

  it('classes EXECUTE as the statement it runs, as Trino\'s QueryPreparer prepares it', () => {
    const session = { preparedStatements: { ins: 'INSERT INTO t VALUES 1', Sel: 'SELECT 1' } };
    expect(queryTypeOf('EXECUTE ins', session)).to.equal('INSERT');
    expect(queryTypeOf('EXECUTE sel', session)).to.equal('SELECT');
    expect(queryTypeOf('EXPLAIN ANALYZE EXECUTE ins', session)).to.equal('INSERT');
    expect(queryTypeOf('EXECUTE other', session)).to.equal(undefined);
  });

  it('under any policies, limits and order of events: limits hold, and every accepted query starts exactly once', () => {
    const policy = fc.constantFrom('fair', 'weighted', 'weighted_fair', 'query_priority');
    const limits = fc.record({ hard: fc.integer({ min: 0, max: 3 }), queued: fc.integer({ min: 0, max: 4 }) });
    const op = fc.oneof(
      fc.record({ kind: fc.constant('submit' as const), user: fc.constantFrom('ann', 'ben', 'cy'), priority: fc.integer({ min: 1, max: 3 }) }),
      fc.record({ kind: fc.constant('finish' as const), pick: fc.nat() }),
    );
    fc.assert(fc.property(policy, limits, limits, fc.array(op, { maxLength: 60 }), fc.integer(), (rootPolicy, root, leaf, ops, seed) => {
      const weighted = rootPolicy === 'weighted' || rootPolicy === 'weighted_fair';
      const tree = new ResourceGroupTree(config({
        rootGroups: [group('root', Math.max(root.hard, 1), { maxQueued: root.queued, schedulingPolicy: rootPolicy, subGroups: [group('${USER}', leaf.hard, { maxQueued: leaf.queued, ...(weighted ? { schedulingWeight: 2 } : {}) })] })],
        selectors: [{ group: 'root.${USER}' }],
      }), { random: seeded(seed) });
      const running = new Set<string>();
      const queued = new Set<string>();
      const startedTwice: string[] = [];
      const start = (ids: string[]) => {
        for (const id of ids) {
          if (running.has(id) || !queued.delete(id)) startedTwice.push(id);
          running.add(id);
        }
      };
      const check = () => {
        expect(tree.runningCount).to.equal(running.size);
        expect(tree.queuedCount).to.equal(queued.size);
        expect(running.size).to.be.at.most(Math.max(root.hard, 1));
        expect(queued.size).to.be.at.most(root.queued);
        for (const info of tree.groups()) {
          expect(info.numRunningQueries).to.be.at.most(info.hardConcurrencyLimit);
          expect(info.numQueuedQueries).to.be.at.most(info.maxQueuedQueries);
        }
      };
      let n = 0;
      for (const step of ops) {
        if (step.kind === 'submit') {
          const id = `q${n++}`;
          const outcome = tree.submit({ queryId: id, priority: step.priority }, { user: step.user });
          if (outcome.state === 'running') running.add(id);
          if (outcome.state === 'queued') queued.add(id);
        } else if (running.size + queued.size > 0) {
          const all = [...running, ...queued];
          const id = all[step.pick % all.length]!;
          running.delete(id);
          queued.delete(id);
          start(tree.finish(id));
        }
        check();
      }
      // Drained: with every group able to run one, each queued query starts as the running ones end.
      while (running.size > 0) {
        const id = running.values().next().value!;
        running.delete(id);
        start(tree.finish(id));
        check();
      }
      if (leaf.hard > 0) expect([...queued]).to.deep.equal([]);
      expect(startedTwice).to.deep.equal([]);
    }), { numRuns: 300 });
  });
});
