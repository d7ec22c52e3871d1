// One line per node health change (alive, failed, gone), found by reading coordinator.nodes() every
// interval and comparing with the last reading: the node actors need not emit anything for it.
import type { Coordinator } from '../actors/coordinator.js';
import type { Logger } from './logger.js';

export type LoggedNodeState = 'alive' | 'failed' | 'gone';

export interface NodeStateLog {
  /** Reads the nodes now and logs what changed since the last reading. */
  poll(): void;
  stop(): void;
}

export function startNodeStateLog(coordinator: Coordinator, logger: Logger, options: { intervalMs?: number } = {}): NodeStateLog {
  const known = new Map<string, LoggedNodeState>();
  const change = (nodeId: string, state: LoggedNodeState) => {
    const previous = known.get(nodeId) ?? null;
    if (previous === state) return;
    if (state === 'gone') known.delete(nodeId);
    else known.set(nodeId, state);
    const line = { event: 'node_state', nodeId, state, previous };
    if (state === 'alive') logger.info(line);
    else logger.warn(line);
  };
  const poll = () => {
    const seen = new Set<string>();
    for (const node of coordinator.nodes()) {
      seen.add(node.nodeId);
      change(node.nodeId, node.failed ? 'failed' : 'alive');
    }
    for (const nodeId of [...known.keys()]) if (!seen.has(nodeId)) change(nodeId, 'gone');
  };
  const timer = setInterval(poll, options.intervalMs ?? 1000);
  timer.unref();
  return { poll, stop: () => clearInterval(timer) };
}
