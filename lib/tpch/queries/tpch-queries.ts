// The 22 TPC-H queries with the qualification parameters, in the Presto dialect as Trino's tpch
// benchmark writes them: the tpch connector's unprefixed column names, tables unqualified (run them
// with the session on catalog tpch and the schema of the scale factor).

export interface TpchQuery {
  /** 1..22 */
  readonly number: number;
  readonly name: string;
  readonly sql: string;
}

const q = (number: number, name: string, sql: string): TpchQuery => ({ number, name, sql: sql.trim() });

export const TPCH_QUERIES: readonly TpchQuery[] = [
  q(1, 'Pricing Summary Report', `
SELECT
  returnflag,
  linestatus,
  sum(quantity) AS sum_qty,
  sum(extendedprice) AS sum_base_price,
  sum(extendedprice * (1 - discount)) AS sum_disc_price,
  sum(extendedprice * (1 - discount) * (1 + tax)) AS sum_charge,
  avg(quantity) AS avg_qty,
  avg(extendedprice) AS avg_price,
  avg(discount) AS avg_disc,
  count(*) AS count_order
FROM lineitem
WHERE shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY
GROUP BY returnflag, linestatus
ORDER BY returnflag, linestatus`),

  q(2, 'Minimum Cost Supplier', `
SELECT
  s.acctbal, s.name, n.name, p.partkey, p.mfgr, s.address, s.phone, s.comment
FROM part p, supplier s, partsupp ps, nation n, region r
WHERE p.partkey = ps.partkey
  AND s.suppkey = ps.suppkey
  AND p.size = 15
  AND p.type LIKE '%BRASS'
  AND s.nationkey = n.nationkey
  AND n.regionkey = r.regionkey
  AND r.name = 'EUROPE'
  AND ps.supplycost = (
    SELECT min(ps.supplycost)
    FROM partsupp ps, supplier s, nation n, region r
    WHERE p.partkey = ps.partkey
      AND s.suppkey = ps.suppkey
      AND s.nationkey = n.nationkey
      AND n.regionkey = r.regionkey
      AND r.name = 'EUROPE')
ORDER BY s.acctbal DESC, n.name, s.name, p.partkey
LIMIT 100`),

  q(3, 'Shipping Priority', `
SELECT
  l.orderkey,
  sum(l.extendedprice * (1 - l.discount)) AS revenue,
  o.orderdate,
  o.shippriority
FROM customer c, orders o, lineitem l
WHERE c.mktsegment = 'BUILDING'
  AND c.custkey = o.custkey
  AND l.orderkey = o.orderkey
  AND o.orderdate < DATE '1995-03-15'
  AND l.shipdate > DATE '1995-03-15'
GROUP BY l.orderkey, o.orderdate, o.shippriority
ORDER BY revenue DESC, o.orderdate
LIMIT 10`),

  q(4, 'Order Priority Checking', `
SELECT
  o.orderpriority,
  count(*) AS order_count
FROM orders o
WHERE o.orderdate >= DATE '1993-07-01'
  AND o.orderdate < DATE '1993-07-01' + INTERVAL '3' MONTH
  AND EXISTS (
    SELECT *
    FROM lineitem l
    WHERE l.orderkey = o.orderkey
      AND l.commitdate < l.receiptdate)
GROUP BY o.orderpriority
ORDER BY o.orderpriority`),

  q(5, 'Local Supplier Volume', `
SELECT
  n.name,
  sum(l.extendedprice * (1 - l.discount)) AS revenue
FROM customer c, orders o, lineitem l, supplier s, nation n, region r
WHERE c.custkey = o.custkey
  AND l.orderkey = o.orderkey
  AND l.suppkey = s.suppkey
  AND c.nationkey = s.nationkey
  AND s.nationkey = n.nationkey
  AND n.regionkey = r.regionkey
  AND r.name = 'ASIA'
  AND o.orderdate >= DATE '1994-01-01'
  AND o.orderdate < DATE '1994-01-01' + INTERVAL '1' YEAR
GROUP BY n.name
ORDER BY revenue DESC`),

  q(6, 'Forecasting Revenue Change', `
SELECT
  sum(extendedprice * discount) AS revenue
FROM lineitem
WHERE shipdate >= DATE '1994-01-01'
  AND shipdate < DATE '1994-01-01' + INTERVAL '1' YEAR
  AND discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01
  AND quantity < 24`),

  q(7, 'Volume Shipping', `
SELECT
  supp_nation,
  cust_nation,
  l_year,
  sum(volume) AS revenue
FROM (
  SELECT
    n1.name AS supp_nation,
    n2.name AS cust_nation,
    extract(YEAR FROM l.shipdate) AS l_year,
    l.extendedprice * (1 - l.discount) AS volume
  FROM supplier s, lineitem l, orders o, customer c, nation n1, nation n2
  WHERE s.suppkey = l.suppkey
    AND o.orderkey = l.orderkey
    AND c.custkey = o.custkey
    AND s.nationkey = n1.nationkey
    AND c.nationkey = n2.nationkey
    AND ((n1.name = 'FRANCE' AND n2.name = 'GERMANY') OR (n1.name = 'GERMANY' AND n2.name = 'FRANCE'))
    AND l.shipdate BETWEEN DATE '1995-01-01' AND DATE '1996-12-31'
) AS shipping
GROUP BY supp_nation, cust_nation, l_year
ORDER BY supp_nation, cust_nation, l_year`),

  q(8, 'National Market Share', `
SELECT
  o_year,
  sum(CASE WHEN nation = 'BRAZIL' THEN volume ELSE 0 END) / sum(volume) AS mkt_share
FROM (
  SELECT
    extract(YEAR FROM o.orderdate) AS o_year,
    l.extendedprice * (1 - l.discount) AS volume,
    n2.name AS nation
  FROM part p, supplier s, lineitem l, orders o, customer c, nation n1, nation n2, region r
  WHERE p.partkey = l.partkey
    AND s.suppkey = l.suppkey
    AND l.orderkey = o.orderkey
    AND o.custkey = c.custkey
    AND c.nationkey = n1.nationkey
    AND n1.regionkey = r.regionkey
    AND r.name = 'AMERICA'
    AND s.nationkey = n2.nationkey
    AND o.orderdate BETWEEN DATE '1995-01-01' AND DATE '1996-12-31'
    AND p.type = 'ECONOMY ANODIZED STEEL'
) AS all_nations
GROUP BY o_year
ORDER BY o_year`),

  q(9, 'Product Type Profit Measure', `
SELECT
  nation,
  o_year,
  sum(amount) AS sum_profit
FROM (
  SELECT
    n.name AS nation,
    extract(YEAR FROM o.orderdate) AS o_year,
    l.extendedprice * (1 - l.discount) - ps.supplycost * l.quantity AS amount
  FROM part p, supplier s, lineitem l, partsupp ps, orders o, nation n
  WHERE s.suppkey = l.suppkey
    AND ps.suppkey = l.suppkey
    AND ps.partkey = l.partkey
    AND p.partkey = l.partkey
    AND o.orderkey = l.orderkey
    AND s.nationkey = n.nationkey
    AND p.name LIKE '%green%'
) AS profit
GROUP BY nation, o_year
ORDER BY nation, o_year DESC`),

  q(10, 'Returned Item Reporting', `
SELECT
  c.custkey,
  c.name,
  sum(l.extendedprice * (1 - l.discount)) AS revenue,
  c.acctbal,
  n.name,
  c.address,
  c.phone,
  c.comment
FROM customer c, orders o, lineitem l, nation n
WHERE c.custkey = o.custkey
  AND l.orderkey = o.orderkey
  AND o.orderdate >= DATE '1993-10-01'
  AND o.orderdate < DATE '1993-10-01' + INTERVAL '3' MONTH
  AND l.returnflag = 'R'
  AND c.nationkey = n.nationkey
GROUP BY c.custkey, c.name, c.acctbal, c.phone, n.name, c.address, c.comment
ORDER BY revenue DESC
LIMIT 20`),

  q(11, 'Important Stock Identification', `
SELECT
  ps.partkey,
  sum(ps.supplycost * ps.availqty) AS value
FROM partsupp ps, supplier s, nation n
WHERE ps.suppkey = s.suppkey
  AND s.nationkey = n.nationkey
  AND n.name = 'GERMANY'
GROUP BY ps.partkey
HAVING sum(ps.supplycost * ps.availqty) > (
  SELECT sum(ps.supplycost * ps.availqty) * 0.0001
  FROM partsupp ps, supplier s, nation n
  WHERE ps.suppkey = s.suppkey
    AND s.nationkey = n.nationkey
    AND n.name = 'GERMANY')
ORDER BY value DESC`),

  q(12, 'Shipping Modes and Order Priority', `
SELECT
  l.shipmode,
  sum(CASE WHEN o.orderpriority = '1-URGENT' OR o.orderpriority = '2-HIGH' THEN 1 ELSE 0 END) AS high_line_count,
  sum(CASE WHEN o.orderpriority <> '1-URGENT' AND o.orderpriority <> '2-HIGH' THEN 1 ELSE 0 END) AS low_line_count
FROM orders o, lineitem l
WHERE o.orderkey = l.orderkey
  AND l.shipmode IN ('MAIL', 'SHIP')
  AND l.commitdate < l.receiptdate
  AND l.shipdate < l.commitdate
  AND l.receiptdate >= DATE '1994-01-01'
  AND l.receiptdate < DATE '1994-01-01' + INTERVAL '1' YEAR
GROUP BY l.shipmode
ORDER BY l.shipmode`),

  q(13, 'Customer Distribution', `
SELECT
  c_count,
  count(*) AS custdist
FROM (
  SELECT
    c.custkey,
    count(o.orderkey)
  FROM customer c
  LEFT OUTER JOIN orders o ON c.custkey = o.custkey AND o.comment NOT LIKE '%special%requests%'
  GROUP BY c.custkey
) AS c_orders (c_custkey, c_count)
GROUP BY c_count
ORDER BY custdist DESC, c_count DESC`),

  q(14, 'Promotion Effect', `
SELECT
  100.00 * sum(CASE WHEN p.type LIKE 'PROMO%' THEN l.extendedprice * (1 - l.discount) ELSE 0 END)
    / sum(l.extendedprice * (1 - l.discount)) AS promo_revenue
FROM lineitem l, part p
WHERE l.partkey = p.partkey
  AND l.shipdate >= DATE '1995-09-01'
  AND l.shipdate < DATE '1995-09-01' + INTERVAL '1' MONTH`),

  q(15, 'Top Supplier', `
WITH revenue0 AS (
  SELECT
    suppkey AS supplier_no,
    sum(extendedprice * (1 - discount)) AS total_revenue
  FROM lineitem
  WHERE shipdate >= DATE '1996-01-01'
    AND shipdate < DATE '1996-01-01' + INTERVAL '3' MONTH
  GROUP BY suppkey
)
SELECT
  s.suppkey,
  s.name,
  s.address,
  s.phone,
  total_revenue
FROM supplier s, revenue0
WHERE s.suppkey = supplier_no
  AND total_revenue = (SELECT max(total_revenue) FROM revenue0)
ORDER BY s.suppkey`),

  q(16, 'Parts/Supplier Relationship', `
SELECT
  p.brand,
  p.type,
  p.size,
  count(DISTINCT ps.suppkey) AS supplier_cnt
FROM partsupp ps, part p
WHERE p.partkey = ps.partkey
  AND p.brand <> 'Brand#45'
  AND p.type NOT LIKE 'MEDIUM POLISHED%'
  AND p.size IN (49, 14, 23, 45, 19, 3, 36, 9)
  AND ps.suppkey NOT IN (
    SELECT s.suppkey
    FROM supplier s
    WHERE s.comment LIKE '%Customer%Complaints%')
GROUP BY p.brand, p.type, p.size
ORDER BY supplier_cnt DESC, p.brand, p.type, p.size`),

  q(17, 'Small-Quantity-Order Revenue', `
SELECT
  sum(l.extendedprice) / 7.0 AS avg_yearly
FROM lineitem l, part p
WHERE p.partkey = l.partkey
  AND p.brand = 'Brand#23'
  AND p.container = 'MED BOX'
  AND l.quantity < (
    SELECT 0.2 * avg(l2.quantity)
    FROM lineitem l2
    WHERE l2.partkey = p.partkey)`),

  q(18, 'Large Volume Customer', `
SELECT
  c.name,
  c.custkey,
  o.orderkey,
  o.orderdate,
  o.totalprice,
  sum(l.quantity)
FROM customer c, orders o, lineitem l
WHERE o.orderkey IN (
    SELECT orderkey
    FROM lineitem
    GROUP BY orderkey
    HAVING sum(quantity) > 300)
  AND c.custkey = o.custkey
  AND o.orderkey = l.orderkey
GROUP BY c.name, c.custkey, o.orderkey, o.orderdate, o.totalprice
ORDER BY o.totalprice DESC, o.orderdate
LIMIT 100`),

  q(19, 'Discounted Revenue', `
SELECT
  sum(l.extendedprice * (1 - l.discount)) AS revenue
FROM lineitem l, part p
WHERE (
    p.partkey = l.partkey
    AND p.brand = 'Brand#12'
    AND p.container IN ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
    AND l.quantity >= 1 AND l.quantity <= 1 + 10
    AND p.size BETWEEN 1 AND 5
    AND l.shipmode IN ('AIR', 'AIR REG')
    AND l.shipinstruct = 'DELIVER IN PERSON')
  OR (
    p.partkey = l.partkey
    AND p.brand = 'Brand#23'
    AND p.container IN ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
    AND l.quantity >= 10 AND l.quantity <= 10 + 10
    AND p.size BETWEEN 1 AND 10
    AND l.shipmode IN ('AIR', 'AIR REG')
    AND l.shipinstruct = 'DELIVER IN PERSON')
  OR (
    p.partkey = l.partkey
    AND p.brand = 'Brand#34'
    AND p.container IN ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG')
    AND l.quantity >= 20 AND l.quantity <= 20 + 10
    AND p.size BETWEEN 1 AND 15
    AND l.shipmode IN ('AIR', 'AIR REG')
    AND l.shipinstruct = 'DELIVER IN PERSON')`),

  q(20, 'Potential Part Promotion', `
SELECT
  s.name,
  s.address
FROM supplier s, nation n
WHERE s.suppkey IN (
    SELECT ps.suppkey
    FROM partsupp ps
    WHERE ps.partkey IN (
        SELECT p.partkey
        FROM part p
        WHERE p.name LIKE 'forest%')
      AND ps.availqty > (
        SELECT 0.5 * sum(l.quantity)
        FROM lineitem l
        WHERE l.partkey = ps.partkey
          AND l.suppkey = ps.suppkey
          AND l.shipdate >= DATE '1994-01-01'
          AND l.shipdate < DATE '1994-01-01' + INTERVAL '1' YEAR))
  AND s.nationkey = n.nationkey
  AND n.name = 'CANADA'
ORDER BY s.name`),

  q(21, 'Suppliers Who Kept Orders Waiting', `
SELECT
  s.name,
  count(*) AS numwait
FROM supplier s, lineitem l1, orders o, nation n
WHERE s.suppkey = l1.suppkey
  AND o.orderkey = l1.orderkey
  AND o.orderstatus = 'F'
  AND l1.receiptdate > l1.commitdate
  AND EXISTS (
    SELECT *
    FROM lineitem l2
    WHERE l2.orderkey = l1.orderkey
      AND l2.suppkey <> l1.suppkey)
  AND NOT EXISTS (
    SELECT *
    FROM lineitem l3
    WHERE l3.orderkey = l1.orderkey
      AND l3.suppkey <> l1.suppkey
      AND l3.receiptdate > l3.commitdate)
  AND s.nationkey = n.nationkey
  AND n.name = 'SAUDI ARABIA'
GROUP BY s.name
ORDER BY numwait DESC, s.name
LIMIT 100`),

  q(22, 'Global Sales Opportunity', `
SELECT
  cntrycode,
  count(*) AS numcust,
  sum(acctbal) AS totacctbal
FROM (
  SELECT
    substr(c.phone, 1, 2) AS cntrycode,
    c.acctbal
  FROM customer c
  WHERE substr(c.phone, 1, 2) IN ('13', '31', '23', '29', '30', '18', '17')
    AND c.acctbal > (
      SELECT avg(c2.acctbal)
      FROM customer c2
      WHERE c2.acctbal > 0.00
        AND substr(c2.phone, 1, 2) IN ('13', '31', '23', '29', '30', '18', '17'))
    AND NOT EXISTS (
      SELECT *
      FROM orders o
      WHERE o.custkey = c.custkey)
) AS custsale
GROUP BY cntrycode
ORDER BY cntrycode`),
];
