// Resource groups as state the dispatcher holds, after Trino's InternalResourceGroup: a tree of groups created
// when a query is selected into them; a query runs in a leaf and counts against every ancestor. It starts at
// once when its group and every ancestor can run more (hardConcurrencyLimit, softMemoryLimit, CPU quota), waits
// queued when one cannot, and fails QUERY_QUEUE_FULL when, besides, one cannot queue more (maxQueued). When a
// query ends, queued queries start in each group's policy order: fair (arrival; sub groups take turns),
// weighted (sub groups drawn in proportion to schedulingWeight, queries to query_priority), weighted_fair (the
// sub group furthest below its share of running queries), query_priority (highest priority first).
// No timers, no I/O: the caller feeds queries, ends, reported usage and elapsed time, and gets back the ids to start.
import { VivaceError } from '../protocol/vivace-error.js';
import type { GroupSpec, QueryType, ResourceGroupsConfig, SchedulingPolicy } from './resource-groups-config.js';
import { IdTemplate, NameTemplate } from './templates.js';

/** What a selector looks at (Trino's SelectionCriteria). */
export interface SelectionCriteria {
  user: string;
  source?: string;
  userGroups?: readonly string[];
  originalUser?: string;
  authenticatedUser?: string;
  clientTags?: readonly string[];
  queryType?: QueryType;
}

export interface QueuedQuery {
  queryId: string;
  /** the query_priority session property (Trino's default 1) */
  priority: number;
}

export type RunOutcome = { state: 'running' | 'queued'; groupId: string[] } | { state: 'rejected'; groupId: string[]; error: VivaceError };

export interface TreeOptions {
  /** the cluster's memory, for softMemoryLimit given as a percentage (absent: such limits do not bind) */
  clusterMemoryBytes?: number;
  /** for `weighted`: a number in [0, 1) (default Math.random) */
  random?: () => number;
}

export type GroupState = 'CAN_RUN' | 'CAN_QUEUE' | 'FULL';

/** One group as Trino's ResourceGroupInfo tells it (limits and counts; the caller renders it). */
export interface GroupInfo {
  id: string[];
  state: GroupState;
  schedulingPolicy: SchedulingPolicy;
  schedulingWeight: number;
  softMemoryLimitBytes: number;
  softConcurrencyLimit: number;
  hardConcurrencyLimit: number;
  maxQueuedQueries: number;
  memoryUsageBytes: number;
  cpuUsageMillis: number;
  numQueuedQueries: number;
  numRunningQueries: number;
  numEligibleSubGroups: number;
  subGroups: GroupInfo[];
  runningQueries: string[];
}

const UNLIMITED = Number.MAX_SAFE_INTEGER;

/** One query's cumulative figures as last reported. */
interface Usage {
  memoryBytes: number;
  cpuMillis: number;
}

class Group {
  readonly subGroups = new Map<string, Group>();
  /** sub groups with queued queries they can start, in the order they became eligible */
  eligible: Group[] = [];
  /** queued queries in arrival order (policies that order by priority search it) */
  readonly queued = new Map<string, QueuedQuery & { seq: number }>();
  readonly running = new Map<string, Usage>();
  descendantRunning = 0;
  descendantQueued = 0;
  memoryBytes = 0;
  cpuMillis = 0;
  // configuration (Trino's defaults until configured)
  softMemoryLimit: GroupSpec['softMemoryLimit'] = { bytes: UNLIMITED };
  softConcurrencyLimit = 0;
  hardConcurrencyLimit = 0;
  maxQueued = 0;
  policy: SchedulingPolicy = 'fair';
  weight = 1;
  softCpuLimitMillis = UNLIMITED;
  hardCpuLimitMillis = UNLIMITED;
  cpuQuotaPerSecond = UNLIMITED;

  constructor(
    readonly id: string[],
    readonly parent: Group | undefined,
    /** the name templates this group was configured from, root first */
    readonly templates: string[],
  ) {}

  get key(): string {
    return this.id.join('.');
  }

  get runningCount(): number {
    return this.running.size + this.descendantRunning;
  }

  get queuedCount(): number {
    return this.queued.size + this.descendantQueued;
  }
}

/** A selector of the file, ready to match. */
interface Selector {
  matches(criteria: SelectionCriteria): Map<string, string> | undefined;
  group: IdTemplate;
}

export class ResourceGroupTree {
  private config: ResourceGroupsConfig;
  private selectors: Selector[];
  private readonly roots = new Map<string, Group>();
  /** where each live query is, running or queued */
  private readonly groupOfQuery = new Map<string, Group>();
  private seq = 0;
  private paused = false;
  /** queries refused QUERY_QUEUE_FULL, by the template path of their group (bounded by the file) */
  private readonly rejectedByTemplate = new Map<string, number>();
  private readonly random: () => number;

  constructor(
    config: ResourceGroupsConfig,
    private readonly options: TreeOptions = {},
  ) {
    this.config = config;
    this.selectors = config.selectors.map(compileSelector);
    this.random = options.random ?? Math.random;
  }

  /** A new configuration (a re-read file): existing groups take their new limits; new queries the new selectors. */
  reconfigure(config: ResourceGroupsConfig): string[] {
    this.config = config;
    this.selectors = config.selectors.map(compileSelector);
    for (const group of this.allGroups()) {
      const spec = this.specOf(group.templates);
      if (spec) this.configure(group, spec);
    }
    return this.processQueued();
  }

  /** Trino's selection: the first selector that matches, its group template expanded. */
  select(criteria: SelectionCriteria): { id: string[]; templates: string[] } {
    for (const selector of this.selectors) {
      const variables = selector.matches(criteria);
      if (!variables) continue;
      const id = selector.group.expand(variables);
      // ResourceGroupId's own check: a variable that expanded to nothing makes no name
      if (id.includes('')) throw new VivaceError('INVALID_RESOURCE_GROUP', 'Empty segment in resource group id');
      return { id, templates: selector.group.segments.map((s) => s.text) };
    }
    throw new VivaceError('QUERY_REJECTED', 'Query did not match any selection rule');
  }

  /** The group a query with `criteria` goes to, or undefined when none would take it (for display). */
  selectedGroupId(criteria: SelectionCriteria): string[] | undefined {
    try {
      return this.select(criteria).id;
    } catch {
      return undefined;
    }
  }

  /** Selects the query's group and starts, queues or rejects it there. */
  submit(query: QueuedQuery, criteria: SelectionCriteria): RunOutcome {
    const selected = this.select(criteria);
    return this.run(query, selected.id, selected.templates);
  }

  run(query: QueuedQuery, id: string[], templates: string[]): RunOutcome {
    const group = this.groupAt(id, templates);
    if (group.subGroups.size > 0) {
      throw new VivaceError('INVALID_RESOURCE_GROUP', `Cannot add queries to '${group.key}'. It is not a leaf group.`);
    }
    let canQueue = true;
    let canRun = !this.paused;
    for (let g: Group | undefined = group; g; g = g.parent) {
      canQueue &&= this.canQueueMore(g);
      canRun &&= this.canRunMore(g);
    }
    if (!canQueue && !canRun) {
      const template = group.templates.join('.');
      this.rejectedByTemplate.set(template, (this.rejectedByTemplate.get(template) ?? 0) + 1);
      this.prune(group);
      return { state: 'rejected', groupId: group.id, error: new VivaceError('QUERY_QUEUE_FULL', `Too many queued queries for "${group.key}"`) };
    }
    this.groupOfQuery.set(query.queryId, group);
    if (canRun) {
      this.start(group, query.queryId);
      return { state: 'running', groupId: group.id };
    }
    group.queued.set(query.queryId, { ...query, seq: this.seq++ });
    for (let g = group.parent; g; g = g.parent) g.descendantQueued++;
    this.updateEligibility(group);
    return { state: 'queued', groupId: group.id };
  }

  /** The query ended (or was cancelled while queued). Returns the queries that start in its place. */
  finish(queryId: string): string[] {
    const group = this.groupOfQuery.get(queryId);
    if (!group) return [];
    this.groupOfQuery.delete(queryId);
    const usage = group.running.get(queryId);
    if (usage) {
      group.running.delete(queryId);
      // Memory drops to nothing at the end; CPU stays spent against the quota.
      for (let g: Group | undefined = group; g; g = g.parent) {
        g.memoryBytes -= usage.memoryBytes;
        if (g.parent) g.parent.descendantRunning--;
      }
    } else if (group.queued.delete(queryId)) {
      for (let g = group.parent; g; g = g.parent) g.descendantQueued--;
    }
    this.updateEligibility(group);
    const started = this.processQueued();
    this.prune(group);
    return started;
  }

  /** A running query's memory now and CPU so far, as its workers report them. Returns queries that can now start. */
  reportUsage(queryId: string, usage: Usage): string[] {
    const group = this.groupOfQuery.get(queryId);
    const last = group?.running.get(queryId);
    if (!group || !last) return [];
    const memoryDelta = usage.memoryBytes - last.memoryBytes;
    const cpuDelta = Math.max(0, usage.cpuMillis - last.cpuMillis);
    group.running.set(queryId, { memoryBytes: usage.memoryBytes, cpuMillis: Math.max(usage.cpuMillis, last.cpuMillis) });
    for (let g: Group | undefined = group; g; g = g.parent) {
      g.memoryBytes += memoryDelta;
      g.cpuMillis += cpuDelta;
    }
    this.refreshEligibility();
    return this.processQueued();
  }

  /** `seconds` of the CPU quota period have passed: each group's CPU usage regenerates at its rate. */
  generateQuotas(seconds: number): string[] {
    if (!(seconds > 0)) return [];
    for (const group of this.allGroups()) {
      group.cpuMillis = Math.max(0, group.cpuMillis - seconds * group.cpuQuotaPerSecond);
    }
    this.refreshEligibility();
    return this.processQueued();
  }

  /** While paused (the coordinator is short of memory) nothing starts; queries queue, within maxQueued. */
  pause(): void {
    this.paused = true;
  }

  resume(): string[] {
    this.paused = false;
    return this.processQueued();
  }

  /** The group of a live query. */
  groupIdOf(queryId: string): string[] | undefined {
    return this.groupOfQuery.get(queryId)?.id;
  }

  isRunning(queryId: string): boolean {
    return this.groupOfQuery.get(queryId)?.running.has(queryId) ?? false;
  }

  /** Queued queries in every group, oldest first. */
  queuedQueryIds(): string[] {
    const queued = this.allGroups().flatMap((group) => [...group.queued.values()]);
    return queued.sort((a, b) => a.seq - b.seq).map((q) => q.queryId);
  }

  get runningCount(): number {
    let n = 0;
    for (const root of this.roots.values()) n += root.runningCount;
    return n;
  }

  get queuedCount(): number {
    let n = 0;
    for (const root of this.roots.values()) n += root.queuedCount;
    return n;
  }

  /** Trino's ResourceGroupInfo of a live group (getFullInfo: sub groups with work, running queries below). */
  info(id: readonly string[]): GroupInfo | undefined {
    let group = this.roots.get(id[0] ?? '');
    for (const name of id.slice(1)) group = group?.subGroups.get(name);
    return group ? this.infoOf(group, true) : undefined;
  }

  /**
   * Running, queued and rejected queries by group as the file names it (`global.adhoc.other.${USER}`): the
   * groups a template made are summed, so the set of groups a metric names is the file's, not the clients'.
   */
  countsByTemplate(): { group: string; running: number; queued: number; rejected: number }[] {
    const counts = new Map<string, { group: string; running: number; queued: number; rejected: number }>();
    const entry = (group: string) => {
      let found = counts.get(group);
      if (!found) counts.set(group, (found = { group, running: 0, queued: 0, rejected: 0 }));
      return found;
    };
    for (const group of this.allGroups()) {
      const counted = entry(group.templates.join('.'));
      counted.running += group.runningCount;
      counted.queued += group.queuedCount;
    }
    for (const [group, rejected] of this.rejectedByTemplate) entry(group).rejected = rejected;
    return [...counts.values()];
  }

  /** Every live group (roots first, then depth first). */
  groups(): GroupInfo[] {
    return this.allGroups().map((group) => this.infoOf(group, false));
  }

  // ---- internals ------------------------------------------------------------------------------------------

  private infoOf(group: Group, full: boolean): GroupInfo {
    const runningBelow = (g: Group): string[] => [...g.running.keys(), ...[...g.subGroups.values()].flatMap(runningBelow)];
    return {
      id: group.id,
      state: this.canRunMore(group) ? 'CAN_RUN' : this.canQueueMore(group) ? 'CAN_QUEUE' : 'FULL',
      schedulingPolicy: group.policy,
      schedulingWeight: group.weight,
      softMemoryLimitBytes: this.softMemoryLimitBytes(group),
      softConcurrencyLimit: group.softConcurrencyLimit,
      hardConcurrencyLimit: group.hardConcurrencyLimit,
      maxQueuedQueries: group.maxQueued,
      memoryUsageBytes: group.memoryBytes,
      cpuUsageMillis: group.cpuMillis,
      numQueuedQueries: group.queuedCount,
      numRunningQueries: group.runningCount,
      numEligibleSubGroups: group.eligible.length,
      subGroups: full ? [...group.subGroups.values()].filter((g) => g.runningCount + g.queuedCount > 0).map((g) => this.infoOf(g, false)) : [],
      runningQueries: full ? runningBelow(group) : [],
    };
  }

  private allGroups(): Group[] {
    const out: Group[] = [];
    const visit = (group: Group) => {
      out.push(group);
      for (const sub of group.subGroups.values()) visit(sub);
    };
    for (const root of this.roots.values()) visit(root);
    return out;
  }

  /** The spec at a path of name templates (AbstractResourceConfigurationManager.getMatchingSpec). */
  private specOf(templates: readonly string[]): GroupSpec | undefined {
    let candidates = this.config.rootGroups;
    let match: GroupSpec | undefined;
    for (const segment of templates) {
      match = candidates.find((spec) => spec.name.text === segment);
      if (!match) return undefined;
      candidates = match.subGroups;
    }
    return match;
  }

  private configure(group: Group, spec: GroupSpec): void {
    group.softMemoryLimit = spec.softMemoryLimit;
    group.maxQueued = spec.maxQueued;
    group.softConcurrencyLimit = spec.softConcurrencyLimit ?? spec.hardConcurrencyLimit;
    group.hardConcurrencyLimit = spec.hardConcurrencyLimit;
    if (spec.schedulingPolicy) group.policy = spec.schedulingPolicy;
    // A sub group of a query_priority group orders by priority too (InternalResourceGroup.getOrCreateSubGroup).
    if (group.parent?.policy === 'query_priority') group.policy = 'query_priority';
    if (spec.schedulingWeight !== undefined) group.weight = spec.schedulingWeight;
    if (spec.softCpuLimitMs !== undefined) group.softCpuLimitMillis = spec.softCpuLimitMs;
    if (spec.hardCpuLimitMs !== undefined) group.hardCpuLimitMillis = spec.hardCpuLimitMs;
    const limit = spec.hardCpuLimitMs ?? spec.softCpuLimitMs;
    if (limit !== undefined && this.config.cpuQuotaPeriodMs) {
      group.cpuQuotaPerSecond = Math.max(1, Math.floor((1000 * limit) / this.config.cpuQuotaPeriodMs));
    }
  }

  /** The group at `id`, created (and configured from the spec at `templates`) where missing. */
  private groupAt(id: string[], templates: string[]): Group {
    let group: Group | undefined;
    for (let depth = 0; depth < id.length; depth++) {
      const siblings = group ? group.subGroups : this.roots;
      let next = siblings.get(id[depth]!);
      if (!next) {
        if (group && group.queued.size > 0) throw new VivaceError('INVALID_RESOURCE_GROUP', `Cannot add sub group to '${group.key}' while queries are queued`);
        next = new Group(id.slice(0, depth + 1), group, templates.slice(0, depth + 1));
        const spec = this.specOf(next.templates);
        if (spec) this.configure(next, spec);
        siblings.set(id[depth]!, next);
      }
      group = next;
    }
    return group!;
  }

  /**
   * Drops empty groups made from a template with variables (`${USER}`), so that names clients choose do not
   * pile up; groups written out in the file stay, for /v1/resourceGroupState.
   */
  private prune(group: Group): void {
    for (let g: Group | undefined = group; g; g = g.parent) {
      if (g.subGroups.size > 0 || g.runningCount + g.queuedCount > 0 || !g.templates.some((t) => t.includes('${'))) return;
      (g.parent ? g.parent.subGroups : this.roots).delete(g.id.at(-1)!);
    }
  }

  private softMemoryLimitBytes(group: Group): number {
    const limit = group.softMemoryLimit;
    if ('bytes' in limit) return limit.bytes;
    return this.options.clusterMemoryBytes === undefined ? UNLIMITED : Math.floor(this.options.clusterMemoryBytes * limit.fraction);
  }

  private canQueueMore(group: Group): boolean {
    return group.queuedCount < group.maxQueued;
  }

  private canRunMore(group: Group): boolean {
    if (group.cpuMillis >= group.hardCpuLimitMillis || group.memoryBytes > this.softMemoryLimitBytes(group)) return false;
    let hard = group.hardConcurrencyLimit;
    if (group.cpuMillis >= group.softCpuLimitMillis) {
      // Trino's linear penalty between the soft and hard CPU limits, at least one less, never below one
      const penalty = (group.cpuMillis - group.softCpuLimitMillis) / (group.hardCpuLimitMillis - group.softCpuLimitMillis);
      hard = Math.max(1, Math.min(group.hardConcurrencyLimit - 1, Math.floor(group.hardConcurrencyLimit * (1 - penalty))));
    }
    return group.runningCount < hard;
  }

  private isEligibleToStartNext(group: Group): boolean {
    return this.canRunMore(group) && (group.queued.size > 0 || group.eligible.length > 0);
  }

  private updateEligibility(group: Group): void {
    for (let g = group; g.parent; g = g.parent) {
      const siblings = g.parent.eligible;
      const at = siblings.indexOf(g);
      if (this.isEligibleToStartNext(g)) {
        if (at < 0) siblings.push(g);
      } else if (at >= 0) {
        siblings.splice(at, 1);
      }
    }
  }

  /** Usage changed everywhere: every group's eligibility again (leaves first). */
  private refreshEligibility(): void {
    for (const group of this.allGroups().reverse()) this.updateEligibility(group);
  }

  private start(group: Group, queryId: string): void {
    group.running.set(queryId, { memoryBytes: 0, cpuMillis: 0 });
    for (let g = group; g.parent; g = g.parent) g.parent.descendantRunning++;
    this.updateEligibility(group);
  }

  /** Starts all the queued queries that can run, each root in turn. */
  private processQueued(): string[] {
    const started: string[] = [];
    if (this.paused) return started;
    for (const root of this.roots.values()) {
      for (let id = this.startNext(root); id !== undefined; id = this.startNext(root)) started.push(id);
    }
    return started;
  }

  private startNext(group: Group): string | undefined {
    if (!this.canRunMore(group)) return undefined;
    const query = this.pollQuery(group);
    if (query) {
      group.queued.delete(query.queryId);
      for (let g = group.parent; g; g = g.parent) g.descendantQueued--;
      this.start(group, query.queryId);
      return query.queryId;
    }
    const sub = this.pollSubGroup(group);
    if (!sub) return undefined;
    const started = this.startNext(sub);
    // The sub group goes to the back of the line (fair: the groups take turns).
    if (sub.parent && this.isEligibleToStartNext(sub) && !group.eligible.includes(sub)) group.eligible.push(sub);
    return started;
  }

  private pollQuery(group: Group): (QueuedQuery & { seq: number }) | undefined {
    if (group.queued.size === 0) return undefined;
    if (group.policy === 'fair') return group.queued.values().next().value;
    const queries = [...group.queued.values()];
    if (group.policy === 'weighted') return pickWeighted(queries, (q) => q.priority, this.random);
    // query_priority and weighted_fair: highest priority, the oldest among equals
    return queries.reduce((best, q) => (q.priority > best.priority ? q : best));
  }

  private pollSubGroup(group: Group): Group | undefined {
    const eligible = group.eligible;
    if (eligible.length === 0) return undefined;
    let chosen: Group;
    switch (group.policy) {
      case 'fair':
        chosen = eligible[0]!;
        break;
      case 'weighted':
        // Below its soft concurrency limit a group goes (almost) surely first (computeSchedulingWeight).
        chosen = pickWeighted(eligible, (g) => (g.runningCount >= g.softConcurrencyLimit ? g.weight : (2 ** 31 - 1) * g.weight), this.random);
        break;
      case 'weighted_fair':
        chosen = weightedFairWinner(eligible);
        break;
      case 'query_priority':
        chosen = eligible.reduce((best, g) => (this.highestPriority(g) > this.highestPriority(best) ? g : best));
        break;
    }
    eligible.splice(eligible.indexOf(chosen), 1);
    return chosen;
  }

  private highestPriority(group: Group): number {
    let best = 0;
    for (const q of group.queued.values()) best = Math.max(best, q.priority);
    for (const sub of group.eligible) best = Math.max(best, this.highestPriority(sub));
    return best;
  }
}

/** One of `items` drawn with probability in proportion to `weight` (Trino's StochasticPriorityQueue). */
function pickWeighted<T>(items: readonly T[], weight: (item: T) => number, random: () => number): T {
  let total = 0;
  for (const item of items) total += weight(item);
  let point = random() * total;
  for (const item of items) {
    point -= weight(item);
    if (point < 0) return item;
  }
  return items.at(-1)!;
}

/** WeightedFairQueue.poll: the group whose share of running queries is furthest below its share of weight; the oldest among ties. */
function weightedFairWinner(groups: readonly Group[]): Group {
  let totalShare = 0;
  let totalUtilization = 1;
  for (const g of groups) {
    totalShare += g.weight;
    totalUtilization += g.runningCount;
  }
  let winner = groups[0]!;
  let winnerDelta = Infinity;
  for (const g of groups) {
    const delta = g.runningCount / totalUtilization / (g.weight / totalShare);
    if (delta < winnerDelta) {
      winnerDelta = delta;
      winner = g;
    }
  }
  return winner;
}

function compileSelector(spec: ResourceGroupsConfig['selectors'][number]): Selector {
  // Named groups of these patterns define template variables (StaticSelector's PatternMatcher).
  const patterns = (['user', 'originalUser', 'authenticatedUser', 'source'] as const).flatMap((field) => (spec[field] ? [{ field, pattern: spec[field] }] : []));
  return {
    group: spec.group,
    matches(criteria) {
      const variables = new Map<string, string>();
      for (const { field, pattern } of patterns) {
        const value = field === 'user' ? criteria.user : field === 'originalUser' ? (criteria.originalUser ?? criteria.user) : criteria[field];
        if (value === undefined) return undefined;
        const groups = pattern.wholeMatch(value);
        if (!groups) return undefined;
        for (const [name, index] of Object.entries(pattern.namedGroups)) {
          const captured = groups[index];
          if (captured !== null && captured !== undefined) variables.set(name, captured);
        }
      }
      if (spec.userGroup && !(criteria.userGroups ?? []).some((g) => spec.userGroup!.matches(g))) return undefined;
      if (spec.queryType && spec.queryType !== criteria.queryType) return undefined;
      if (spec.clientTags && !spec.clientTags.every((tag) => (criteria.clientTags ?? []).includes(tag))) return undefined;
      if (!variables.has('USER')) variables.set('USER', criteria.user);
      if (!variables.has('SOURCE')) variables.set('SOURCE', criteria.source ?? '');
      return variables;
    },
  };
}

/** Without a file: one root group `global` with the coordinator's limits, every query in it (Trino's legacy manager). */
export function globalGroupConfig(maxRunning: number, maxQueued: number): ResourceGroupsConfig {
  const name = new NameTemplate('global');
  return {
    rootGroups: [{ name, at: { line: 0, column: 0 }, maxQueued, hardConcurrencyLimit: maxRunning, softMemoryLimit: { bytes: UNLIMITED }, subGroups: [] }],
    selectors: [{ at: { line: 0, column: 0 }, group: new IdTemplate('global') }],
  };
}
