// The JSON the pages read, as far as they use it (schemas/query-list, query-info, node, cluster-stats and
// ui-history describe it whole). Every field is treated as possibly absent: the pages never trust it.
import type { HistorySample } from '../history-sample.js';

export type { HistorySample };

export interface ErrorCode {
  code?: number;
  name?: string;
  type?: string;
}

export interface SessionInfo {
  user?: string;
  principal?: string;
  source?: string;
  catalog?: string;
  schema?: string;
  timeZone?: string;
  remoteUserAddress?: string;
  userAgent?: string;
  clientInfo?: string;
  clientTags?: string[];
  startTime?: number;
  systemProperties?: Record<string, string>;
}

export interface QueryStats {
  createTime?: string;
  executionStartTime?: string;
  endTime?: string;
  elapsedTime?: string;
  queuedTime?: string;
  analysisTime?: string;
  planningTime?: string;
  executionTime?: string;
  totalCpuTime?: string;
  totalScheduledTime?: string;
  totalBlockedTime?: string;
  totalDrivers?: number;
  queuedDrivers?: number;
  runningDrivers?: number;
  completedDrivers?: number;
  rawInputDataSize?: string;
  rawInputPositions?: number;
  processedInputDataSize?: string;
  processedInputPositions?: number;
  outputDataSize?: string;
  outputPositions?: number;
  peakUserMemoryReservation?: string;
  totalMemoryReservation?: string;
}

export interface BasicQueryInfo {
  queryId: string;
  session?: SessionInfo;
  state?: string;
  query?: string;
  queryStats?: QueryStats;
  errorType?: string;
  errorCode?: ErrorCode;
}

export interface StageInfo {
  stageId?: string;
  state?: string;
  done?: boolean;
  nodes?: number;
  totalSplits?: number;
  queuedSplits?: number;
  runningSplits?: number;
  completedSplits?: number;
  cpuTimeMillis?: number;
  wallTimeMillis?: number;
  processedRows?: number;
  processedBytes?: number;
  outputPositions?: number;
  outputDataSize?: string;
  peakUserMemoryReservation?: string;
  subStages?: StageInfo[];
  tasks?: TaskInfo[];
}

/** A stage's task in /v1/query/{id} (Trino's TaskInfo, the fields the page shows). */
export interface TaskInfo {
  taskStatus?: { taskId?: string; nodeId?: string; state?: string };
  stats?: {
    rawInputPositions?: number;
    rawInputDataSize?: string;
    outputPositions?: number;
    outputDataSize?: string;
    totalCpuTime?: string;
    elapsedTime?: string;
    peakUserMemoryReservation?: string;
  };
}

export interface ErrorLocation {
  lineNumber?: number;
  columnNumber?: number;
}

export interface FailureInfo {
  type?: string;
  message?: string;
  errorLocation?: ErrorLocation;
}

export interface QueryInfo extends BasicQueryInfo {
  outputStage?: StageInfo;
  failureInfo?: FailureInfo;
}

export interface NodeStats {
  uri: string;
  recentRequests?: number;
  recentFailures?: number;
  recentSuccesses?: number;
  recentFailureRatio?: number;
  lastRequestTime?: string;
  lastResponseTime?: string;
  age?: string;
  recentFailuresByType?: Record<string, number>;
  lastFailureInfo?: FailureInfo;
}

export interface ClusterStats {
  runningQueries?: number;
  blockedQueries?: number;
  queuedQueries?: number;
  activeWorkers?: number;
  totalInputRows?: number;
}


export interface History {
  intervalSeconds: number;
  samples: HistorySample[];
}

/** One group of /ui/api/resourceGroups (Trino's ResourceGroupInfo, the fields the page shows). */
export interface ResourceGroupInfo {
  id?: string[];
  state?: string;
  schedulingPolicy?: string;
  softMemoryLimit?: string;
  softConcurrencyLimit?: number;
  hardConcurrencyLimit?: number;
  maxQueuedQueries?: number;
  memoryUsage?: string;
  cpuUsage?: string;
  numQueuedQueries?: number;
  numRunningQueries?: number;
}
