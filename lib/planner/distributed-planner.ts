// The distributed plan of a query over several tables that every worker reads alike (tpch, the lake):
// its FROM's inner joins and WHERE become scans with their own predicates pushed down, joined in the
// order join-order.ts chooses, each join either in the probe side's tasks with the build side broadcast
// to them, or in a new hash-partitioned fragment fed by both sides hashed on the join keys (Trino's
// REPLICATED and PARTITIONED joins). Above the last join the query's own work runs as a query over one
// table of the joined rows: its aggregation split into partial (in the last join's tasks) and final (in a
// HASH stage on its group keys, hash-final.ts, or in the root without keys) as aggregate-stages.ts splits
// it, or, when it does not split, all of it in the root, with a partial TopN under ORDER BY ... LIMIT
// (partial-top-n.ts). Outer joins follow the inner ones as written (outer-joins.ts); a derived table that
// only filters and computes is merged into the query above and WITH queries are inlined (derived-tables.ts);
// a derived table that groups is a sub-plan whose rows feed the query above in its own tasks
// (derived-relations.ts); a stand-alone IN, EXISTS or scalar subquery in WHERE, HAVING or the select list
// is a broadcast semi-join (semi-joins.ts; above an aggregation, read by its final: scalar-values.ts); a subquery correlated by an equality runs co-partitioned with the outer rows
// (correlated-subqueries.ts). What this planner does not take (windows, set operations, SELECT *, a
// correlated subquery with no such equality or beside an outer join, a FROM mixing inner and outer joins
// otherwise, tables one worker holds) is undefined here: union-stages.ts, window-stages.ts or the gathered
// plan (gather-planner.ts) may take it (statement-plans.ts). The query as read is query-analysis.ts's, the
// fragments while built fragment-drafts.ts's.
import { formatSql, parseStatement, type Expression, type Query, type Statement } from '../sql/index.js';
import { quoteIdentifier } from '../sql/sql-formatter.js';
import type { ScannedTable } from '../connectors/connector.types.js';
import { GROUP_KEY_PREFIX, planStages, PARTIALS_TABLE } from './aggregate-stages.js';
import { hashFinal } from './hash-final.js';
import { symbolOf, type PlanRelation, type ResolvedExpression } from './column-resolution.js';
import { replaceTable, sameTable, tableText } from './plan-trees.js';
import { type SemiSource } from './semi-joins.js';
import { chooseWithOuterJoins, estimatedBytes, validChoices, validOuterChoices, type JoinEdge } from './join-order.js';
import { derivedDraft, derivedRows, sharedQueries, subPlans, type SubPlan, type SubPlanContext } from './derived-relations.js';
import { flippedRightJoin, joinClause, outerSymbols } from './outer-joins.js';
import { EXCHANGE_CATALOG, MAX_SUB_PLAN_DEPTH, type DistributedPlan, type OutputPartitioning, type PlanChoices } from './fragment.types.js';
import type { PlannerMetadata, PlannerSession } from './planner.types.js';
import { analyse, JOINED, relationOfSymbol } from './query-analysis.js';
import { derivedTable, render, tableNodeOf, type Draft } from './fragment-drafts.js';
import { partialTopN, withOffset, withoutOffset } from './partial-top-n.js';
import { markScalars, readsMarker, unmarkScalars } from './scalar-values.js';
import { sourceValues } from './source-values.js';
import { distinctAsGroups } from './distinct-groups.js';
import { isHeldLayout, withHeldTables } from './held-relations.js';
import { applyColocated, applyCorrelated, broadcastsFit, colocatedWith } from './correlated-subqueries.js';
import { applyPartitionedSemis, colocatedSemi, groupsByPartitioning, partitionableSemis, partitionsSemi, twoStageSemi } from './semi-stages.js';
import { applyDynamicFilter, chooseDynamicFilters, equalKeys, validDynamicFilters } from './dynamic-filters.js';

/**
 * The distributed plan of `statement`, or undefined when it is not a query this planner takes. Without
 * `choices` they are made from the metadata's statistics (the coordinator); with them (a worker) the
 * same fragments follow, or undefined when they do not fit the statement.
 */
export function planDistributed(statement: Statement, session: PlannerSession, metadata: PlannerMetadata, given?: PlanChoices): DistributedPlan | undefined {
  const planned = planDrafts(statement, session, metadata, given, 0, { memo: new Map(), shared: new Set() });
  return planned && { fragments: render(planned.root), choices: planned.choices, tables: planned.tables };
}

/**
 * The drafts of a query's plan: its root, and the draft whose rows are the query's (the root, or the
 * HASH stage whose rows the root only gathers). `depth`: 0 for the statement, more for a derived table's
 * query or a subquery's planned of its own (derived-relations.ts); their choices travel to the workers,
 * which take MAX_SUB_PLAN_DEPTH levels.
 */
function planDrafts(statement: Statement, session: PlannerSession, metadata: PlannerMetadata, given: PlanChoices | undefined, depth: number, context: SubPlanContext): SubPlan | undefined {
  if (depth > MAX_SUB_PLAN_DEPTH) return undefined;
  // Whether a subquery has a plan of its own is asked alike on every node, whatever splits where (a
  // worker's own layouts may not split a table the coordinator's choices split).
  const splitting: PlannerMetadata = { table: (t) => { const l = metadata.table(t); return l && { ...l, splits: true }; } };
  // Tables one worker holds (memory) beside the split ones, read there and broadcast (held-relations.ts).
  const held = depth === 0 ? withHeldTables(statement, session, metadata, given ? (given.held ?? []) : undefined) : { metadata, catalogs: [] };
  if (!held || (given && (given.held ?? []).join() !== held.catalogs.join())) return undefined;
  const a = analyse(statement, session, metadata, depth > 0, (query) => planDrafts(query, session, splitting, undefined, depth + 1, { memo: new Map(), shared: new Set() }) !== undefined, held.metadata);
  if (!a) return undefined;
  const isHeld = (i: number) => a.relations[i] !== undefined && isHeldLayout(a.relations[i]!.layout);
  const heldSymbol = (symbol: string) => isHeld(relationOfSymbol(symbol));
  // A held table's rows are never hashed: no correlated subquery beside it.
  if (held.catalogs.length > 0 && a.correlated.conjuncts.length > 0) return undefined;
  if (depth === 0) for (const q of sharedQueries(a.query)) context.shared.add(q);
  const n = a.relations.length;

  // Each relation's symbols that some part of the plan above its scan reads.
  const needed: Set<string>[] = a.relations.map(() => new Set());
  const need = (symbol: string) => needed[relationOfSymbol(symbol)]!.add(symbol);
  for (const e of a.edges) { need(e.left); need(e.right); }
  for (const r of a.residuals) for (const s of r.symbols) need(s);
  for (const s of a.aboveSymbols) need(s);
  for (const c of a.correlated.conjuncts) for (const s of c.symbols) need(s);
  for (const o of a.outer) for (const s of outerSymbols(o)) need(s);
  // A table none of whose columns is read above its scan (count(*) over it) still hands on its rows: by its first column.
  for (const [i, s] of needed.entries()) if (s.size === 0) s.add(symbolOf(i, 0));

  const relationEdges: JoinEdge[] = a.edges.map((e) => ({ left: e.leftRelation, right: e.rightRelation }));
  // Splitting pays only when some table splits; small tables alone stay one task (validChoices).
  const split = a.relations.map((r) => r.layout.splits);
  const outerShape = a.outer.map((o) => ({ type: o.type, keyed: o.keys.length > 0 }));
  // A held table is the smallest (never the probe's start) and always broadcast.
  const sizes = a.relations.map((r) => (isHeld(r.index) ? 0 : estimatedBytes(r.layout, columnNames(r, needed[r.index]!))));
  const automatic = given ? undefined : chooseWithOuterJoins(sizes, relationEdges, split, session, outerShape);
  const chosen = given ?? { ...automatic!, joins: automatic!.joins.map((j, k) => (isHeld(automatic!.order[k + 1]!) ? 'BROADCAST' : j)) };
  if (held.catalogs.length > 0 && (isHeld(chosen.order[0]!) || chosen.split.some((x, i) => x === true && a.relations[i] !== undefined && isHeld(i)) || chosen.order.some((r, k) => k > 0 && isHeld(r) && chosen.joins[k - 1] !== 'BROADCAST'))) return undefined;
  // Each correlated subquery's table read over its splits when it splits (the coordinator's word, on a worker).
  const correlatedSplit = given ? (given.correlated ?? []) : a.correlated.scans.map((x) => x.source.splits);
  if (correlatedSplit.length !== a.correlated.scans.length || (!given && !broadcastsFit(a.correlated.scans, session))) return undefined;
  // A semi-join's subquery planned of its own splits its tables (it is checked so), or a correlated subquery's
  // table splits: the rest may be small.
  const splitsElsewhere = a.semis.sources.some((x) => x.sub) || correlatedSplit.includes(true);
  if (!validChoices(chosen, n, splitsElsewhere) || !validOuterChoices(chosen, n, outerShape)) return undefined;
  // Each derived table's sub-plan, then each subquery's over derived tables, with their own choices.
  const subQueries = [...[...a.derived.values()].map((d) => d.query), ...a.semis.sources.filter((x) => x.sub).map((x) => x.query)];
  const planned = subPlans(subQueries, given, (query, choices) => {
    // A query read at more than one place (a WITH query) is planned once.
    const known = context.memo.get(query);
    if (known) return known;
    const sub = planDrafts(query, session, metadata, choices, depth + 1, context);
    if (sub) context.memo.set(query, sub);
    return sub;
  });
  if (!planned) return undefined;
  const subs = new Map([...a.derived.keys()].map((index, k) => [index, planned[k]!]));
  const semiSubs = new Map(a.semis.sources.filter((x) => x.sub).map((x, k) => [x, planned[a.derived.size + k]!]));
  // A derived table's rows read in the query above's draft: their semi-join placeholders would share names there.
  if (a.semis.sources.length > 0 && [...subs.values()].some((x) => (x.rows.semis?.length ?? 0) > 0)) return undefined;
  const made: PlanChoices = planned.length > 0 ? { ...chosen, derived: planned.map((x) => x.choices) } : chosen;
  // Each semi-join's subquery in two stages when it can be (the coordinator's word, on a worker).
  // A semi-join whose source is too big to broadcast, or under PARTITIONED, partitioned with its probe (semi-stages.ts).
  const partitionable = partitionableSemis(a, metadata);
  const partitionableOf = (x: SemiSource) => partitionable.find((p) => p.source === x);
  const semiSplit = given ? (given.semis ?? []) : a.semis.sources.map((x) => {
    const p = partitionableOf(x);
    return p && x.splits && partitionsSemi(p, session) ? 'PARTITIONED' as const : x.stages !== undefined && x.splits;
  });
  if (semiSplit.length !== a.semis.sources.length || semiSplit.some((s, i) => (s === 'PARTITIONED' ? !partitionableOf(a.semis.sources[i]!) : s !== false && (s !== true || !a.semis.sources[i]!.stages)))) return undefined;
  // Those conjuncts leave their scans and residuals: they run above the joins.
  const parted = partitionable.filter((p) => semiSplit[a.semis.sources.indexOf(p.source)] === 'PARTITIONED');
  for (const p of parted) {
    for (const list of a.pushed) if (list.includes(p.written)) list.splice(list.indexOf(p.written), 1);
    const k = a.residuals.findIndex((r) => r.expression === p.written);
    if (k >= 0) a.residuals.splice(k, 1);
    need(p.symbol);
  }
  if (parted.some((p) => heldSymbol(p.symbol))) return undefined;
  /**
   * Whether relation `r`, an inner broadcast build joined on `keys` (probe symbol, build symbol) with no
   * filter of its own, is over a table whose parts are cut on a column it joins the probe's first relation
   * on by that relation's own such column (tpch's orders and lineitem on orderkey at sf1: Q7, Q9, Q12),
   * both plain split tables: Trino's tpch
   * connector partitions both alike and joins them without a remote exchange. Here each probe task reads
   * the build's table whole in place (PlanFragment.colocated), where DuckDB's dynamic filters (min/max and
   * a Bloom filter of the task's own keys) prune it to the task's range of keys.
   */
  const colocatedBuild = (r: number, keys: readonly { probe: string; build: string }[]): boolean => {
    const first = a.relations[chosen.order[0]!]!;
    const build = a.relations[r]!;
    const on = build.layout.partitionedOn;
    if (on === undefined || on !== first.layout.partitionedOn || a.derived.has(r) || a.derived.has(first.index) || isHeld(r) || !chosen.split[r] || !chosen.split[first.index]) return false;
    // Only a build with no filter of its own: the probe's keys alone prune it, which DuckDB's dynamic
    // filters do in place. A filtered one (Q3's, Q10's, Q21's orders) is scanned once over its splits and
    // its rows broadcast, its filter run once, not in every probe task (stage-timeline at sf1: Q3's and
    // Q21's cluster CPU 150-250 ms more read in place, Q12's 100-300 ms less). A build reading a
    // semi-join's source (Q18's orders) would have an input of its own, no fragment read in place.
    if (a.pushed[r]!.length > 0) return false;
    return keys.some((k) => relationOfSymbol(k.probe) === first.index && columnOf(first, k.probe) === on && columnOf(build, k.build) === on);
  };
  /** The equi-join keys of relation `r` to the relations `before` it (probe symbol, build symbol), as the join loop finds them. */
  const innerKeys = (r: number, before: readonly number[]) => a.edges.flatMap((e) => {
    if (e.rightRelation === r && before.includes(e.leftRelation)) return [{ probe: e.left, build: e.right }];
    if (e.leftRelation === r && before.includes(e.rightRelation)) return [{ probe: e.right, build: e.left }];
    return [];
  });
  // The inner joins' broadcast builds over plain tables, some filtered by others' keys (dynamic-filters.ts);
  // a colocated one is read in place, no fragment of its own to wait for.
  const builds = chosen.order.filter((r, k) => k > 0 && chosen.joins[k - 1] === 'BROADCAST' && !a.outer.some((o) => o.relation === r) && !a.derived.has(r) && !isHeld(r)
    && !colocatedBuild(r, innerKeys(r, chosen.order.slice(0, k))));
  const dynamicFilters = given ? (given.dynamicFilters ?? []) : session.dynamicFiltering === false ? [] : chooseDynamicFilters(builds, a.edges, sizes, (r) => a.pushed[r]!.length > 0, (r) => a.relations[r]!.layout.rows);
  if (given && !validDynamicFilters(dynamicFilters, builds, a.edges)) return undefined;
  const choices: PlanChoices = {
    ...made, ...(semiSplit.length > 0 ? { semis: semiSplit } : {}), ...(correlatedSplit.length > 0 ? { correlated: correlatedSplit } : {}),
    ...(held.catalogs.length > 0 ? { held: held.catalogs } : {}), ...(dynamicFilters.length > 0 ? { dynamicFilters } : {}),
  };

  const scanDraft = (r: PlanRelation, output: OutputPartitioning): Draft => {
    const symbols = [...needed[r.index]!].sort();
    const where = a.pushed[r.index]!;
    const whereText = where.length > 0 ? ` WHERE ${where.map((w) => `(${formatSql(w)})`).join(' AND ')}` : '';
    const select = symbols.map((s) => `${quoteIdentifier(columnOf(r, s))} AS ${s}`).join(', ');
    const subPlan = subs.get(r.index);
    if (subPlan) {
      const shared = context.shared.has(a.derived.get(r.index)!.query);
      const draft = derivedDraft(r, subPlan.rows, output, symbols, (x) => `SELECT ${select} FROM ${derivedRows(r, subPlan.rows, x, shared)}${whereText}`, shared);
      for (const w of where) readSemis(draft, w);
      return draft;
    }
    const inner = `SELECT ${select} FROM ${tableText(r.table)} AS ${quoteIdentifier(r.name)}${whereText}`;
    // Split pruning reads the conjuncts without a semi-join's subquery.
    const prunable = where.filter((w) => a.semis.readIn(w).length === 0);
    const whereTree = prunable.length === 0 ? undefined : prunable.length === 1 ? prunable[0] : { type: 'LogicalExpression' as const, operator: 'AND' as const, terms: prunable, location: prunable[0]!.location };
    const splits = choices.split[r.index]!;
    const draft: Draft = {
      ...(isHeld(r.index) ? { holder: r.table.catalog } : {}),
      partitioning: splits ? 'SOURCE' : 'SINGLE',
      ...(splits ? { scan: { table: r.table, ...(whereTree ? { where: whereTree } : {}) } } : {}),
      sources: [],
      output,
      from: () => `(${inner}) AS ${quoteIdentifier(`vivace_s${r.index}`)}`,
      where: [],
      columns: symbols,
    };
    for (const w of where) readSemis(draft, w);
    return draft;
  };
  const semiDrafts = new Map<SemiSource, Draft>();
  /**
   * Makes `d` read the semi-join sources `e` reads: each runs once, its rows broadcast; in a SINGLE
   * fragment, or (an aggregation over one table that splits) in two stages over the table's splits (semi-stages.ts).
   */
  const readSemis = (d: Draft, e: Expression) => {
    for (const source of a.semis.readIn(e)) {
      let semi = semiDrafts.get(source);
      if (!semi) {
        const { stages } = source;
        const subPlan = semiSubs.get(source);
        if (subPlan) {
          semi = subPlan.root;
          semi.output = { kind: 'BROADCAST' };
        } else if (semiSplit[a.semis.sources.indexOf(source)] && stages) {
          semi = groupsByPartitioning(source.query, metadata.table(stages.table)?.partitionedOn) ? colocatedSemi(source.query, stages) : twoStageSemi(source.query, stages);
        } else {
          semi = { partitioning: 'SINGLE', sources: [], output: { kind: 'BROADCAST' }, from: () => '', where: [], columns: [], sql: () => formatSql(source.query) };
        }
        semiDrafts.set(source, semi);
      }
      if (!d.sources.includes(semi)) d.sources.push(semi);
      (d.semis ??= []).push({ source, draft: semi });
    }
  };

  const joined = new Set<number>([choices.order[0]!]);
  /** The broadcast drafts of inner joins, by relation (a correlated scan is filtered by their key values). */
  const broadcastBuilds = new Map<number, Draft>();
  const keyBuild = (symbol: string) => broadcastBuilds.get(relationOfSymbol(symbol));
  let probe = scanDraft(a.relations[choices.order[0]!]!, { kind: 'SINGLE' });
  const applied = new Set<ResolvedExpression>();
  const applyResiduals = (d: Draft) => {
    for (const r of a.residuals) {
      if (applied.has(r) || ![...r.relations].every((i) => joined.has(i)) || (a.late.has(r) && joined.size < n)) continue;
      applied.add(r);
      d.where.push(`(${formatSql(r.expression)})`);
      readSemis(d, r.expression);
    }
  };
  applyResiduals(probe);
  /** Symbols that the rest of the plan reads, once `joined` holds these relations. */
  const stillNeeded = (): string[] => {
    const out = new Set<string>(a.aboveSymbols);
    for (const e of a.edges) if (!(joined.has(e.leftRelation) && joined.has(e.rightRelation))) { out.add(e.left); out.add(e.right); }
    for (const r of a.residuals) if (!applied.has(r)) for (const s of r.symbols) out.add(s);
    for (const c of a.correlated.conjuncts) for (const s of c.symbols) out.add(s);
    for (const o of a.outer) if (!joined.has(o.relation)) for (const s of outerSymbols(o)) out.add(s);
    for (const p of parted) out.add(p.symbol);
    return [...out].filter((s) => joined.has(relationOfSymbol(s))).sort();
  };

  for (let step = 1; step < n; step++) {
    const next = choices.order[step]!;
    const relation = a.relations[next]!;
    const outerJoin = a.outer.find((o) => o.relation === next);
    const keys = outerJoin?.keys ?? a.edges.flatMap((e) => {
      if (e.rightRelation === next && joined.has(e.leftRelation)) return [{ probe: e.left, build: e.right }];
      if (e.leftRelation === next && joined.has(e.rightRelation)) return [{ probe: e.right, build: e.left }];
      return [];
    });
    const distribution = choices.joins[step - 1]!;
    if (keys.length === 0 && distribution !== 'BROADCAST') return undefined;
    const { join, on } = joinClause(keys, outerJoin);
    if (distribution === 'BROADCAST' && outerJoin?.type === 'RIGHT') {
      // The LEFT join with sides swapped (join-order.ts flips): the rows joined so far broadcast to the preserved side's tasks.
      probe = flippedRightJoin(probe, outerJoin, stillNeeded(), (output) => scanDraft(relation, output), on);
      joined.add(next);
    } else if (distribution === 'BROADCAST') {
      const build = scanDraft(relation, { kind: 'BROADCAST' });
      if (!outerJoin && colocatedBuild(next, keys)) {
        // Read whole in place by the probe's tasks (PlanFragment.colocated): one task's fragment, no scan of splits.
        build.partitioning = 'SINGLE';
        delete build.scan;
        build.colocated = true;
      }
      const before = probe.from;
      probe.sources.push(build);
      probe.from = (x) => `${before(x)} ${join} ${x(build)}${on}`;
      joined.add(next);
      // Every joined row has a row of an inner join's build side: its symbols' values bound the outer rows'.
      if (!outerJoin) broadcastBuilds.set(next, build);
    } else {
      // A held table's columns have no known type to hash alike.
      if (keys.some((k) => heldSymbol(k.probe) || heldSymbol(k.build))) return undefined;
      const probeColumns = stillNeeded();
      const left = probe;
      left.columns = probeColumns;
      // A RIGHT join's ON conjuncts on the rows joined so far filter them below the join.
      for (const r of outerJoin?.left ?? []) left.where.push(`(${formatSql(r.expression)})`);
      left.output = { kind: 'HASH', keys: keys.map((k) => k.probe) };
      const build = scanDraft(relation, { kind: 'HASH', keys: keys.map((k) => k.build) });
      joined.add(next);
      probe = { partitioning: 'HASH', sources: [left, build], output: { kind: 'SINGLE' }, from: (x) => `${x(left)} ${join} ${x(build)}${on}`, where: [], columns: [] };
    }
    applyResiduals(probe);
  }
  if (applied.size !== a.residuals.length) return undefined;
  for (const [x, y] of dynamicFilters) {
    applyDynamicFilter(broadcastBuilds.get(x)!, broadcastBuilds.get(y)!, equalKeys(a.edges, x, y));
  }
  // Correlated subqueries once every outer relation is joined, co-partitioned with their tables: the
  // WHERE's first, then (every filter applied) the select list's values (correlated-values.ts).
  const inWhere = a.correlated.conjuncts.filter((c) => c.value === undefined);
  const values = a.correlated.conjuncts.filter((c) => c.value !== undefined);
  const valueSymbols = values.flatMap((c) => [...c.symbols]);
  const whereScans = inWhere.reduce((sum, c) => sum + c.scans.length, 0);
  // Those over the probe's own table on the column its parts are cut on run in its scan tasks (Q21's
  // EXISTS over lineitem on orderkey at sf1): every join so far broadcast, the probe still that scan.
  const first = a.relations[choices.order[0]!]!;
  const scanned = probe.partitioning === 'SOURCE' && probe.scan && sameTable(probe.scan.table, first.table) && !subs.has(first.index) ? first : undefined;
  const keyColumn = (symbol: string) => (relationOfSymbol(symbol) === first.index ? columnOf(first, symbol) : undefined);
  const colocated = inWhere.map((c) => scanned !== undefined && colocatedWith(c, scanned, keyColumn));
  for (const [i, c] of inWhere.entries()) if (colocated[i]) applyColocated(probe, c);
  const correlated = inWhere.filter((_, i) => !colocated[i]);
  // The split flags of the scans left (CorrelatedSubqueries.scans order: each conjunct's in turn).
  const splitFlags = correlatedSplit.slice(0, whereScans);
  const correlatedSplits = inWhere.flatMap((c, i) => {
    const flags = splitFlags.splice(0, c.scans.length);
    return colocated[i] ? [] : flags;
  });
  if (correlated.length > 0) {
    const handOn = (from: number) => [...new Set([...a.aboveSymbols, ...correlated.slice(from).flatMap((c) => [...c.symbols]), ...parted.map((p) => p.symbol), ...valueSymbols])].sort();
    probe = applyCorrelated(probe, correlated, handOn, correlatedSplits, keyBuild);
  }
  if (parted.length > 0) probe = applyPartitionedSemis(probe, parted, (from) => [...new Set([...a.aboveSymbols, ...parted.slice(from).map((p) => p.symbol), ...valueSymbols])].sort());
  if (values.length > 0) {
    const handOn = (from: number) => [...new Set([...a.aboveSymbols, ...values.slice(from).flatMap((c) => [...c.symbols]), ...values.slice(0, from).map((c) => c.value!)])].sort();
    probe = applyCorrelated(probe, values, handOn, correlatedSplit.slice(whereScans), keyBuild);
  }

  // The query's own work over the joined rows: partial aggregation in the last join's tasks and the final
  // in the root when it splits so, else all of it in the root.
  const last = probe;
  last.output = { kind: 'SINGLE' };
  // The draft that evaluates the query above the joins whole reads its subqueries' sources (select list, HAVING).
  const readAbove = (d: Draft) => {
    if (a.above.body.type !== 'QuerySpecification') return;
    for (const item of a.above.body.select.selectItems) if (item.type === 'SingleColumn') readSemis(d, item.expression);
    if (a.above.body.having) readSemis(d, a.above.body.having);
  };
  // Its stand-alone scalar subqueries as columns the final aggregation reads (scalar-values.ts).
  const { marked, markers } = markScalars(a.above, (x) => a.semis.readIn(x as Expression).length > 0);
  // Grouping sets by group ids, so their final runs in a HASH stage too (grouping-sets.ts); a DISTINCT as groups (distinct-groups.ts).
  // OFFSET m: the stages keep m + n rows, the root offsets (partial-top-n.ts withoutOffset, withOffset).
  const stages = planStages(parseStatement(formatSql(withoutOffset(distinctAsGroups(marked) ?? marked))), {}, new Set([EXCHANGE_CATALOG]), { groupIds: true });
  // A marker the partial reads (an item of a DISTINCT, an aggregate's argument) is the subquery there, its row broadcast to the last fragment's tasks.
  const leafMarkers = new Map(stages ? [...markers].filter(([name]) => readsMarker(parseStatement(stages.leafSql), new Map([[name, markers.get(name)!]]))) : []);
  const projected = stages ? undefined : sourceValues(a.above, marked, markers.size);
  /** The final's query over the partial rows, each marker its subquery again, which `d` (running it) reads. */
  const finalTree = (d: Draft) => {
    for (const m of markers.values()) readSemis(d, m);
    return withOffset(unmarkScalars(parseStatement(stages!.rootSql), markers) as Query, a.above);
  };
  const joinSql = (x: (d: Draft) => string, columns: readonly string[]) =>
    `SELECT ${columns.length > 0 ? columns.join(', ') : '1 AS vivace_one'} FROM ${last.from(x)}${last.where.length > 0 ? ` WHERE ${last.where.join(' AND ')}` : ''}`;
  const joinedColumns = [...a.aboveSymbols, ...values.map((c) => c.value!)].sort();
  let root: Draft;
  // The draft whose rows are the query's: the root, or the HASH stage whose rows the root only gathers.
  let rows: Draft | undefined;
  if (stages) {
    last.columns = stages.partialColumns;
    const leafTree = unmarkScalars(parseStatement(stages.leafSql), leafMarkers);
    for (const m of leafMarkers.values()) readSemis(last, m);
    last.sql = (x) => formatSql(replaceTable(leafTree, JOINED, () => derivedTable(joinSql(x, joinedColumns), JOINED.table)));
    const keys = stages.partialColumns.filter((c) => c.startsWith(GROUP_KEY_PREFIX));
    const split = keys.length > 0 ? hashFinal(unmarkScalars(parseStatement(stages.rootSql), markers) as Query) : undefined;
    if (split) {
      // Grouped: the final aggregation runs in a HASH stage on the group keys, the root only sorts.
      last.output = { kind: 'HASH', keys };
      const final: Draft = {
        partitioning: 'HASH', sources: [last], output: { kind: 'SINGLE' }, from: () => '', where: [], columns: split.columns,
        sql: (x) => formatSql(replaceTable(split.bucketQuery, PARTIALS_TABLE, (at) => tableNodeOf(x(last), at))),
      };
      root = { partitioning: 'SINGLE', sources: [final], output: { kind: 'SINGLE' }, from: () => '', where: [], columns: [], sql: (x) => formatSql(withOffset(split.rootQuery(tableNodeOf(x(final), a.query)), a.above)) };
      if (!a.query.orderBy && !a.query.limit && !a.query.offset) rows = final;
      finalTree(final);
    } else {
      root = { partitioning: 'SINGLE', sources: [last], output: { kind: 'SINGLE' }, from: () => '', where: [], columns: [], sql: () => '' };
      const tree = finalTree(root);
      root.sql = (x) => formatSql(replaceTable(tree, PARTIALS_TABLE, (at) => tableNodeOf(x(last), at)));
    }
  } else if (projected) {
    // A scalar subquery in a select list that does not aggregate: evaluated in the last fragment (source-values.ts).
    last.columns = projected.columns;
    last.sql = (x) => formatSql(replaceTable(projected.leaf, JOINED, () => derivedTable(joinSql(x, joinedColumns), JOINED.table)));
    readAbove(last);
    root = { partitioning: 'SINGLE', sources: [last], output: { kind: 'SINGLE' }, from: () => '', where: [], columns: [], sql: (x) => formatSql(projected.root(tableNodeOf(x(last), a.query))) };
  } else {
    last.columns = joinedColumns;
    const topN = partialTopN(a.above);
    last.sql = (x) => `${joinSql(x, joinedColumns)}${topN}`;
    root = { partitioning: 'SINGLE', sources: [last], output: { kind: 'SINGLE' }, from: () => '', where: [], columns: [], sql: (x) => formatSql(replaceTable(a.above, JOINED, (at) => tableNodeOf(x(last), at))) };
  }
  if (!stages && !projected && root.sources[0] === last) readAbove(root);
  // Every table any fragment reads: a user with a mask or row filter on one runs the query as one task.
  const tables = new Map<string, ScannedTable>();
  const read = [...a.relations.filter((r) => !subs.has(r.index)).map((r) => r.table), ...a.semis.sources.flatMap((x) => x.tables), ...planned.flatMap((x) => x.tables), ...a.correlated.scans.map((x) => x.table)];
  for (const t of read) tables.set(`${t.catalog}\u0000${t.schema}\u0000${t.table}`, t);
  return { root, rows: rows ?? root, choices, tables: [...tables.values()] };
}

function columnNames(r: PlanRelation, symbols: ReadonlySet<string>): Set<string> {
  return new Set([...symbols].map((s) => columnOf(r, s)));
}

function columnOf(r: PlanRelation, symbol: string): string {
  return r.layout.columns[Number(symbol.slice(symbol.lastIndexOf('_') + 1))]!.name;
}
