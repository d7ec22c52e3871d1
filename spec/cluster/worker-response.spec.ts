import { expect } from 'chai';
import fc from 'fast-check';
import { WorkerResponse } from '../../lib/cluster/worker-client.js';

/** `bytes` cut into pieces at `cuts` (as a socket delivers a body). */
function piecesOf(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const cut of [...at, bytes.length]) {
    pieces.push(bytes.subarray(from, cut));
    from = cut;
  }
  return pieces;
}

describe('WorkerResponse', () => {
  it('splits its body at any offset into a joined head and the rest as pieces, whatever the chunking', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.array(fc.nat(), { maxLength: 8 }), fc.nat(), (raw, cuts, offset) => {
        const bytes = Buffer.from(raw);
        const response = new WorkerResponse(200, {}, piecesOf(bytes, cuts));
        const at = offset % (bytes.length + 1);
        const { head, rest } = response.split(at);
        expect(head.equals(bytes.subarray(0, at))).to.equal(true);
        expect(Buffer.concat(rest).equals(bytes.subarray(at))).to.equal(true);
        expect(response.size).to.equal(bytes.length);
        expect(response.body.equals(bytes)).to.equal(true);
      }),
    );
  });
});
