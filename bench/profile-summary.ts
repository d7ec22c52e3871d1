// Summarises a V8 .cpuprofile (as written by --cpu-prof, e.g. BENCH_CPU_PROF=DIR make bench):
// top functions by self time and by total (inclusive) time, and self time per source file.
// Usage: node --import tsx bench/profile-summary.ts FILE.cpuprofile [top=25]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: profile-summary.ts FILE.cpuprofile [top]\n');
  process.exit(2);
}
const top = Number(topArg ?? 25);
// Piped into head: stop quietly when the reader goes away.
process.stdout.on('error', () => process.exit(0));
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const selfMicros = new Map<number, number>();
profile.samples.forEach((id, i) => selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfMicros.values()].reduce((a, b) => a + b, 0);

const shortUrl = (url: string) => url.replace(/^.*\/work\/main\//, '').replace(/^.*node_modules\//, 'nm/').replace(/^node:/, '');
const key = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${shortUrl(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
const files = new Map<string, number>();
for (const [id, micros] of selfMicros) {
  const node = byId.get(id)!;
  self.set(key(node), (self.get(key(node)) ?? 0) + micros);
  const f = shortUrl(node.callFrame.url) || node.callFrame.functionName;
  files.set(f, (files.get(f) ?? 0) + micros);
  // Each function on the stack once (recursion counted once).
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const k = key(byId.get(cur)!);
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + micros);
  }
}

const print = (title: string, map: Map<string, number>) => {
  process.stdout.write(`\n${title}\n`);
  for (const [k, v] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${(v / 1000).toFixed(0).padStart(8)} ms ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}\n`);
  }
};
process.stdout.write(`${file}: ${(total / 1e6).toFixed(2)} s sampled\n`);
print('self time', self);
print('total time (inclusive)', inclusive);
print('self time per file', files);
