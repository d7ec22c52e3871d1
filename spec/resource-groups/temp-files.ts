// A throw-away directory per test (mocha hooks registered in the calling describe), and a write that gives
// each file a new modification time, so that a rewrite within the same millisecond is seen as a change.
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempFiles {
  /** this test's directory */
  readonly dir: string;
  write(name: string, text: string): string;
}

export function tempFiles(prefix: string): TempFiles {
  let dir = '';
  let tick = 0;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  return {
    get dir() {
      return dir;
    },
    write(name, text) {
      const path = join(dir, name);
      writeFileSync(path, text);
      tick += 10;
      const time = new Date(1_700_000_000_000 + tick * 1000);
      utimesSync(path, time, time);
      return path;
    },
  };
}
