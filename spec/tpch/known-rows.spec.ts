import { expect } from 'chai';
import { generateRows } from '../../lib/tpch/index.js';
import { toTblLine } from './tbl-format.js';

// First rows of dbgen's .tbl output. region, nation, supplier, customer and part
// do not depend on the scale factor; the others are given at tiny (0.01) and at
// sf1 (generated there as part 1 of many, which is cheap).
const SCALE_INDEPENDENT: Record<string, string[]> = {
  region: [
    '0|AFRICA|lar deposits. blithely final packages cajole. regular waters are final requests. regular accounts are according to |',
    '1|AMERICA|hs use ironic, even requests. s|',
    '2|ASIA|ges. thinly even pinto beans ca|',
    '3|EUROPE|ly final courts cajole furiously final excuse|',
    '4|MIDDLE EAST|uickly special accounts cajole carefully blithely close requests. carefully final asymptotes haggle furiousl|',
  ],
  nation: [
    '0|ALGERIA|0| haggle. carefully final deposits detect slyly agai|',
    '1|ARGENTINA|1|al foxes promise slyly according to the regular accounts. bold requests alon|',
    '2|BRAZIL|1|y alongside of the pending deposits. carefully special packages are about the ironic forges. slyly special |',
    '3|CANADA|1|eas hang ironic, silent packages. slyly regular packages are furiously over the tithes. fluffily bold|',
    '4|EGYPT|4|y above the carefully unusual theodolites. final dugouts are quickly across the furiously regular d|',
  ],
  supplier: [
    '1|Supplier#000000001| N kD4on9OM Ipw3,gf0JBoQDd7tgrzrddZ|17|27-918-335-1736|5755.94|each slyly above the careful|',
    '2|Supplier#000000002|89eJ5ksX3ImxJQBvxObC,|5|15-679-861-2259|4032.68| slyly bold instructions. idle dependen|',
    '3|Supplier#000000003|q1,G3Pj6OjIuUYfUoH18BFTKP5aU9bEV3|1|11-383-516-1199|4192.40|blithely silent requests after the express dependencies are sl|',
  ],
  customer: [
    '1|Customer#000000001|IVhzIApeRb ot,c,E|15|25-989-741-2988|711.56|BUILDING|to the even, regular platelets. regular, ironic epitaphs nag e|',
    '2|Customer#000000002|XSTf4,NCwDVaWNe6tEgvwfmRchLXak|13|23-768-687-3665|121.65|AUTOMOBILE|l accounts. blithely ironic theodolites integrate boldly: caref|',
    '3|Customer#000000003|MG9kdTD2WBHm|1|11-719-748-3364|7498.12|AUTOMOBILE| deposits eat slyly ironic, even instructions. express foxes detect slyly. blithely even accounts abov|',
  ],
  part: [
    '1|goldenrod lavender spring chocolate lace|Manufacturer#1|Brand#13|PROMO BURNISHED COPPER|7|JUMBO PKG|901.00|ly. slyly ironi|',
    '2|blush thistle blue yellow saddle|Manufacturer#1|Brand#13|LARGE BRUSHED BRASS|1|LG CASE|902.00|lar accounts amo|',
    '3|spring green yellow purple cornsilk|Manufacturer#4|Brand#42|STANDARD POLISHED BRASS|21|WRAP CASE|903.00|egular deposits hag|',
  ],
};

const TINY: Record<string, string[]> = {
  partsupp: [
    '1|2|3325|771.64|, even theodolites. regular, final theodolites eat after the carefully pending foxes. furiously regular deposits sleep slyly. carefully bold realms above the ironic dependencies haggle careful|',
    '1|27|8076|993.49|ven ideas. quickly even packages print. pending multipliers must have to are fluff|',
  ],
  orders: [
    '1|370|O|172799.49|1996-01-02|5-LOW|Clerk#000000951|0|nstructions sleep furiously among |',
    '2|781|O|38426.09|1996-12-01|1-URGENT|Clerk#000000880|0| foxes. pending accounts at the pending, silent asymptot|',
  ],
  lineitem: [
    '1|1552|93|1|17|24710.35|0.04|0.02|N|O|1996-03-13|1996-02-12|1996-03-22|DELIVER IN PERSON|TRUCK|egular courts above the|',
    '1|674|75|2|36|56688.12|0.09|0.06|N|O|1996-04-12|1996-02-28|1996-04-20|TAKE BACK RETURN|MAIL|ly final dependencies: slyly bold |',
  ],
};

const SF1: Record<string, string[]> = {
  partsupp: [
    '1|2|3325|771.64|, even theodolites. regular, final theodolites eat after the carefully pending foxes. furiously regular deposits sleep slyly. carefully bold realms above the ironic dependencies haggle careful|',
    '1|2502|8076|993.49|ven ideas. quickly even packages print. pending multipliers must have to are fluff|',
  ],
  orders: [
    '1|36901|O|173665.47|1996-01-02|5-LOW|Clerk#000000951|0|nstructions sleep furiously among |',
    '2|78002|O|46929.18|1996-12-01|1-URGENT|Clerk#000000880|0| foxes. pending accounts at the pending, silent asymptot|',
    '3|123314|F|193846.25|1993-10-14|5-LOW|Clerk#000000955|0|sly final accounts boost. carefully regular ideas cajole carefully. depos|',
  ],
  lineitem: [
    '1|155190|7706|1|17|21168.23|0.04|0.02|N|O|1996-03-13|1996-02-12|1996-03-22|DELIVER IN PERSON|TRUCK|egular courts above the|',
    '1|67310|7311|2|36|45983.16|0.09|0.06|N|O|1996-04-12|1996-02-28|1996-04-20|TAKE BACK RETURN|MAIL|ly final dependencies: slyly bold |',
  ],
};

function firstLines(table: string, scaleFactor: number, partCount: number, count: number): string[] {
  const lines: string[] = [];
  for (const row of generateRows(table, scaleFactor, 1, partCount)) {
    lines.push(toTblLine(table, row));
    if (lines.length === count) break;
  }
  return lines;
}

describe('tpch known dbgen rows', () => {
  for (const [table, expected] of Object.entries(SCALE_INDEPENDENT)) {
    it(`${table} at tiny and sf1`, () => {
      expect(firstLines(table, 0.01, 1, expected.length)).to.deep.equal(expected);
      expect(firstLines(table, 1, table === 'region' || table === 'nation' ? 1 : 1000, expected.length))
        .to.deep.equal(expected);
    });
  }
  for (const [table, expected] of Object.entries(TINY)) {
    it(`${table} at tiny`, () => {
      expect(firstLines(table, 0.01, 1, expected.length)).to.deep.equal(expected);
    });
  }
  for (const [table, expected] of Object.entries(SF1)) {
    it(`${table} at sf1 (part 1 of 1000)`, () => {
      expect(firstLines(table, 1, 1000, expected.length)).to.deep.equal(expected);
    });
  }

  it('gives typed values: numbers for keys and money, YYYY-MM-DD dates', () => {
    const [first] = firstLines('lineitem', 0.01, 1, 1);
    expect(first).to.be.a('string');
    const row = generateRows('lineitem', 0.01, 1, 1).next().value as unknown[];
    expect(row).to.deep.equal([1, 1552, 93, 1, 17, 24710.35, 0.04, 0.02, 'N', 'O', '1996-03-13', '1996-02-12',
      '1996-03-22', 'DELIVER IN PERSON', 'TRUCK', 'egular courts above the']);
  });

  it('nations in key order begin ALGERIA, ARGENTINA, BRAZIL, CANADA, EGYPT', () => {
    const names = [...generateRows('nation', 0.01, 1, 1)].map((row) => row[1]);
    expect(names.slice(0, 5)).to.deep.equal(['ALGERIA', 'ARGENTINA', 'BRAZIL', 'CANADA', 'EGYPT']);
  });
});
