import { expect } from 'chai';
import { javaUrlDecode, javaUrlEncode } from '../../lib/protocol/java-url-codec.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';

describe('java-url-codec', () => {
  describe('javaUrlEncode', () => {
    it('keeps letters, digits and . - * _ and writes space as +', () => {
      expect(javaUrlEncode('AZaz09.-*_')).to.equal('AZaz09.-*_');
      expect(javaUrlEncode('SELECT 1')).to.equal('SELECT+1');
    });

    it('escapes everything else as uppercase UTF-8 bytes', () => {
      expect(javaUrlEncode("a,b=c'~!+%/")).to.equal('a%2Cb%3Dc%27%7E%21%2B%25%2F');
      expect(javaUrlEncode('é€')).to.equal('%C3%A9%E2%82%AC');
      expect(javaUrlEncode('😀')).to.equal('%F0%9F%98%80');
      expect(javaUrlEncode('\n')).to.equal('%0A');
    });

    it('writes a lone surrogate as ?, like Java', () => {
      expect(javaUrlEncode('a\uD800b')).to.equal('a%3Fb');
    });
  });

  describe('javaUrlDecode', () => {
    it('turns + into space and decodes UTF-8 escapes', () => {
      expect(javaUrlDecode('SELECT+%2A+FROM+t')).to.equal('SELECT * FROM t');
      expect(javaUrlDecode('%c3%a9%E2%82%AC')).to.equal('é€');
      expect(javaUrlDecode('plain-é')).to.equal('plain-é');
    });

    it('round-trips javaUrlEncode', () => {
      const text = "SELECT 'a,b' AS \"x\" -- ü 😀 100% + 1";
      expect(javaUrlDecode(javaUrlEncode(text))).to.equal(text);
    });

    it('replaces malformed UTF-8 with U+FFFD', () => {
      expect(javaUrlDecode('%FF')).to.equal('\uFFFD');
    });

    it('rejects truncated and non-hex escapes with a 400', () => {
      for (const bad of ['%', 'abc%4', '%zz', '%4g']) {
        expect(() => javaUrlDecode(bad), bad)
          .to.throw(VivaceError)
          .that.satisfies((e: VivaceError) => e.httpStatus === 400 && e.message.startsWith('URLDecoder: '));
      }
    });
  });
});
