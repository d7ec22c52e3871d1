// Pulls rendered row batches out of an Execution on demand and hands them to the query actor.
// Demand-driven (the query sends `results.pull` as the client takes pages) so a slow client
// never makes the coordinator buffer a whole result.
import { fromCallback } from 'xstate';
import type { ExecutionProgress, Plan, RowBatch } from '../engine/engine.types.js';
import { VivaceError } from '../protocol/vivace-error.js';

export interface ResultProducerInput {
  plan: Plan;
  targetBytes: number;
  /** batches fetched ahead of the client */
  prefetch: number;
}

export type ResultProducerEvent =
  | { type: 'results.batch'; batch: RowBatch; progress: ExecutionProgress }
  | { type: 'results.end'; updateCount?: number; progress: ExecutionProgress }
  | { type: 'results.failed'; error: VivaceError };

export type ResultDemandEvent = { type: 'results.pull' };

export const resultProducer = fromCallback<ResultDemandEvent, ResultProducerInput, ResultProducerEvent>(
  ({ input, sendBack, receive }) => {
    const execution = input.plan.execute();
    let demand = input.prefetch;
    let fetching = false;
    let ended = false;

    const pump = async (): Promise<void> => {
      if (fetching || ended || demand <= 0) return;
      fetching = true;
      demand--;
      try {
        const batch = await execution.next(input.targetBytes);
        if (ended) return;
        if (batch === null) {
          ended = true;
          sendBack({ type: 'results.end', updateCount: execution.updateCount, progress: execution.progress() });
        } else {
          sendBack({ type: 'results.batch', batch, progress: execution.progress() });
        }
      } catch (err) {
        if (ended) return;
        ended = true;
        sendBack({ type: 'results.failed', error: VivaceError.from(err) });
      } finally {
        fetching = false;
      }
      void pump();
    };

    receive((event) => {
      if (event.type === 'results.pull') {
        demand++;
        void pump();
      }
    });
    void pump();

    // Leaving RUNNING early (cancel, failure, time limit) interrupts the engine.
    return () => {
      if (!ended) {
        ended = true;
        execution.cancel();
      }
    };
  },
);
