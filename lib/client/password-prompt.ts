// Reads a password from the terminal without echoing it (Trino's CLI: System.console().readPassword). With
// no terminal, the VIVACE_PASSWORD or TRINO_PASSWORD environment variable is the password, as Trino's CLI
// takes TRINO_PASSWORD.

export interface PasswordInput {
  isTTY?: boolean;
  setRawMode?(raw: boolean): unknown;
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

export class PasswordPromptError extends Error {}

/** Longest password accepted from the keyboard: far beyond any real one, short of a paste gone wrong. */
const MAX_PASSWORD_CHARS = 4096;

export function passwordFromEnvironment(env: NodeJS.ProcessEnv): string | undefined {
  return env.VIVACE_PASSWORD ?? env.TRINO_PASSWORD;
}

export function promptPassword(input: PasswordInput, output: { write(s: string): unknown }, prompt = 'Password: '): Promise<string> {
  if (!input.isTTY || input.setRawMode === undefined) {
    return Promise.reject(new PasswordPromptError('--password needs a terminal to prompt on, or the VIVACE_PASSWORD environment variable'));
  }
  output.write(prompt);
  input.setRawMode(true);
  input.resume();
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (err?: Error) => {
      input.off('data', onData);
      input.setRawMode?.(false);
      input.pause();
      output.write('\n');
      if (err) reject(err);
      else resolve(typed);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString()) {
        if (ch === '\r' || ch === '\n' || ch === '\x04') return done();
        if (ch === '\x03') return done(new PasswordPromptError('Password entry interrupted'));
        if (ch === '\x7f' || ch === '\b') typed = Array.from(typed).slice(0, -1).join('');
        else if (ch >= ' ') typed += ch;
        if (typed.length > MAX_PASSWORD_CHARS) return done(new PasswordPromptError('Password is too long'));
      }
    };
    input.on('data', onData);
  });
}
