// Which workers hold the spooled segments of which queries (coordinator side), so that a worker's loss can
// be told to the queries it held segments of: its spool went with it, and a client that downloads one of
// them is refused. Bounded: the latest queries only (a query's segments expire with fs.segment.ttl, and
// the query history is bounded too).
/**
 * A worker process's key among the holders: its node id, address and announced instance (discovery.ts
 * DiscoveredNode.instance), so that a worker restarted on the same address, with the same node id, is
 * another holder, and the segments of the process before it count as lost.
 */
export function workerInstanceKey(node: { nodeId: string; uri: string; instance?: string }): string {
  return node.instance === undefined ? `${node.nodeId}@${node.uri}` : `${node.nodeId}@${node.uri}#${node.instance}`;
}

export class SegmentHolders {
  /** queryId -> the holders (worker keys) of its segments; insertion order is the oldest query first. */
  private readonly byQuery = new Map<string, Set<string>>();

  constructor(private readonly maxQueries = 10_000) {}

  /** `holder` wrote a segment of `queryId`. */
  note(queryId: string, holder: string): void {
    let holders = this.byQuery.get(queryId);
    if (!holders) {
      if (this.byQuery.size >= this.maxQueries) this.byQuery.delete(this.byQuery.keys().next().value as string);
      holders = new Set();
      this.byQuery.set(queryId, holders);
    }
    holders.add(holder);
  }

  /** The query's segments went (cancelled). */
  forget(queryId: string): void {
    this.byQuery.delete(queryId);
  }

  /** `holder` is gone: the queries it held segments of, each told once. */
  lose(holder: string): string[] {
    const lost: string[] = [];
    for (const [queryId, holders] of this.byQuery) {
      if (!holders.delete(holder)) continue;
      lost.push(queryId);
      if (holders.size === 0) this.byQuery.delete(queryId);
    }
    return lost;
  }

  get size(): number {
    return this.byQuery.size;
  }
}
