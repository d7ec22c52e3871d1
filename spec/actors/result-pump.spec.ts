import { expect } from 'chai';
import { ResultPump, type ResultPumpEvent } from '../../lib/actors/result-pump.js';
import type { Plan } from '../../lib/engine/engine.types.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { settle, testSession } from '../support/actors.js';
import { BIGINT_COLUMN, FakeEngine } from '../support/fake-engine.js';

const rows = (n: number) => Array.from({ length: n }, (_, i) => [i]);

async function planOf(engine: FakeEngine, sql: string): Promise<Plan> {
  return engine.plan(sql, testSession());
}

function collect(): { events: ResultPumpEvent[]; sink: (e: ResultPumpEvent) => void } {
  const events: ResultPumpEvent[] = [];
  return { events, sink: (e) => events.push(e) };
}

describe('ResultPump', () => {
  it('fetches only as many batches ahead as demanded, and the last batch travels with the end', async () => {
    const engine = new FakeEngine({ s: { columns: [BIGINT_COLUMN('n')], rows: rows(50), batchRows: 10 } });
    const pump = new ResultPump(await planOf(engine, 's'), 1024, 2);
    const { events, sink } = collect();
    pump.start(sink);
    await settle(20);
    expect(events.map((e) => e.type)).to.deep.equal(['results.batch', 'results.batch']);
    pump.pull(10);
    await settle(20);
    expect(events.map((e) => e.type)).to.deep.equal(['results.batch', 'results.batch', 'results.batch', 'results.batch', 'results.end']);
    const end = events[4]! as Extract<ResultPumpEvent, { type: 'results.end' }>;
    expect(end.batch?.rows).to.equal(10);
    expect(end.progress.processedRows).to.equal(50);
    expect(engine.openExecutions).to.equal(0);
  });

  it('reports an empty result as an end without a batch', async () => {
    const engine = new FakeEngine({ e: { columns: [BIGINT_COLUMN('n')], rows: [] } });
    const { events, sink } = collect();
    new ResultPump(await planOf(engine, 'e'), 1024, 2).start(sink);
    await settle();
    expect(events).to.have.length(1);
    expect(events[0]).to.include({ type: 'results.end' });
    expect(events[0]).to.not.have.property('batch');
  });

  it('turns an engine failure into results.failed, and a plan that cannot execute too', async () => {
    const error = new VivaceError('DIVISION_BY_ZERO', 'Division by zero');
    const engine = new FakeEngine({ f: { columns: [BIGINT_COLUMN('n')], rows: rows(30), batchRows: 10, failAtBatch: { index: 1, error } } });
    const { events, sink } = collect();
    new ResultPump(await planOf(engine, 'f'), 1024, 3).start(sink);
    await settle(20);
    expect(events.map((e) => e.type)).to.deep.equal(['results.batch', 'results.failed']);
    expect((events[1] as Extract<ResultPumpEvent, { type: 'results.failed' }>).error.errorName).to.equal('DIVISION_BY_ZERO');

    const broken: Plan = { columns: [], execute: () => { throw new VivaceError('GENERIC_INTERNAL_ERROR', 'no connection'); }, release: () => undefined };
    const other = collect();
    new ResultPump(broken, 1024, 2).start(other.sink);
    expect(other.events, 'never synchronously').to.have.length(0);
    await settle();
    expect(other.events.map((e) => e.type)).to.deep.equal(['results.failed']);
  });

  it('stop() cancels the execution once and nothing is reported after it', async () => {
    const engine = new FakeEngine({ g: { columns: [BIGINT_COLUMN('n')], rows: rows(5), gated: true } });
    const { events, sink } = collect();
    const pump = new ResultPump(await planOf(engine, 'g'), 1024, 2);
    pump.start(sink);
    await settle();
    pump.stop();
    pump.stop();
    engine.openGates();
    await settle();
    expect(engine.cancels).to.equal(1);
    expect(events).to.deep.equal([]);
  });
});
