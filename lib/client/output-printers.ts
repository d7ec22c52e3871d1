// The CLI's output formats under Trino's names (OutputFormat): ALIGNED (AlignedTablePrinter), CSV and
// CSV_HEADER (opencsv: every field quoted, '"' doubled), TSV and TSV_HEADER (TsvPrinter's escapes), JSON
// (one object per row, numbers as the server wrote them, varbinary as hex pairs).
import { stringifyJsonText, type JsonValue } from './json-text.js';
import { ALIGNED_VALUES, DELIMITED_VALUES, formatValue, type ResultColumn } from './value-format.js';

export const OUTPUT_FORMATS = ['ALIGNED', 'CSV', 'CSV_HEADER', 'TSV', 'TSV_HEADER', 'JSON'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface OutputPrinter {
  printRows(rows: JsonValue[][]): void;
  finish(): void;
}

type Write = (text: string) => void;

export function createPrinter(format: OutputFormat, columns: ResultColumn[], write: Write): OutputPrinter {
  switch (format) {
    case 'ALIGNED':
      return new AlignedPrinter(columns, write);
    case 'CSV':
    case 'CSV_HEADER':
      return new DelimitedPrinter(columns, write, format === 'CSV_HEADER', csvLine);
    case 'TSV':
    case 'TSV_HEADER':
      return new DelimitedPrinter(columns, write, format === 'TSV_HEADER', tsvLine);
    case 'JSON':
      return new JsonLinesPrinter(columns, write);
  }
}

const NUMERIC_TYPES = new Set(['tinyint', 'smallint', 'integer', 'bigint', 'real', 'double', 'decimal']);

/** Rows are buffered and printed in batches; each batch is aligned on its own, as in Trino. */
const ALIGNED_BATCH_ROWS = 10_000;

class AlignedPrinter implements OutputPrinter {
  private buffered: string[][] = [];
  private headerDone = false;
  private rowCount = 0;
  private readonly numeric: boolean[];

  constructor(private readonly columns: ResultColumn[], private readonly write: Write) {
    this.numeric = columns.map((c) => NUMERIC_TYPES.has(c.typeSignature?.rawType ?? c.type));
  }

  printRows(rows: JsonValue[][]): void {
    for (const row of rows) {
      this.buffered.push(row.map((v, i) => formatValue(v, this.columns[i]?.typeSignature, ALIGNED_VALUES)));
      if (this.buffered.length >= ALIGNED_BATCH_ROWS) this.flush(false);
    }
  }

  finish(): void {
    this.flush(true);
    this.write(`(${this.rowCount} row${this.rowCount === 1 ? '' : 's'})\n`);
  }

  private flush(complete: boolean): void {
    const rows = this.buffered;
    this.buffered = [];
    this.rowCount += rows.length;
    const widths = this.columns.map((c) => Math.max(1, textWidth(c.name)));
    for (const row of rows) row.forEach((s, i) => (widths[i] = Math.max(widths[i] ?? 1, ...s.split('\n').map(textWidth))));
    let out = '';
    if (!this.headerDone) {
      this.headerDone = true;
      out += this.columns.map((c, i) => center(c.name, widths[i]!)).join('|') + '\n';
      out += widths.map((w) => '-'.repeat(w + 2)).join('+') + '\n';
    }
    for (const row of rows) {
      const cells = row.map((s) => s.split('\n'));
      const height = Math.max(1, ...cells.map((c) => c.length));
      for (let line = 0; line < height; line++) {
        out +=
          cells
            .map((lines, i) => {
              let cell = align(lines[line] ?? '', widths[i]!, this.numeric[i]!);
              // A '+' at the right edge marks a value continued on the next line.
              if ((!complete || this.rowCount > 1) && line + 1 < lines.length) cell = `${cell.slice(0, -1)}+`;
              return cell;
            })
            .join('|') + '\n';
      }
    }
    this.write(out);
  }
}

function center(s: string, width: number): string {
  const left = Math.floor((width - textWidth(s)) / 2);
  const right = width - left - textWidth(s);
  return `${' '.repeat(left + 1)}${s}${' '.repeat(right + 1)}`;
}

function align(s: string, width: number, right: boolean): string {
  const pad = ' '.repeat(width - textWidth(s) + 1);
  return right ? `${pad}${s} ` : ` ${s}${pad}`;
}

/** Columns a string takes in a terminal: wide (East Asian) characters take two, combining marks none. */
function textWidth(s: string): number {
  let n = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || (cp >= 0x300 && cp <= 0x36f) || cp === 0x200b) continue;
    n += isWide(cp) ? 2 : 1;
  }
  return n;
}

function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

class DelimitedPrinter implements OutputPrinter {
  private needHeader: boolean;

  constructor(
    private readonly columns: ResultColumn[],
    private readonly write: Write,
    header: boolean,
    private readonly line: (fields: string[]) => string,
  ) {
    this.needHeader = header;
  }

  printRows(rows: JsonValue[][]): void {
    let out = '';
    if (this.needHeader) {
      this.needHeader = false;
      out += this.line(this.columns.map((c) => c.name));
    }
    for (const row of rows) out += this.line(row.map((v, i) => formatValue(v, this.columns[i]?.typeSignature, DELIMITED_VALUES)));
    if (out !== '') this.write(out);
  }

  finish(): void {
    this.printRows([]);
  }
}

function csvLine(fields: string[]): string {
  return `${fields.map((f) => `"${f.replaceAll('"', '""')}"`).join(',')}\n`;
}

const TSV_ESCAPES: Record<string, string> = { '\0': '\\0', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\' };

function tsvLine(fields: string[]): string {
  return `${fields.map((f) => Array.from(f, (ch) => TSV_ESCAPES[ch] ?? ch).join('')).join('\t')}\n`;
}

class JsonLinesPrinter implements OutputPrinter {
  constructor(private readonly columns: ResultColumn[], private readonly write: Write) {}

  printRows(rows: JsonValue[][]): void {
    let out = '';
    for (const row of rows) {
      const members = row.map((v, i) => {
        const column = this.columns[i];
        const value = column?.typeSignature?.rawType === 'varbinary' && typeof v === 'string' ? formatValue(v, column.typeSignature, DELIMITED_VALUES) : v;
        return `${JSON.stringify(column?.name ?? `_col${i}`)}:${stringifyJsonText(value)}`;
      });
      out += `{${members.join(',')}}\n`;
    }
    if (out !== '') this.write(out);
  }

  finish(): void {}
}
