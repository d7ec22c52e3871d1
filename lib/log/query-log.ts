// One line per finished query at info (who, what state, how long, how many rows, how much its stages
// exchanged, which error) and, only at debug, one with its SQL: the text of other users' queries stays
// out of an info log.
import type { QueryView } from '../actors/query-view.js';
import { exchangedTotals } from '../protocol/statement-stats.js';
import type { QueryEventListener } from '../metrics/query-events.js';
import type { Logger } from './logger.js';

export function queryLog(logger: Logger): QueryEventListener {
  return {
    ended(view: QueryView) {
      const failed = view.state === 'FAILED';
      const exchanged = exchangedTotals(view);
      const line = {
        event: 'query_finished',
        queryId: view.queryId,
        user: view.session.user,
        source: view.session.source ?? null,
        state: view.state,
        elapsedMs: Math.max(0, (view.endTime ?? view.viewTime) - view.createTime),
        rows: view.outputRows,
        bytes: view.outputBytes,
        // Rows and bytes handed between its stages (queryStats' internalNetworkInput*): 0 in one task.
        exchangedRows: exchanged.rows,
        exchangedBytes: exchanged.bytes,
        errorName: view.error?.errorName ?? null,
        errorType: view.error?.errorType ?? null,
      };
      if (failed && view.error?.errorType !== 'USER_ERROR') logger.warn(line);
      else logger.info(line);
      if (logger.isLevelEnabled('debug')) logger.debug({ event: 'query_text', queryId: view.queryId, user: view.session.user, query: view.sql });
    },
  };
}
