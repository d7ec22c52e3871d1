// Table and column metadata as Presto's/Trino's tpch connector exposes them:
// names without the l_/o_/... prefixes; keys bigint; money and quantities double.

export type TpchColumnType = 'bigint' | 'integer' | 'double' | 'date' | 'varchar';

export interface TpchColumn {
  readonly name: string;
  readonly type: TpchColumnType;
}

export interface TpchTable {
  readonly name: TpchTableName;
  readonly columns: readonly TpchColumn[];
}

export type TpchTableName =
  | 'region' | 'nation' | 'supplier' | 'customer' | 'part' | 'partsupp' | 'orders' | 'lineitem';

const cols = (spec: string): TpchColumn[] =>
  spec.split(',').map((pair) => {
    const [name, type] = pair.trim().split(' ');
    return { name, type: type as TpchColumnType };
  });

export const TPCH_TABLES: readonly TpchTable[] = [
  { name: 'region', columns: cols('regionkey bigint, name varchar, comment varchar') },
  { name: 'nation', columns: cols('nationkey bigint, name varchar, regionkey bigint, comment varchar') },
  {
    name: 'supplier',
    columns: cols('suppkey bigint, name varchar, address varchar, nationkey bigint, phone varchar, '
      + 'acctbal double, comment varchar'),
  },
  {
    name: 'customer',
    columns: cols('custkey bigint, name varchar, address varchar, nationkey bigint, phone varchar, '
      + 'acctbal double, mktsegment varchar, comment varchar'),
  },
  {
    name: 'part',
    columns: cols('partkey bigint, name varchar, mfgr varchar, brand varchar, type varchar, size integer, '
      + 'container varchar, retailprice double, comment varchar'),
  },
  {
    name: 'partsupp',
    columns: cols('partkey bigint, suppkey bigint, availqty integer, supplycost double, comment varchar'),
  },
  {
    name: 'orders',
    columns: cols('orderkey bigint, custkey bigint, orderstatus varchar, totalprice double, orderdate date, '
      + 'orderpriority varchar, clerk varchar, shippriority integer, comment varchar'),
  },
  {
    name: 'lineitem',
    columns: cols('orderkey bigint, partkey bigint, suppkey bigint, linenumber integer, quantity double, '
      + 'extendedprice double, discount double, tax double, returnflag varchar, linestatus varchar, '
      + 'shipdate date, commitdate date, receiptdate date, shipinstruct varchar, shipmode varchar, '
      + 'comment varchar'),
  },
];

export function tpchTable(name: string): TpchTable {
  const table = TPCH_TABLES.find((t) => t.name === name);
  if (table === undefined) throw new RangeError(`unknown TPC-H table ${name}`);
  return table;
}
