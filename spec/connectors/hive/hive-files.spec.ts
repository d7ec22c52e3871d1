// The listing of a table's files (hive-files.ts): what a data file is, and the directory stamp that lets a
// statement skip listing every file when nothing moved. The stamp must change for every change a reader
// has to see: a file added or removed at any partition level, a partition added, a directory swapped for
// a symlink.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loopTurnsDuring } from '../../support/loop-turns.js';
import { directoryStamp, filesUnchanged, listDataFiles, STAT_SLICE_FILES } from '../../../lib/connectors/hive/hive-files.js';

describe('hive connector: data files and the directory stamp', () => {
  let directory: string;
  let table: string;
  const partitions = ['a=1/b=x', 'a=1/b=y', 'a=2/b=x'];
  const touch = (path: string, text = 'x') => writeFileSync(path, text);
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'vivace-hive-files-'));
    table = join(directory, 't');
    for (const p of partitions) {
      mkdirSync(join(table, p), { recursive: true });
      touch(join(table, p, 'f1'));
    }
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('skips names starting with _ or . and subdirectories unless recursive', () => {
    touch(join(table, 'a=1', 'b=x', '_staging'));
    touch(join(table, 'a=1', 'b=x', '.hidden'));
    mkdirSync(join(table, 'a=1', 'b=x', 'sub'));
    touch(join(table, 'a=1', 'b=x', 'sub', 'f2'));
    expect(listDataFiles(join(table, 'a=1', 'b=x'), false).map((f) => f.path.slice(table.length))).to.deep.equal(['/a=1/b=x/f1']);
    expect(listDataFiles(join(table, 'a=1', 'b=x'), true).map((f) => f.path.slice(table.length)).sort()).to.deep.equal(['/a=1/b=x/f1', '/a=1/b=x/sub/f2']);
  });

  const changes: [string, () => void][] = [
    ['a file added to a leaf partition', () => touch(join(table, 'a=2', 'b=x', 'f2'))],
    ['a file removed', () => rmSync(join(table, 'a=1', 'b=y', 'f1'))],
    ['a file renamed over another', () => { touch(join(table, 'a=1', 'b=x', '.tmp'), 'new'); renameSync(join(table, 'a=1', 'b=x', '.tmp'), join(table, 'a=1', 'b=x', 'f1')); }],
    ['a leaf directory added under an existing level', () => mkdirSync(join(table, 'a=2', 'b=z'))],
    ['a leaf swapped for a symlink', () => { renameSync(join(table, 'a=1', 'b=y'), join(directory, 'elsewhere')); symlinkSync(join(directory, 'elsewhere'), join(table, 'a=1', 'b=y')); }],
    ['a first-level directory swapped for a symlink', () => { renameSync(join(table, 'a=2'), join(directory, 'a2')); symlinkSync(join(directory, 'a2'), join(table, 'a=2')); }],
  ];
  for (const [what, change] of changes) {
    it(`changes when ${what}`, () => {
      const before = directoryStamp(table, partitions);
      expect(directoryStamp(table, partitions), 'stable').to.equal(before);
      change();
      expect(directoryStamp(table, partitions)).to.not.equal(before);
    });
  }

  it('changes when the registered partitions change, and marks a missing directory', () => {
    const before = directoryStamp(table, partitions);
    expect(directoryStamp(table, partitions.slice(1))).to.not.equal(before);
    rmSync(join(table, 'a=2'), { recursive: true });
    expect(directoryStamp(table, partitions)).to.include('missing');
  });

  describe('filesUnchanged: a file rewritten in place under its old name', () => {
    const leaf = () => join(table, 'a=1', 'b=x');
    const rewrites: [string, (path: string) => void][] = [
      ['its size changes', (path) => touch(path, 'longer')],
      ['only its modification time changes', (path) => utimesSync(path, new Date(0), new Date(1_000_000))],
      ['it is removed', (path) => rmSync(path)],
      ['it becomes a directory', (path) => { rmSync(path); mkdirSync(path); }],
    ];
    for (const [what, rewrite] of rewrites) {
      it(`is false when ${what}`, async () => {
        const files = listDataFiles(leaf(), false);
        expect(await filesUnchanged(files), 'as listed').to.equal(true);
        rewrite(join(leaf(), 'f1'));
        expect(await filesUnchanged(files)).to.equal(false);
      });
    }

    it('checks a table of many files in slices, the event loop turning between them', async () => {
      const slices = 4;
      for (let i = 0; i < slices * STAT_SLICE_FILES; i++) touch(join(leaf(), `g${i}`));
      const files = listDataFiles(leaf(), false);
      expect(files).to.have.length(slices * STAT_SLICE_FILES + 1);
      const { turns, value: unchanged } = await loopTurnsDuring(() => filesUnchanged(files));
      expect(unchanged).to.equal(true);
      expect(turns, 'a turn at least every STAT_SLICE_FILES files').to.be.at.least(slices);
      touch(files.at(-1)!.path, 'rewritten, last of the listing');
      expect(await filesUnchanged(files)).to.equal(false);
    });
  });
});
