// A real terminal for the CLI specs: a private tmux server (its own socket, so nobody else's sessions are
// touched) running bash, driven with send-keys and read with capture-pane, polled until the expected
// text shows up or a deadline passes.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export class TmuxTerminal {
  private readonly socket = `vivace-cli-spec-${process.pid}-${randomBytes(4).toString('hex')}`;

  constructor(env: Record<string, string>, width = 120, height = 40) {
    // bash without rc files and a plain prompt, so the pane holds only what the CLI prints.
    this.tmux(['-f', '/dev/null', 'new-session', '-d', '-s', 'cli', '-x', String(width), '-y', String(height), 'bash --norc --noprofile'], {
      ...process.env,
      ...env,
      PS1: '$ ',
      TERM: 'xterm-256color',
    });
  }

  /** Keys as tmux names them: literal text, or 'Enter', 'C-c'. */
  send(...keys: string[]): void {
    this.tmux(['send-keys', '-t', 'cli', ...keys]);
  }

  /** Types a line of text (literally) and presses Enter. */
  line(text: string): void {
    // tmux reads an argument's trailing ';' as a command separator unless it is escaped.
    this.tmux(['send-keys', '-t', 'cli', '-l', text.endsWith(';') ? `${text.slice(0, -1)}\\;` : text]);
    this.tmux(['send-keys', '-t', 'cli', 'Enter']);
  }

  /** The pane's text with its scrollback, wrapped lines joined. */
  screen(): string {
    return this.tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', 'cli']);
  }

  /** Polls the pane until `test` holds, every 50 ms, up to `timeoutMs`; the screen then. */
  async waitFor(test: (screen: string) => boolean, what: string, timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`tmux: no ${what} within ${timeoutMs} ms; the screen:\n${screen}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Ends this spec's tmux server (only its own socket). */
  close(): void {
    try {
      this.tmux(['kill-server']);
    } catch {
      // already gone
    }
  }

  private tmux(args: string[], env?: NodeJS.ProcessEnv): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', ...(env ? { env } : {}) });
  }
}
