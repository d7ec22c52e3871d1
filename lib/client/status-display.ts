// Draws the progress lines on a terminal stream, redrawn in place twice a second and erased when the
// query ends or its rows start. Only used when stderr is a TTY.
import type { QueryStatus } from './statement-client.js';
import { progressLines } from './progress-line.js';

export interface TerminalStream {
  write(text: string): unknown;
  columns?: number;
}

const REDRAW_MS = 500;

export class StatusDisplay {
  private drawn = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly started: number;

  constructor(
    private readonly out: TerminalStream,
    private readonly status: () => QueryStatus | undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.started = now();
  }

  start(): void {
    this.timer = setInterval(() => this.draw(), REDRAW_MS);
    this.timer.unref();
  }

  draw(): void {
    const status = this.status();
    if (status === undefined) return;
    const width = this.out.columns ?? 80;
    // Each line cut to the width so that a wrapped line cannot break the cursor arithmetic.
    const lines = progressLines(status, this.now() - this.started, width).map((l) => l.slice(0, Math.max(1, width - 1)));
    this.out.write(this.erasure() + lines.join('\n'));
    this.drawn = lines.length;
  }

  /** Erase what was drawn and stop redrawing. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.drawn > 0) this.out.write(this.erasure());
    this.drawn = 0;
  }

  /** Cursor back to the first drawn line, each line cleared. */
  private erasure(): string {
    if (this.drawn === 0) return '';
    return '\r\x1b[2K' + '\x1b[1A\x1b[2K'.repeat(this.drawn - 1);
  }
}
