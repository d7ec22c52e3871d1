// The web UI's files as the coordinator serves them: the pages, the style sheet and the scripts bundled
// from lib/ui/browser/*.ts, built once on first use into memory and looked up by exact request path. No
// request path is ever joined onto a directory, so no path can reach another file.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface UiAsset {
  body: Buffer;
  contentType: string;
  /** A page is revalidated on every load; a script or style sheet carries its content hash in its name. */
  immutable: boolean;
  etag: string;
}

interface Page {
  title: string;
  /** The page's own part (pages/<name>.main.html), set into pages/layout.html. */
  main: string;
  /** Its script (browser/<name>.ts). */
  script: string;
}

/** Pages by the file name they are served under. */
const PAGES: Record<string, Page> = {
  'index.html': { title: 'Cluster overview', main: 'overview', script: 'overview-page' },
  'query.html': { title: 'Query', main: 'query', script: 'query-page' },
  'nodes.html': { title: 'Nodes', main: 'nodes', script: 'nodes-page' },
  'groups.html': { title: 'Resource groups', main: 'groups', script: 'groups-page' },
  // The web UI's login form (ui-login.routes.ts) and Trino's page for a login refused over plain HTTP.
  'login.html': { title: 'Log in', main: 'login', script: 'login-page' },
  'disabled.html': { title: 'Login disabled', main: 'disabled', script: 'login-page' },
};

/** `{{name}}` markers replaced by their values; values are our own file names and fixed text. */
function fill(template: string, values: Record<string, string>): string {
  let out = template;
  for (const [name, value] of Object.entries(values)) out = out.split(`{{${name}}}`).join(value);
  return out;
}

/**
 * Where the sources are: beside this module when running from source (tsx), or the checkout's lib/ui
 * when running the compiled dist/lib/ui/ui-assets.js (tsc copies neither the pages nor the sheet).
 */
function sourceDirectory(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [here, resolve(here, '../../../lib/ui')]) {
    if (existsSync(join(candidate, 'pages', 'layout.html'))) return candidate;
  }
  throw new Error(`The web UI's sources are not found near ${here}`);
}

function etagOf(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

function asset(body: Buffer, contentType: string, immutable: boolean): UiAsset {
  return { body, contentType, immutable, etag: etagOf(body) };
}

/** `name-<hash>.ext`: a new build gets new names, so browsers may keep the old ones forever. */
function hashedName(name: string, ext: string, body: Buffer): string {
  return `${name}-${createHash('sha256').update(body).digest('hex').slice(0, 16)}.${ext}`;
}

/** Bundles each page's script with esbuild (tsx's own compiler, a dependency of ours), in memory. */
async function bundleScripts(directory: string): Promise<Map<string, Buffer>> {
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch (err) {
    throw new Error('esbuild is not installed: the web UI cannot build its scripts', { cause: err });
  }
  // Each script once, though pages may share one.
  const entryPoints = [...new Set(Object.values(PAGES).map(({ script }) => script))].map((script) => ({ in: join(directory, 'browser', `${script}.ts`), out: script }));
  const result = await esbuild.build({
    entryPoints,
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2020',
    platform: 'browser',
    minify: true,
    legalComments: 'none',
    outdir: '/ui-bundle',
    tsconfig: join(directory, 'browser', 'tsconfig.json'),
    logLevel: 'silent',
  });
  const scripts = new Map<string, Buffer>();
  for (const file of result.outputFiles) {
    const base = file.path.slice(file.path.lastIndexOf('/') + 1);
    scripts.set(base.slice(0, base.length - '.js'.length), Buffer.from(file.contents));
  }
  return scripts;
}

/** Every servable path (`/ui/`, `/ui/query.html`, `/ui/assets/...`) with its asset. */
export async function buildUiAssets(): Promise<Map<string, UiAsset>> {
  const directory = sourceDirectory();
  const assets = new Map<string, UiAsset>();
  const css = readFileSync(join(directory, 'pages', 'ui.css'));
  const cssName = hashedName('ui', 'css', css);
  assets.set(`/ui/assets/${cssName}`, asset(css, 'text/css; charset=utf-8', true));
  const scripts = await bundleScripts(directory);
  const layout = readFileSync(join(directory, 'pages', 'layout.html'), 'utf8');
  for (const [file, page] of Object.entries(PAGES)) {
    const code = scripts.get(page.script);
    if (!code) throw new Error(`The web UI's bundle lacks ${page.script}`);
    const scriptName = hashedName(page.script, 'js', code);
    assets.set(`/ui/assets/${scriptName}`, asset(code, 'text/javascript; charset=utf-8', true));
    const main = readFileSync(join(directory, 'pages', `${page.main}.main.html`), 'utf8');
    const html = fill(layout, { title: page.title, style: cssName, script: scriptName, main });
    assets.set(`/ui/${file}`, asset(Buffer.from(html, 'utf8'), 'text/html; charset=utf-8', false));
  }
  assets.set('/ui/', assets.get('/ui/index.html')!);
  return assets;
}

let built: Promise<Map<string, UiAsset>> | undefined;

/** The assets, built by the first caller; a failed build is tried again by the next request. */
export function uiAssets(): Promise<Map<string, UiAsset>> {
  built ??= buildUiAssets().catch((err: unknown) => {
    built = undefined;
    throw err;
  });
  return built;
}
