// Figure a: `SELECT 1` through the whole protocol (POST, then GET nextUri until none), one query at a time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfig } from '../lib/config.js';
import { createDuckDbEngine } from '../lib/engine/duckdb-engine.js';
import { PrestoHttpClient, percentile } from './http-client.js';
import { benchSession } from './stream.bench.js';

export interface LatencyFigures {
  queries: number;
  p50: number;
  p99: number;
  mean: number;
  /** HTTP requests per query (POST + GETs) */
  requestsPerQuery: number;
  /** p50 milliseconds of each HTTP exchange of a query: POST, GET 1, GET 2, ... */
  stepP50: number[];
}

export async function sequentialLatency(url: string, warmup: number, count: number, maxSeconds: number): Promise<LatencyFigures> {
  const client = new PrestoHttpClient(url, 1);
  try {
    for (let i = 0; i < warmup; i++) await client.query('SELECT 1');
    const latencies: number[] = [];
    let requests = 0;
    const steps: number[][] = [];
    const deadline = performance.now() + maxSeconds * 1000;
    while (latencies.length < count && performance.now() < deadline) {
      const t0 = performance.now();
      const querySteps: number[] = [];
      const outcome = await client.query('SELECT 1', 'parse', querySteps);
      querySteps.forEach((ms, i) => (steps[i] ??= []).push(ms));
      latencies.push(performance.now() - t0);
      requests += outcome.requests;
      if (outcome.rows !== 1) throw new Error(`SELECT 1 returned ${outcome.rows} rows`);
    }
    return {
      queries: latencies.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      mean: latencies.reduce((a, b) => a + b, 0) / latencies.length,
      requestsPerQuery: requests / latencies.length,
      stepP50: steps.map((s) => percentile(s, 50)),
    };
  } finally {
    client.close();
  }
}

export interface EngineLatencyFigures {
  planP50: number;
  executeP50: number;
  p50: number;
  p99: number;
}

/** The engine alone in this process: plan('SELECT 1'), execute, next() until null; no HTTP, no actors. */
export async function engineLatency(warmup: number, count: number): Promise<EngineLatencyFigures> {
  const config = defaultConfig();
  const tempDirectory = mkdtempSync(join(tmpdir(), 'vivace-bench-engine-'));
  const engine = await createDuckDbEngine({ tempDirectory, memoryLimit: config.engineMemoryLimit, threads: config.engineThreads, maxConnections: 2 });
  try {
    const plan: number[] = [];
    const execute: number[] = [];
    const total: number[] = [];
    for (let i = 0; i < warmup + count; i++) {
      const t0 = performance.now();
      const planned = await engine.plan('SELECT 1', benchSession());
      const t1 = performance.now();
      const execution = planned.execute();
      while (await execution.next(config.targetResultBytes));
      const t2 = performance.now();
      if (i < warmup) continue;
      plan.push(t1 - t0);
      execute.push(t2 - t1);
      total.push(t2 - t0);
    }
    return { planP50: percentile(plan, 50), executeP50: percentile(execute, 50), p50: percentile(total, 50), p99: percentile(total, 99) };
  } finally {
    await engine.close();
    rmSync(tempDirectory, { recursive: true, force: true });
  }
}

/** One plain GET at a time (the Koa baseline): the cost of an HTTP round trip on this machine. */
export async function plainGetLatency(url: string, warmup: number, count: number): Promise<{ p50: number; p99: number }> {
  const client = new PrestoHttpClient(url, 1);
  try {
    const latencies: number[] = [];
    for (let i = 0; i < warmup + count; i++) {
      const t0 = performance.now();
      const reply = await client.request('GET', '/');
      JSON.parse(reply.body.toString('utf8'));
      if (i >= warmup) latencies.push(performance.now() - t0);
    }
    return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  } finally {
    client.close();
  }
}
