import { Distribution } from './distribution.js';

/**
 * Parses dbgen's dists.dss: `BEGIN name` ... `value|weight` ... `END name`,
 * with `#` comments and a `count|n` pseudo-entry checked against the entries.
 * Names are lower-cased; unnamed blocks are skipped.
 */
export function parseDistributions(text: string): Map<string, Distribution> {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('#'));
  const result = new Map<string, Distribution>();
  let i = 0;
  while (i < lines.length) {
    const words = lines[i++].split(/\s+/);
    if (words.length !== 2 || words[0].toLowerCase() !== 'begin') continue;
    const name = words[1].toLowerCase();
    const entries: Array<[string, number]> = [];
    let count = -1;
    while (i < lines.length && !/^end(?:\s|$)/i.test(lines[i])) {
      const parts = lines[i++].split('|').map((p) => p.trim()).filter((p) => p.length > 0);
      if (parts.length !== 2) throw new Error(`dists.dss ${name}: bad line ${lines[i - 1]}`);
      const weight = Number.parseInt(parts[1], 10);
      if (Number.isNaN(weight)) throw new Error(`dists.dss ${name}: bad weight ${lines[i - 1]}`);
      if (parts[0].toLowerCase() === 'count') count = weight;
      else entries.push([parts[0], weight]);
    }
    i++; // the END line
    if (count !== entries.length) {
      throw new Error(`dists.dss ${name}: count ${count} but ${entries.length} entries`);
    }
    result.set(name, new Distribution(name, entries));
  }
  return result;
}
