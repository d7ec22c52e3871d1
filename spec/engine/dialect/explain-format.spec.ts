// EXPLAIN's printer on its own (no DuckDB): Trino's TextRenderer layout (tree characters, detail
// indentation, fragments), prestodb's `- Output[PlanNodeId n][...] => [...]` line, airlift's durations
// and sizes, and IoPlanPrinter's JSON as Jackson prints it.
import { expect } from 'chai';
import { parseDuckDbPlan, renderDistributedText, renderExplainText, renderIoPlan, scannedTables, succinctBytes, type ExplainText } from '../../../lib/engine/dialect/explain-format.js';
import { nameParts } from '../../../lib/engine/dialect/explain-statement.js';

/** DuckDB's `EXPLAIN (FORMAT JSON)` of a join of two scans under a projection. */
const JOIN_PLAN = JSON.stringify([
  {
    name: 'PROJECTION',
    children: [
      {
        name: 'HASH_JOIN',
        children: [
          { name: 'SEQ_SCAN ', children: [], extra_info: { Table: 'tpch.tiny.nation', Projections: ['regionkey', 'name'], 'Estimated Cardinality': '25' } },
          { name: 'SEQ_SCAN ', children: [], extra_info: { Table: 'tpch.tiny.region', Projections: 'regionkey', Filters: 'regionkey>1', 'Estimated Cardinality': '5' } },
        ],
        extra_info: { 'Join Type': 'INNER', Conditions: 'regionkey = regionkey', 'Estimated Cardinality': '25' },
      },
    ],
    extra_info: { Projections: ['name'], 'Estimated Cardinality': '25' },
  },
]);

const request = (overrides: Partial<ExplainText> = {}): ExplainText => ({
  dialect: 'trino',
  type: 'LOGICAL',
  analyze: false,
  version: '1.2.3',
  columns: [{ name: 'name', type: 'varchar(25)' }],
  plan: parseDuckDbPlan(JOIN_PLAN),
  tableName: (n) => n.split('.').join(':'),
  ...overrides,
});

describe('EXPLAIN printer', () => {
  it("prints TYPE LOGICAL as Trino's TextRenderer: version, Output, tree characters, details under a │ while children follow", () => {
    expect(renderExplainText(request()).split('\n')).to.deep.equal([
      'Trino version: 1.2.3',
      'Output[columnNames = [name]]',
      '│   Layout: [name:varchar(25)]',
      '│   Estimates: {rows: 25 (?), cpu: ?, memory: ?, network: ?}',
      '└─ Project',
      '   │   Layout: [name:varchar(25)]',
      '   │   Estimates: {rows: 25 (?), cpu: ?, memory: ?, network: ?}',
      '   └─ InnerJoin[criteria = regionkey = regionkey]',
      '      │   Estimates: {rows: 25 (?), cpu: ?, memory: ?, network: ?}',
      '      ├─ TableScan[table = tpch:tiny:nation]',
      '      │      Estimates: {rows: 25 (?), cpu: ?, memory: ?, network: ?}',
      '      │      regionkey := tpch:regionkey',
      '      │      name := tpch:name',
      '      └─ ScanFilter[table = tpch:tiny:region, filterPredicate = regionkey>1]',
      '             Estimates: {rows: 5 (?), cpu: ?, memory: ?, network: ?}',
      '             regionkey := tpch:regionkey',
      '',
    ]);
  });

  it('prints TYPE DISTRIBUTED as one SINGLE fragment, its output lines, the tree indented one level', () => {
    const lines = renderExplainText(request({ type: 'DISTRIBUTED', columns: [{ name: 'n', type: 'bigint' }, { name: '_col1', type: 'double' }] })).split('\n');
    expect(lines.slice(0, 8)).to.deep.equal([
      'Trino version: 1.2.3',
      'Fragment 0 [SINGLE]',
      '    Output layout: [n, expr]',
      '    Output partitioning: SINGLE []',
      '    Output[columnNames = [n, _col1]]',
      '    │   Layout: [n:bigint, expr:double]',
      '    │   Estimates: {rows: 25 (?), cpu: ?, memory: ?, network: ?}',
      '    │   _col1 := expr',
    ]);
    expect(lines[8]).to.equal('    └─ Project');
  });

  it("prints a distributed plan as PlanPrinter.textDistributedPlan: each fragment's header, its tree, RemoteSource for each exchange read, a join over a broadcast REPLICATED", () => {
    // The root joins fragment 1's rows (its stand-in's scan, with a predicate DuckDB pushed into it) to
    // fragment 2's (the projection computing its stand-in's columns over the stand-in's scan).
    const root = JSON.stringify([
      {
        name: 'HASH_JOIN',
        children: [
          { name: 'SEQ_SCAN ', children: [], extra_info: { Table: 'temp.main.standin_f1', Filters: 'k>1', 'Estimated Cardinality': '1' } },
          { name: 'PROJECTION', children: [{ name: 'SEQ_SCAN ', children: [], extra_info: { Table: '"temp".main.standin_f2' } }], extra_info: { Projections: ['k'] } },
        ],
        extra_info: { 'Join Type': 'INNER', Conditions: 'k = k', 'Estimated Cardinality': '1' },
      },
    ]);
    const scan = (table: string) => JSON.stringify([{ name: 'SEQ_SCAN ', children: [], extra_info: { Table: `tpch.tiny.${table}`, Projections: 'k', 'Estimated Cardinality': '25' } }]);
    const text = renderDistributedText({
      version: '1.2.3',
      columns: [{ name: 'k', type: 'bigint' }],
      fragments: [
        { id: 0, partitioning: 'SINGLE', output: { kind: 'SINGLE' }, columns: [], plan: parseDuckDbPlan(root), tableName: (n) => n },
        { id: 2, partitioning: 'SOURCE', output: { kind: 'BROADCAST' }, columns: [{ name: 'k', type: 'bigint' }], plan: parseDuckDbPlan(scan('region')), tableName: (n) => n.split('.').join(':') },
        { id: 1, partitioning: 'SOURCE', output: { kind: 'HASH', keys: ['k'] }, columns: [{ name: 'k', type: 'bigint' }], plan: parseDuckDbPlan(scan('nation')), tableName: (n) => n.split('.').join(':') },
      ],
      exchangeOf: (n) => (n.endsWith('standin_f1') ? 1 : n.endsWith('standin_f2') ? 2 : undefined),
    });
    expect(text.split('\n')).to.deep.equal([
      'Trino version: 1.2.3',
      'Fragment 0 [SINGLE]',
      '    Output layout: [k]',
      '    Output partitioning: SINGLE []',
      '    Output[columnNames = [k]]',
      '    │   Layout: [k:bigint]',
      '    └─ InnerJoin[criteria = k = k, distribution = REPLICATED]',
      '       │   Layout: [k:bigint]',
      '       │   Distribution: REPLICATED',
      '       ├─ Filter[filterPredicate = k>1]',
      '       │  └─ RemoteSource[sourceFragmentIds = [1]]',
      '       │         Layout: [k:bigint]',
      '       └─ RemoteSource[sourceFragmentIds = [2]]',
      '              Layout: [k:bigint]',
      '',
      'Fragment 1 [SOURCE]',
      '    Output layout: [k]',
      '    Output partitioning: HASH [k]',
      '    TableScan[table = tpch:tiny:nation]',
      '        Layout: [k:bigint]',
      '        Estimates: {rows: 25 (?), cpu: ?, memory: ?, network: ?}',
      '        k := tpch:k',
      '',
      'Fragment 2 [SOURCE]',
      '    Output layout: [k]',
      '    Output partitioning: BROADCAST []',
      '    TableScan[table = tpch:tiny:region]',
      '        Layout: [k:bigint]',
      '        Estimates: {rows: 25 (?), cpu: ?, memory: ?, network: ?}',
      '        k := tpch:k',
      '',
      '',
    ]);
  });

  it('says of a fragment read in place (lib/cluster/inline-fragments.ts) that it is no stage of its own', () => {
    const scan = JSON.stringify([{ name: 'SEQ_SCAN ', children: [], extra_info: { Table: 'tpch.tiny.region', Projections: 'k', 'Estimated Cardinality': '5' } }]);
    const text = renderDistributedText({
      version: '1.2.3',
      columns: [{ name: 'k', type: 'bigint' }],
      fragments: [
        { id: 0, partitioning: 'SINGLE', output: { kind: 'SINGLE' }, columns: [], plan: parseDuckDbPlan(scan), tableName: (n) => n },
        { id: 1, partitioning: 'SINGLE', output: { kind: 'BROADCAST' }, columns: [{ name: 'k', type: 'bigint' }], plan: parseDuckDbPlan(scan), tableName: (n) => n.split('.').join(':'), inline: true },
      ],
      exchangeOf: () => undefined,
    });
    const lines = text.split('\n');
    const at = lines.indexOf('Fragment 1 [SINGLE]');
    expect(lines.slice(at + 2, at + 4)).to.deep.equal(['    Output partitioning: BROADCAST []', '    Read in place: no stage of its own; each consumer task runs it itself']);
    expect(text.match(/Read in place/g)).to.have.length(1);
  });

  it("prints prestodb's first line with names and types, as Malloy's Presto connection parses it", () => {
    const text = renderExplainText(request({ dialect: 'presto', columns: [{ name: 'name', type: 'varchar(25)' }, { name: 'total', type: 'decimal(38,2)' }] }));
    const lines = text.split('\n');
    expect(lines[0]).to.equal('- Output[PlanNodeId 4][name, total] => [name:varchar(25), total:decimal(38,2)]');
    expect(lines[1]).to.equal('        Estimates: {source: CostBasedSourceInfo, rows: 25 (?), cpu: ?, memory: ?, network: ?}');
    expect(lines[2]).to.equal('    - Project[PlanNodeId 3] => [name:varchar(25), total:decimal(38,2)]');
    expect(lines).to.include('            - TableScan[PlanNodeId 0][table = tpch:tiny:nation] => []');
  });

  it('makes output symbols plain words, unique as Trino allocates them', () => {
    const columns = [{ name: 'a', type: 'integer' }, { name: 'a', type: 'integer' }, { name: 'my col', type: 'varchar' }, { name: '_col3', type: 'bigint' }];
    const lines = renderExplainText(request({ columns })).split('\n');
    expect(lines[1]).to.equal('Output[columnNames = [a, a, my col, _col3]]');
    expect(lines[2]).to.equal('│   Layout: [a:integer, a_0:integer, expr:varchar, expr_0:bigint]');
    expect(lines.slice(4, 7)).to.deep.equal(['│   a := a_0', '│   my col := expr', '│   _col3 := expr_0']);
  });

  it("prints EXPLAIN ANALYZE with the fragment's and each node's CPU, scheduled time and output", () => {
    const profile = {
      cpu_time: 0.0015,
      latency: 0.002,
      blocked_thread_time: 0,
      cumulative_rows_scanned: 25,
      total_bytes_read: 0,
      children: [
        {
          operator_type: 'EXPLAIN_ANALYZE',
          children: [
            {
              operator_type: 'UNGROUPED_AGGREGATE', operator_timing: 0.00025, operator_cardinality: 1, result_set_size: 8, operator_rows_scanned: 0,
              extra_info: { Aggregates: 'count_star()' },
              children: [{ operator_type: 'TABLE_SCAN', operator_timing: 0.00075, operator_cardinality: 25, result_set_size: 200, operator_rows_scanned: 25, extra_info: { Table: 'tpch.tiny.nation' }, children: [] }],
            },
          ],
        },
      ],
    };
    const text = renderExplainText(request({ analyze: true, plan: parseDuckDbPlan(JSON.stringify(profile)), columns: [{ name: '_col0', type: 'bigint' }], analysisMillis: 3 }));
    const lines = text.split('\n');
    expect(lines.slice(0, 8)).to.deep.equal([
      'Trino version: 1.2.3',
      'Queued: 0.00ns, Analysis: 3.00ms, Planning: 0.00ns, Execution: 2.00ms',
      'Fragment 0 [SINGLE]',
      '    CPU: 1.50ms, Scheduled: 2.00ms, Blocked 0.00ns (Input: 0.00ns, Output: 0.00ns), Input: 25 rows (0B); per task: avg.: 25.00 std.dev.: 0.00, Output: 1 row (8B)',
      '    Output layout: [expr]',
      '    Output partitioning: SINGLE []',
      '    Output[columnNames = [_col0]]',
      '    │   Layout: [expr:bigint]',
    ]);
    expect(lines).to.include('    └─ Aggregate');
    expect(lines).to.include('       │   CPU: 250.00us (25.00%), Scheduled: 250.00us (25.00%), Blocked: 0.00ns (0.00%), Output: 1 row (8B)');
    expect(lines).to.include('              CPU: 750.00us (75.00%), Scheduled: 750.00us (75.00%), Blocked: 0.00ns (0.00%), Output: 25 rows (200B)');
  });

  it("formats sizes as airlift's succinct DataSize", () => {
    expect([0, 80, 1024, 29_000, 3 * 1024 ** 3].map(succinctBytes)).to.deep.equal(['0B', '80B', '1kB', '28.32kB', '3GB']);
  });

  it("prints TYPE IO as IoPlanPrinter's JSON, in Jackson's layout", () => {
    const plan = parseDuckDbPlan(JOIN_PLAN);
    const tables = scannedTables(plan, (n) => {
      const [catalog, schema, table] = n.split('.');
      return { catalog: catalog!, schema: schema!, table: table! };
    });
    const text = renderIoPlan(tables, { catalog: 'memory', schema: 'default', table: 't' }, 25);
    expect(text.split('\n').slice(0, 9)).to.deep.equal([
      '{',
      '  "inputTableColumnInfos" : [ {',
      '    "table" : {',
      '      "catalog" : "tpch",',
      '      "schemaTable" : {',
      '        "schema" : "tiny",',
      '        "table" : "nation"',
      '      }',
      '    },',
    ]);
    const parsed = JSON.parse(text);
    expect(parsed.inputTableColumnInfos.map((i: any) => i.table.schemaTable.table)).to.deep.equal(['nation', 'region']);
    expect(parsed.inputTableColumnInfos[0].constraint).to.deep.equal({ none: false, columnConstraints: [] });
    expect(parsed.inputTableColumnInfos[1].estimate.outputRowCount).to.equal(5);
    expect(parsed.outputTable).to.deep.equal({ catalog: 'memory', schemaTable: { schema: 'default', table: 't' } });
    expect(parsed.estimate).to.deep.equal({ outputRowCount: 25, outputSizeInBytes: 'NaN', cpuCost: 'NaN', maxMemory: 'NaN', networkCost: 'NaN' });
    expect(text).to.include('"outputRowCount" : 25.0');
  });

  it("reads DuckDB's dotted table names with quoted parts", () => {
    expect(nameParts('memory."default".t')).to.deep.equal(['memory', 'default', 't']);
    expect(nameParts('memory.s."a.b""c"')).to.deep.equal(['memory', 's', 'a.b"c']);
  });
});
