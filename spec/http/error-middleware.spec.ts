import { expect } from 'chai';
import { isOwnBug } from '../../lib/http/error-middleware.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';

describe('isOwnBug', () => {
  it('is true only for internal errors that are not a state of the server or the cluster', () => {
    expect(isOwnBug(new VivaceError('GENERIC_INTERNAL_ERROR', 'x'))).to.equal(true);
    for (const name of ['NO_NODES_AVAILABLE', 'REMOTE_TASK_ERROR', 'REMOTE_HOST_GONE', 'SERVER_SHUTTING_DOWN', 'SERVER_STARTING_UP', 'SYNTAX_ERROR', 'PERMISSION_DENIED'] as const) {
      expect(isOwnBug(new VivaceError(name, 'x')), name).to.equal(false);
    }
  });
});
