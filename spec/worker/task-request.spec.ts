// Whatever a task request holds, reading it either gives a well-formed TaskPlanRequest or a 400
// VivaceError naming the problem; ids, tokens and sizes from the path likewise (fast-check).
import { expect } from 'chai';
import fc from 'fast-check';
import { MAX_TARGET_BYTES, parseTaskPlanRequest, targetBytesOf, taskIdOfPath, tokenOf } from '../../lib/worker/task-request.js';
import { isValidNodeId } from '../../lib/cli/worker-command.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { session } from './worker-support.js';

function outcome(read: () => unknown): 'ok' | 'refused' {
  try {
    read();
    return 'ok';
  } catch (err) {
    expect(err).to.be.instanceOf(VivaceError);
    expect((err as VivaceError).httpStatus).to.equal(400);
    expect((err as VivaceError).message).to.be.a('string').and.not.equal('');
    return 'refused';
  }
}

describe('task request parsing', () => {
  it('reads any JSON value as a request or a 400', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        outcome(() => parseTaskPlanRequest(value, 10_000));
      }),
      { numRuns: 500 },
    );
  });

  it('reads requests with any field replaced by any JSON value as a request or a 400, and keeps what it reads typed', () => {
    const fields = ['queryId', 'sql', 'session', 'system', 'execute', 'targetBytes', 'inlineFirstPage'] as const;
    const sessionFields = ['prefix', 'user', 'catalog', 'schema', 'clientTags', 'properties', 'preparedStatements', 'startTime', 'transactionId', 'timeZone'] as const;
    fc.assert(
      fc.property(fc.constantFrom(...fields), fc.constantFrom(...sessionFields), fc.jsonValue(), fc.boolean(), (field, sessionField, value, inSession) => {
        const base: Record<string, unknown> = { queryId: 'q', sql: 'SELECT 1', session: { ...session() } };
        if (inSession) (base.session as Record<string, unknown>)[sessionField] = value;
        else base[field] = value;
        let read: ReturnType<typeof parseTaskPlanRequest> | undefined;
        if (outcome(() => (read = parseTaskPlanRequest(JSON.parse(JSON.stringify(base)), 10_000))) === 'ok') {
          expect(read!.sql).to.be.a('string');
          expect(read!.session.user).to.be.a('string').and.not.equal('');
          for (const v of Object.values(read!.session.properties)) expect(v).to.be.a('string');
          if (read!.targetBytes !== undefined) expect(read!.targetBytes).to.be.within(1, MAX_TARGET_BYTES);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('reads path parts: task ids, tokens and targetBytes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        if (outcome(() => taskIdOfPath(text)) === 'ok') expect(text).to.match(/^[\x21-\x7e]{1,256}$/);
        if (outcome(() => tokenOf(text)) === 'ok') expect(Number.isSafeInteger(tokenOf(text))).to.equal(true);
        if (outcome(() => targetBytesOf(text, 1)) === 'ok') expect(targetBytesOf(text, 1)).to.be.within(1, MAX_TARGET_BYTES);
        isValidNodeId(text);
      }),
      { numRuns: 1000 },
    );
    expect(targetBytesOf(undefined, 77)).to.equal(77);
    expect(targetBytesOf(['5', '6'], 1)).to.equal(5);
    expect(tokenOf('12')).to.equal(12);
  });
});
