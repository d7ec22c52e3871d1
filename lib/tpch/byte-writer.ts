import { writeSync } from 'node:fs';

/**
 * Buffered ASCII output for delimited rows: numbers and money are written as
 * digits straight into a byte buffer, so no per-row strings are created.
 * Flushes to a file descriptor when nearly full.
 */
export class ByteWriter {
  readonly buffer: Buffer;
  pos = 0;
  private readonly fd: number;
  private readonly digits = new Uint8Array(24);

  constructor(fd: number, capacity = 1 << 22) {
    this.fd = fd;
    this.buffer = Buffer.allocUnsafe(capacity);
  }

  /** Make room for at least `bytes` more bytes (call once per row with an upper bound). */
  reserve(bytes: number): void {
    if (this.pos + bytes > this.buffer.length) this.flush();
  }

  flush(): void {
    let written = 0;
    while (written < this.pos) written += writeSync(this.fd, this.buffer, written, this.pos - written);
    this.pos = 0;
  }

  byte(b: number): void {
    this.buffer[this.pos++] = b;
  }

  bytes(src: Uint8Array, begin = 0, end = src.length): void {
    const buf = this.buffer;
    let pos = this.pos;
    for (let i = begin; i < end; i++) buf[pos++] = src[i];
    this.pos = pos;
  }

  ascii(text: string): void {
    const buf = this.buffer;
    let pos = this.pos;
    for (let i = 0; i < text.length; i++) buf[pos++] = text.charCodeAt(i);
    this.pos = pos;
  }

  /** A safe integer in decimal. */
  int(value: number): void {
    let n = value;
    if (n < 0) {
      this.buffer[this.pos++] = 0x2d;
      n = -n;
    }
    const digits = this.digits;
    let count = 0;
    do {
      const q = Math.floor(n / 10);
      digits[count++] = 0x30 + (n - q * 10);
      n = q;
    } while (n > 0);
    while (count > 0) this.buffer[this.pos++] = digits[--count];
  }

  /** An integer left-padded with zeros to `width` digits (non-negative values). */
  padded(value: number, width: number): void {
    if (value >= 10 ** width) {
      this.int(value); // like printf's %0Nd: wider values print in full
      return;
    }
    let n = value;
    const end = this.pos + width;
    for (let i = end - 1; i >= this.pos; i--) {
      const q = Math.floor(n / 10);
      this.buffer[i] = 0x30 + (n - q * 10);
      n = q;
    }
    this.pos = end;
  }

  /** Cents as a decimal with two places, e.g. -1234 -> -12.34. */
  money(cents: number): void {
    let n = cents;
    if (n < 0) {
      this.buffer[this.pos++] = 0x2d;
      n = -n;
    }
    const whole = Math.floor(n / 100);
    this.int(whole);
    this.buffer[this.pos++] = 0x2e;
    this.padded(n - whole * 100, 2);
  }
}
