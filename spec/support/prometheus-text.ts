// Reads the Prometheus text exposition format (version 0.0.4) into samples, by hand: the metric name,
// then `{name="value",...}` with \\, \" and \n escapes in values, then the value.
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** `# TYPE` lines: metric name -> type. */
  types: Map<string, string>;
}

function parseValue(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  // Go's ParseFloat, which Prometheus uses, takes NaN in any case (prom-client writes "Nan").
  if (text.toLowerCase() === 'nan') return NaN;
  const value = Number(text);
  if (text === '' || Number.isNaN(value)) throw new Error(`not a sample value: ${text}`);
  return value;
}

/** One sample line. */
function parseSample(line: string): Sample {
  let i = 0;
  while (i < line.length && line[i] !== '{' && line[i] !== ' ') i++;
  const name = line.slice(0, i);
  const labels: Record<string, string> = {};
  if (line[i] === '{') {
    i++;
    while (line[i] !== '}') {
      const eq = line.indexOf('=', i);
      if (eq < 0 || line[eq + 1] !== '"') throw new Error(`bad label in: ${line}`);
      const key = line.slice(i, eq);
      let value = '';
      let j = eq + 2;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\') {
          j++;
          value += line[j] === 'n' ? '\n' : line[j];
        } else value += line[j];
      }
      if (j >= line.length) throw new Error(`unterminated label value in: ${line}`);
      labels[key] = value;
      i = j + 1;
      if (line[i] === ',') i++;
      else if (line[i] !== '}') throw new Error(`bad label separator in: ${line}`);
    }
    i++;
  }
  if (line[i] !== ' ') throw new Error(`no value in: ${line}`);
  const rest = line.slice(i + 1).split(' ');
  return { name, labels, value: parseValue(rest[0]!) };
}

export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice('# TYPE '.length).split(' ');
      types.set(name!, type!);
    } else if (!line.startsWith('#')) samples.push(parseSample(line));
  }
  return { samples, types };
}

/** The value of the sample `name` whose labels include `labels` (0 when there is none, as a counter not yet touched). */
export function sampleValue(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  const found = exposition.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return found.reduce((sum, s) => sum + s.value, 0);
}
