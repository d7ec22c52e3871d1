// tpch.tiny generated once per test run into a temporary directory, for specs that only read it (stage
// and part planning against a real manifest); removed when the process exits.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSchema, type TpchManifest } from '../../lib/connectors/tpch/tpch-generation.js';
import { tpchSchema } from '../../lib/connectors/tpch/tpch-schemas.js';

let generated: Promise<{ directory: string; manifest: TpchManifest }> | undefined;

/** The directory holding `tiny/` and its manifest; callers must not write into it. */
export function generatedTiny(): Promise<{ directory: string; manifest: TpchManifest }> {
  generated ??= (async () => {
    const directory = mkdtempSync(join(tmpdir(), 'vivace-spec-tiny-'));
    process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
    const manifest = await generateSchema({ directory, schema: tpchSchema('tiny')!, freeDiskBytes: async () => 1e12, log: () => {} });
    return { directory, manifest };
  })();
  return generated;
}
