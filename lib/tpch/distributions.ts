import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseDistributions } from './dists-parser.js';
import type { Distribution } from './distribution.js';

/** The dbgen distributions used by the generators, by role. */
export interface TpchDistributions {
  readonly grammar: Distribution;
  readonly nounPhrase: Distribution;
  readonly verbPhrase: Distribution;
  readonly prepositions: Distribution;
  readonly nouns: Distribution;
  readonly verbs: Distribution;
  readonly articles: Distribution;
  readonly adjectives: Distribution;
  readonly adverbs: Distribution;
  readonly auxiliaries: Distribution;
  readonly terminators: Distribution;
  readonly orderPriorities: Distribution;
  readonly shipInstructions: Distribution;
  readonly shipModes: Distribution;
  readonly returnFlags: Distribution;
  readonly partContainers: Distribution;
  readonly partColors: Distribution;
  readonly partTypes: Distribution;
  readonly marketSegments: Distribution;
  readonly nations: Distribution;
  readonly regions: Distribution;
}

let cached: TpchDistributions | undefined;

/**
 * Loads lib/tpch/dists.dss once per process. tsc does not copy it into dist/, so compiled code
 * (dist/lib/tpch/) reads the source tree's copy.
 */
export function getDistributions(): TpchDistributions {
  if (cached === undefined) {
    const beside = fileURLToPath(new URL('./dists.dss', import.meta.url));
    const path = existsSync(beside) ? beside : fileURLToPath(new URL('../../../lib/tpch/dists.dss', import.meta.url));
    cached = fromMap(parseDistributions(readFileSync(path, 'latin1')));
  }
  return cached;
}

function fromMap(all: Map<string, Distribution>): TpchDistributions {
  const get = (name: string): Distribution => {
    const d = all.get(name);
    if (d === undefined) throw new Error(`dists.dss has no distribution ${name}`);
    return d;
  };
  return {
    grammar: get('grammar'),
    nounPhrase: get('np'),
    verbPhrase: get('vp'),
    prepositions: get('prepositions'),
    nouns: get('nouns'),
    verbs: get('verbs'),
    articles: get('articles'),
    adjectives: get('adjectives'),
    adverbs: get('adverbs'),
    auxiliaries: get('auxillaries'),
    terminators: get('terminators'),
    orderPriorities: get('o_oprio'),
    shipInstructions: get('instruct'),
    shipModes: get('smode'),
    returnFlags: get('rflag'),
    partContainers: get('p_cntr'),
    partColors: get('colors'),
    partTypes: get('p_types'),
    marketSegments: get('msegmnt'),
    nations: get('nations'),
    regions: get('regions'),
  };
}
