// The tpch catalog's generation progress goes to the process's logger by default: info lines
// (component tpch, event tpch_generation), so a worker's stderr carries JSON lines only.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import type { Engine } from '../../lib/engine/engine.types.js';
import { setDefaultLogger } from '../../lib/log/logger.js';
import { runSql } from '../engine/engine-helpers.js';
import { captureLog } from '../support/log-capture.js';

describe('log: tpch generation', function () {
  this.timeout(60_000);
  let dataDirectory: string;
  let engine: Engine | undefined;
  let previous: ReturnType<typeof setDefaultLogger>;
  afterEach(async () => {
    setDefaultLogger(previous);
    await engine?.close();
    rmSync(dataDirectory, { recursive: true, force: true });
  });

  it('a first use of a scale factor logs its generation at info, from the first line to the last', async () => {
    dataDirectory = mkdtempSync(join(tmpdir(), 'vivace-tpch-log-'));
    const info = captureLog('info');
    previous = setDefaultLogger(info.logger);
    engine = await createDuckDbEngine({ tempDirectory: join(dataDirectory, 'spill'), dataDirectory, threads: 2, maxConnections: 2 });
    expect((await runSql(engine, 'SELECT count(*) FROM tpch."sf0.001".nation')).rows).to.deep.equal([[25]]);
    const lines = info.lines();
    expect(lines.length).to.be.at.least(2);
    for (const line of lines) expect(line).to.include({ level: 'info', component: 'tpch', event: 'tpch_generation' });
    expect(lines[0]!.message).to.match(/^tpch: generating tpch\.sf0\.001 /u);
    expect(lines.at(-1)!.message).to.match(/^tpch: tpch\.sf0\.001 ready in /u);
  });
});
