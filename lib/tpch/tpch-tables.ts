// Table and column metadata as Presto's/Trino's tpch connector exposes them:
// names without the l_/o_/... prefixes; keys bigint; money and quantities double; text varchar with
// the bound the TPC-H library declares (lineitem.comment varchar(44)).

export type TpchColumnType = 'bigint' | 'integer' | 'double' | 'date' | 'varchar';

export interface TpchColumn {
  readonly name: string;
  readonly type: TpchColumnType;
  /** A varchar's declared length (every tpch varchar has one). */
  readonly length?: number;
}

export interface TpchTable {
  readonly name: TpchTableName;
  readonly columns: readonly TpchColumn[];
}

export type TpchTableName =
  | 'region' | 'nation' | 'supplier' | 'customer' | 'part' | 'partsupp' | 'orders' | 'lineitem';

/** `name type` pairs; a varchar's length in parentheses: `comment varchar(44)`. */
const cols = (spec: string): TpchColumn[] =>
  spec.split(',').map((pair) => {
    const [name, declared] = pair.trim().split(' ') as [string, string];
    const [type, length] = declared.split('(') as [TpchColumnType, string | undefined];
    return length === undefined ? { name, type } : { name, type, length: Number.parseInt(length, 10) };
  });

export const TPCH_TABLES: readonly TpchTable[] = [
  { name: 'region', columns: cols('regionkey bigint, name varchar(25), comment varchar(152)') },
  { name: 'nation', columns: cols('nationkey bigint, name varchar(25), regionkey bigint, comment varchar(152)') },
  {
    name: 'supplier',
    columns: cols('suppkey bigint, name varchar(25), address varchar(40), nationkey bigint, phone varchar(15), '
      + 'acctbal double, comment varchar(101)'),
  },
  {
    name: 'customer',
    columns: cols('custkey bigint, name varchar(25), address varchar(40), nationkey bigint, phone varchar(15), '
      + 'acctbal double, mktsegment varchar(10), comment varchar(117)'),
  },
  {
    name: 'part',
    columns: cols('partkey bigint, name varchar(55), mfgr varchar(25), brand varchar(10), type varchar(25), size integer, '
      + 'container varchar(10), retailprice double, comment varchar(23)'),
  },
  {
    name: 'partsupp',
    columns: cols('partkey bigint, suppkey bigint, availqty integer, supplycost double, comment varchar(199)'),
  },
  {
    name: 'orders',
    columns: cols('orderkey bigint, custkey bigint, orderstatus varchar(1), totalprice double, orderdate date, '
      + 'orderpriority varchar(15), clerk varchar(15), shippriority integer, comment varchar(79)'),
  },
  {
    name: 'lineitem',
    columns: cols('orderkey bigint, partkey bigint, suppkey bigint, linenumber integer, quantity double, '
      + 'extendedprice double, discount double, tax double, returnflag varchar(1), linestatus varchar(1), '
      + 'shipdate date, commitdate date, receiptdate date, shipinstruct varchar(25), shipmode varchar(10), '
      + 'comment varchar(44)'),
  },
];

export function tpchTable(name: string): TpchTable {
  const table = TPCH_TABLES.find((t) => t.name === name);
  if (table === undefined) throw new RangeError(`unknown TPC-H table ${name}`);
  return table;
}
