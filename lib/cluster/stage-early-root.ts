// The early root of a query in two stages (staged-query.ts): once every leaf but one has ended, the root
// task starts on the worker of the leaf still running, pulls the ended leaves' outputs and plans while
// that leaf finishes, then links its output there (stage-tasks.ts); no round trip to the coordinator and
// back once the last leaf ends (Q6 at sf1: its pull began ~3 ms before the last leaf ended, not ~1.5 ms after).
import type { PlanChoices } from '../planner/fragment.types.js';
import type { Plan, PlanAbort } from '../engine/engine.types.js';
import { PlanAbortController } from '../engine/plan-abort.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { stageTrace } from './stage-trace.js';
import type { LeafRound, StagedRequest, StageHost } from './staged-query.js';

/**
 * The root started when the last leaf still runs, on that leaf's worker: it pulls the ended leaves'
 * outputs and plans while the leaf finishes, then links its output (no round trip to the coordinator
 * and back once the last leaf ends). Undefined when that was not the case or the root failed with
 * the leaves alive (say its worker was lost: that leaf runs again elsewhere), so the usual path goes on.
 */
export async function earlyRoot(host: StageHost, request: StagedRequest, leaves: LeafRound, abort: PlanAbort, choices: PlanChoices): Promise<Plan | undefined> {
  if (!host.planRootOn) return undefined;
  const stopLeaves = abort.onAbort(() => leaves.abort());
  let oneLeft: Awaited<LeafRound['oneLeft']>;
  try {
    oneLeft = await leaves.oneLeft;
  } finally {
    stopLeaves();
  }
  if (abort.aborted) throw abort.reason;
  if (!oneLeft) return undefined;
  const { inputs, last } = oneLeft;
  // The root ends with the query, and when a leaf fails (its error is the query's, from `outputs`).
  const rootAbort = new PlanAbortController();
  const stopRoot = abort.onAbort(() => rootAbort.abort(abort.reason));
  leaves.outputs.catch((err: unknown) => rootAbort.abort(err instanceof VivaceError ? err : new VivaceError('REMOTE_TASK_ERROR', 'A leaf failed')));
  const taskId = `${request.queryId}.0.0.${EARLY_ROOT_ATTEMPT}`;
  try {
    stageTrace('c.post', taskId);
    const plan = await host.planRootOn(last, {
      queryId: request.queryId, sql: request.sql, session: request.session, execute: true, inlineFirstPage: true,
      ...(request.targetBytes === undefined ? {} : { targetBytes: request.targetBytes }),
      // The plan's choices: the worker derives the root from them as the coordinator planned it.
      stage: { kind: 'fragment', fragmentId: 0, inputs, choices },
    }, taskId, rootAbort);
    stageTrace('c.planned', taskId);
    // The root read every input, so each leaf has ended: its figures arrive now (then the scheduler drops them).
    await leaves.outputs.catch(() => undefined);
    return plan;
  } catch (err) {
    host.deleteTask(host.clientOf(last), taskId);
    // Cancelled, or the root's own error: the query ends (the scheduler drops the leaves that ended).
    const rootsOwn = err instanceof VivaceError && err.errorName !== 'REMOTE_TASK_ERROR' && !rootAbort.aborted;
    if (abort.aborted) throw abort.reason;
    if (rootsOwn) throw err;
    return undefined;
  } finally {
    stopRoot();
  }
}

/** The early root's task attempt: above the usual roots' (round * 2 + retry, two rounds). */
const EARLY_ROOT_ATTEMPT = 4;
