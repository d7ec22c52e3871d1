// Vivace as a library: the actor machines, their events, and the coordinator factory.
export { createCoordinator, type Coordinator, type CoordinatorOptions, type NodeHealth } from './actors/coordinator.js';
export {
  queryMachine,
  type QueryActorRef,
  type QueryContext,
  type QueryEvent,
  type QueryInput,
  type QueryLimits,
  type QueryOutput,
  type QueryResults,
  type QuerySnapshot,
  type QueryTimes,
} from './actors/query.machine.js';
export type { ResultPumpEvent } from './actors/result-pump.js';
export { stageMachine, type StageContext, type StageEvent, type StageInput } from './actors/stage.machine.js';
export { dispatcherMachine, type DispatcherEvent, type DispatcherInput } from './actors/dispatcher.machine.js';
export { trackerMachine, type TrackedQuery, type TrackerEvent, type TrackerInput, type TrackerLimits } from './actors/tracker.machine.js';
export { toQueryView, hasResultsReady, isPastPlanning, queryStateOf } from './actors/query-view.js';
export type { QueryView, StageView } from './protocol/query-view.types.js';
export { QUERY_STATES, STAGE_STATES, isQueryDone, isStageDone, isStageScheduled, type QueryState, type StageState } from './protocol/states.js';
export type { Engine, Execution, ExecutionProgress, Plan, RowBatch } from './engine/engine.types.js';
export { createDuckDbEngine, type DuckDbEngine, type DuckDbEngineOptions } from './engine/duckdb-engine.js';
export { VivaceError } from './protocol/vivace-error.js';
export { ERROR_CODES, type ErrorName } from './protocol/error-codes.js';
export type { Session, OutputColumn, PrestoType, QueryError } from './protocol/types.js';
export { defaultConfig, type CoordinatorConfig } from './config.js';
export { startServer, type RunningServer } from './http/server.js';
