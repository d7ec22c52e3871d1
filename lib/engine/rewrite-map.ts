// Where each part of a rewritten statement came from, so that an error DuckDB reports at a position
// of the rewritten text (after X'..' literals, VALUES rows, catalog names... were changed) points at
// the statement as the user wrote it.

/** A part of the rewritten text: it starts at `start` and came from the original text at `origin`. */
interface Piece {
  start: number;
  origin: number;
  /** copied unchanged (positions inside map one to one); otherwise a replacement (maps to its origin) */
  kept: boolean;
}

export interface RewritePart {
  /** offset of this part's source in the text before the rewrite */
  origin: number;
  /** the part's text after the rewrite */
  text: string;
  kept: boolean;
}

export class RewriteMap {
  /** No rewrite: every offset is its own. */
  static readonly IDENTITY = new RewriteMap([]);

  private constructor(
    private readonly pieces: readonly Piece[],
    /** maps the text this rewrite started from further back (rewrites applied before this one) */
    private readonly before?: RewriteMap,
  ) {}

  /** The map of a text made of `parts` in order, after the rewrites `before` describes. */
  static of(parts: readonly RewritePart[], before: RewriteMap = RewriteMap.IDENTITY): RewriteMap {
    const pieces: Piece[] = [];
    let start = 0;
    for (const part of parts) {
      if (part.text.length === 0) continue;
      pieces.push({ start, origin: part.origin, kept: part.kept });
      start += part.text.length;
    }
    return new RewriteMap(pieces, before === RewriteMap.IDENTITY ? undefined : before);
  }

  /** The offset in the text as written of an offset in the rewritten text. */
  toOriginal(offset: number): number {
    let mapped = offset;
    const piece = this.lastPiece((p) => p.start, offset);
    if (piece) mapped = piece.kept ? piece.origin + Math.max(0, offset - piece.start) : piece.origin;
    return this.before ? this.before.toOriginal(mapped) : mapped;
  }

  /**
   * The offset in the rewritten text of an offset in the text as written: inside an unchanged part, the
   * same character; inside a replaced one, the start of its replacement. Rewrites keep parts in order.
   */
  toRewritten(offset: number): number {
    const o = this.before ? this.before.toRewritten(offset) : offset;
    const piece = this.lastPiece((p) => p.origin, o);
    if (!piece || piece.origin > o) return o;
    return piece.kept ? piece.start + (o - piece.origin) : piece.start;
  }

  /** The last piece whose `key` is at or before `offset` (the first piece when none is), by binary search. */
  private lastPiece(key: (p: Piece) => number, offset: number): Piece | undefined {
    if (this.pieces.length === 0) return undefined;
    let lo = 0;
    let hi = this.pieces.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (key(this.pieces[mid]!) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return this.pieces[lo];
  }
}

/** A rewritten text with its map back to the original. */
export interface Rewritten {
  text: string;
  map: RewriteMap;
}
