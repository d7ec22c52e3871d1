// The bounded memo of a pure function of a text (lib/text-memo.ts): computed once per kept text,
// the least recently used going first past its size, a text over its length never kept.
import { expect } from 'chai';
import { TextMemo } from '../lib/text-memo.js';

describe('a memo of answers by text', () => {
  it('computes a text once while kept, drops the least recently used past its size, and never keeps a long text', () => {
    const memo = new TextMemo<number>(2, 5);
    let calls = 0;
    const length = (text: string) => {
      calls++;
      return text.length;
    };
    expect(memo.get('a', length)).to.equal(1);
    expect(memo.get('a', length)).to.equal(1);
    expect(calls).to.equal(1);
    memo.get('bb', length);
    memo.get('a', length); // 'a' used last: 'bb' is the oldest
    memo.get('ccc', length);
    expect(memo.size).to.equal(2);
    calls = 0;
    memo.get('a', length);
    memo.get('ccc', length);
    expect(calls, 'a and ccc kept').to.equal(0);
    memo.get('bb', length);
    expect(calls, 'bb dropped').to.equal(1);
    calls = 0;
    memo.get('longer', length);
    memo.get('longer', length);
    expect(calls, 'over 5 characters: computed each time').to.equal(2);
    expect(memo.size).to.equal(2);
  });
});
