// /metrics per resource group: queries running and queued in each group (its sub groups included, as Trino's
// counts) and those refused QUERY_QUEUE_FULL since start. A group is named as the file names it
// (global.adhoc.other.${USER}), the groups one template made summed: label values come from the file, never
// from user names, so a client cannot grow the metric's series.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ResourceGroupTree } from './resource-group-tree.js';

export function registerResourceGroupMetrics(registers: Registry[], groups: () => ResourceGroupTree): void {
  new Gauge({
    name: 'vivace_resource_group_queries',
    help: 'Queries in each resource group (its sub groups included), by state: running or queued',
    labelNames: ['group', 'state'] as const,
    registers,
    collect() {
      this.reset();
      for (const counts of groups().countsByTemplate()) {
        this.set({ group: counts.group, state: 'running' }, counts.running);
        this.set({ group: counts.group, state: 'queued' }, counts.queued);
      }
    },
  });
  new Counter({
    name: 'vivace_resource_group_rejected_total',
    help: 'Queries a resource group refused (QUERY_QUEUE_FULL) since start',
    labelNames: ['group'] as const,
    registers,
    collect() {
      this.reset();
      for (const counts of groups().countsByTemplate()) if (counts.rejected > 0) this.inc({ group: counts.group }, counts.rejected);
    },
  });
}
