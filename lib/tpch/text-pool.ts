import type { Distribution } from './distribution.js';
import { getDistributions, type TpchDistributions } from './distributions.js';
import { MODULUS, MULTIPLIER } from './park-miller.js';

/** dbgen's pool size: every comment is a slice of these 300 MiB of generated sentences. */
export const DEFAULT_TEXT_POOL_SIZE = 300 * 1024 * 1024;
const TEXT_POOL_SEED = 933588178;
const MAX_SENTENCE_LENGTH = 256;

/** The text pool: ASCII bytes, sliced by RandomText for every comment column. */
export class TextPool {
  readonly bytes: Buffer;
  readonly size: number;

  constructor(bytes: Buffer, size: number) {
    this.bytes = bytes;
    this.size = size;
  }

  getText(begin: number, end: number): string {
    if (end > this.size) throw new RangeError(`text pool index ${end} beyond size ${this.size}`);
    return this.bytes.toString('latin1', begin, end);
  }
}

let defaultPool: TextPool | undefined;

/** The 300 MiB pool, generated on first use and kept for the life of the process. */
export function getTextPool(): TextPool {
  defaultPool ??= generateTextPool(DEFAULT_TEXT_POOL_SIZE, getDistributions());
  return defaultPool;
}

// Token kinds of the pre-parsed grammars; word kinds index `WORD_TABLES`.
const ARTICLE = 0, ADJECTIVE = 1, ADVERB = 2, NOUN = 3, VERB = 4, AUXILIARY = 5;
const PREPOSITION = 6, TERMINATOR = 7, COMMA = 8, VERB_PHRASE = 9, NOUN_PHRASE = 10, PREP_PHRASE = 11;
const SPACE = 0x20;
const SCHRAGE_Q = 127773; // MODULUS / MULTIPLIER
const SCHRAGE_R = 2836; // MODULUS % MULTIPLIER

// Slot table of a weighted distribution: slot -> value index.
function slotTable(d: Distribution, map: (index: number) => number): Int32Array {
  const slots = new Int32Array(d.cumulativeWeights[d.size - 1]);
  let value = 0;
  for (let i = 0; i < slots.length; i++) {
    while (i >= d.cumulativeWeights[value]) value++;
    slots[i] = map(value);
  }
  return slots;
}

function parseTokens(syntax: string, codes: Record<string, number>, step: number): Int32Array {
  const tokens: number[] = [];
  for (let i = 0; i < syntax.length; i += step) {
    const c = syntax[i];
    if (c === ' ') continue;
    const code = codes[c];
    if (code === undefined) throw new Error(`unknown grammar token '${c}' in '${syntax}'`);
    tokens.push(code);
  }
  return Int32Array.from(tokens);
}

/**
 * Generates the pool from dists.dss's sentence grammar with dbgen's single
 * stream (seed 933588178). Every word pick is one draw, so the pool can only be
 * produced sequentially; the loop is one function over flat typed arrays so V8
 * keeps the seed and write position in registers (about 3x faster than closures).
 */
export function generateTextPool(size: number, dists: TpchDistributions): TextPool {
  // All words of all word distributions, flattened into one byte array.
  const wordSources = [dists.articles, dists.adjectives, dists.adverbs, dists.nouns,
    dists.verbs, dists.auxiliaries, dists.prepositions, dists.terminators];
  const wordStart: number[] = [];
  const wordEnd: number[] = [];
  const chunks: Uint8Array[] = [];
  let offset = 0;
  const tables = wordSources.map((d) => {
    const base = wordStart.length;
    for (const bytes of d.bytes) {
      wordStart.push(offset);
      offset += bytes.length;
      wordEnd.push(offset);
      chunks.push(bytes);
    }
    return slotTable(d, (i) => base + i);
  });
  const words = Buffer.concat(chunks);
  const starts = Int32Array.from(wordStart);
  const ends = Int32Array.from(wordEnd);

  const grammarTokens = dists.grammar.values.map((s) =>
    parseTokens(s, { V: VERB_PHRASE, N: NOUN_PHRASE, P: PREP_PHRASE, T: TERMINATOR }, 2));
  const nounTokens = dists.nounPhrase.values.map((s) =>
    parseTokens(s, { A: ARTICLE, J: ADJECTIVE, D: ADVERB, N: NOUN, ',': COMMA }, 1));
  const verbTokens = dists.verbPhrase.values.map((s) =>
    parseTokens(s, { D: ADVERB, V: VERB, X: AUXILIARY }, 2));
  const grammarSlots = slotTable(dists.grammar, (i) => i);
  const nounSlots = slotTable(dists.nounPhrase, (i) => i);
  const verbSlots = slotTable(dists.verbPhrase, (i) => i);

  const out = Buffer.allocUnsafe(size + 4 * MAX_SENTENCE_LENGTH);
  let pos = 0;
  let seed = TEXT_POOL_SEED;
  let hi: number;
  while (pos < size) {
    // seed * 16807 mod (2^31 - 1) by Schrage's method: int32 only, same values as dbgen.
    hi = (seed / SCHRAGE_Q) | 0;
    seed = MULTIPLIER * (seed - hi * SCHRAGE_Q) - SCHRAGE_R * hi;
    if (seed <= 0) seed += MODULUS;
    const sentence = grammarTokens[grammarSlots[((seed / MODULUS) * grammarSlots.length) | 0]];
    for (let g = 0; g < sentence.length; g++) {
      let kind = sentence[g];
      let phrase: Int32Array | null = null;
      if (kind === VERB_PHRASE || kind === NOUN_PHRASE || kind === PREP_PHRASE) {
        if (kind === PREP_PHRASE) {
          const table = tables[PREPOSITION];
          hi = (seed / SCHRAGE_Q) | 0;
          seed = MULTIPLIER * (seed - hi * SCHRAGE_Q) - SCHRAGE_R * hi;
          if (seed <= 0) seed += MODULUS;
          const w = table[((seed / MODULUS) * table.length) | 0];
          for (let b = starts[w], e = ends[w]; b < e; b++) out[pos++] = words[b];
          out[pos++] = SPACE; out[pos++] = 0x74; out[pos++] = 0x68; out[pos++] = 0x65; out[pos++] = SPACE; // " the "
        }
        const slots = kind === VERB_PHRASE ? verbSlots : nounSlots;
        hi = (seed / SCHRAGE_Q) | 0;
        seed = MULTIPLIER * (seed - hi * SCHRAGE_Q) - SCHRAGE_R * hi;
        if (seed <= 0) seed += MODULUS;
        const index = slots[((seed / MODULUS) * slots.length) | 0];
        phrase = kind === VERB_PHRASE ? verbTokens[index] : nounTokens[index];
      }
      const count = phrase === null ? 1 : phrase.length;
      for (let p = 0; p < count; p++) {
        if (phrase !== null) kind = phrase[p];
        if (kind === COMMA) {
          out[pos - 1] = 0x2c; // the comma replaces the word's trailing space
          out[pos++] = SPACE;
          continue;
        }
        if (kind === TERMINATOR) pos--; // terminators abut the previous word
        const table = tables[kind];
        hi = (seed / SCHRAGE_Q) | 0;
        seed = MULTIPLIER * (seed - hi * SCHRAGE_Q) - SCHRAGE_R * hi;
        if (seed <= 0) seed += MODULUS;
        const w = table[((seed / MODULUS) * table.length) | 0];
        for (let b = starts[w], e = ends[w]; b < e; b++) out[pos++] = words[b];
        if (phrase !== null) out[pos++] = SPACE;
      }
      if (out[pos - 1] !== SPACE) out[pos++] = SPACE;
    }
  }
  return new TextPool(out, size);
}
