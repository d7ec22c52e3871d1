// Java's URLEncoder/URLDecoder (UTF-8), which upstream clients use for session header values. It is not
// encodeURIComponent: space is '+', and only letters, digits and . - * _ stay literal.
import { VivaceError } from './vivace-error.js';

const UNRESERVED = /^[\w.\-*]$/;
/** Lone UTF-16 surrogates: Java's UTF-8 encoder writes '?' for them. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function javaUrlEncode(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s.replace(LONE_SURROGATE, '?'), 'utf8')) {
    const ch = String.fromCharCode(byte);
    if (UNRESERVED.test(ch)) out += ch;
    else if (byte === 0x20) out += '+';
    else out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/**
 * '+' is a space, runs of %XX are UTF-8 bytes (malformed sequences become U+FFFD, as in Java), other
 * characters pass through. A truncated or non-hex escape throws a 400 VivaceError: it is a bad request.
 */
export function javaUrlDecode(s: string): string {
  let out = '';
  let i = 0;
  while (i < s.length) {
    const ch = s[i]!;
    if (ch === '+') {
      out += ' ';
      i += 1;
    } else if (ch === '%') {
      const bytes: number[] = [];
      while (i < s.length && s[i] === '%') {
        const hex = s.slice(i + 1, i + 3);
        if (hex.length < 2) throw badEscape(`Incomplete trailing escape (%) pattern in '${s}'`);
        if (!/^[0-9A-F]{2}$/i.test(hex)) throw badEscape(`Illegal hex characters in escape (%) pattern in '${s}'`);
        bytes.push(parseInt(hex, 16));
        i += 3;
      }
      out += Buffer.from(bytes).toString('utf8');
    } else {
      out += ch;
      i += 1;
    }
  }
  return out;
}

function badEscape(message: string): VivaceError {
  return new VivaceError('INVALID_ARGUMENTS', `URLDecoder: ${message}`, { httpStatus: 400 });
}
