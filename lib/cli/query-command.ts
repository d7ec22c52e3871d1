// `vivace query`: the command-line client, after Trino's CLI. With --execute or --file it runs the
// statements and exits (batch: CSV unless --output-format says otherwise, as Trino); otherwise it is an
// interactive prompt (`vivace>`, ALIGNED tables, history, statements ending in ';'). A live progress line
// goes to stderr when stderr is a terminal. Ctrl-C cancels the running query; a second one exits.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { Command, CommanderError, Option } from 'commander';
import { ClientSession } from '../client/client-session.js';
import { failureText } from '../client/failure-text.js';
import { createPrinter, OUTPUT_FORMATS, type OutputFormat, type OutputPrinter } from '../client/output-printers.js';
import { passwordFromEnvironment, promptPassword } from '../client/password-prompt.js';
import { finalLines } from '../client/progress-line.js';
import { parseSessionOption } from '../client/session-option.js';
import { isBlank, splitStatements } from '../client/statement-splitter.js';
import { DEFAULT_ENCODING, StatementClient, type Authentication, type RunningQuery } from '../client/statement-client.js';
import { StatusDisplay } from '../client/status-display.js';

export const QUERY_USAGE =
  'usage: vivace query [--server URL] [--user USER] [--password] [--access-token TOKEN] [--catalog CATALOG] [--schema SCHEMA]\n' +
  '                    [--session NAME=VALUE]... [--execute SQL | --file FILE] [--output-format FORMAT] [--ignore-errors] [--progress] [--truststore-path PEM]\n' +
  '                    [--encoding json+zstd,json+lz4,json|none]';

/** `vivace> `, or `vivace:tiny> ` once a schema is set (Trino's CLI shows the schema the same way). */
function prompt(client: StatementClient): string {
  const schema = client.session.schema;
  return schema === undefined ? 'vivace> ' : `vivace:${schema}> `;
}

/** As wide as the prompt, ending in `-> `. */
function continuation(client: StatementClient): string {
  return `${' '.repeat(Math.max(0, prompt(client).length - 3))}-> `;
}
const HISTORY_SIZE = 1000;

interface QueryOptions {
  server: string;
  user: string;
  password?: boolean;
  accessToken?: string;
  catalog?: string;
  schema?: string;
  session: string[];
  execute?: string;
  file?: string;
  outputFormat?: string;
  ignoreErrors?: boolean;
  progress?: boolean;
  truststorePath?: string;
  encoding: string;
}

class UsageError extends Error {}

/** What one run of the command shares across statements. */
interface Context {
  client: StatementClient;
  format: OutputFormat;
  progress: boolean;
  current: RunningQuery | undefined;
  cancelling: boolean;
}

export async function runQuery(args: string[]): Promise<number> {
  let options: QueryOptions;
  try {
    options = parseOptions(args);
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    throw err;
  }
  let client: StatementClient;
  try {
    client = await createClient(options);
  } catch (err) {
    process.stderr.write(`vivace query: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  // `vivace query ... | head`: a closed pipe ends the output, not the process with a stack trace.
  process.stdout.on('error', () => process.exit(0));
  // No --execute or --file and stdin not a terminal: the piped statements run as a batch.
  const interactive = options.execute === undefined && options.file === undefined && process.stdin.isTTY === true;
  const format = options.outputFormat === undefined ? (interactive ? 'ALIGNED' : 'CSV') : (options.outputFormat as OutputFormat);
  // As Trino's CLI: the prompt always shows progress, a batch only with --progress; never off a terminal.
  const progress = process.stderr.isTTY === true && (interactive || options.progress === true);
  const ctx: Context = { client, format, progress, current: undefined, cancelling: false };
  if (!interactive) {
    let text: string;
    try {
      text = options.execute ?? (options.file === undefined ? await readAll(process.stdin) : readFileSync(options.file, 'utf8'));
    } catch (err) {
      process.stderr.write(`vivace query: cannot read ${options.file ?? 'stdin'}: ${err instanceof Error ? err.message : String(err)}\n`);
      return 2;
    }
    return runBatch(ctx, text, options.ignoreErrors === true);
  }
  return runInteractive(ctx);
}

function parseOptions(args: string[]): QueryOptions {
  const program = new Command('vivace query')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) })
    .description('Run SQL on a Vivace (or Trino) server')
    .option('--server <url>', 'server address', 'http://127.0.0.1:8080')
    .option('--user <user>', 'user name', defaultUser())
    .option('--password', 'prompt for a password (Basic authentication, HTTPS only)')
    .option('--access-token <token>', 'bearer token (JWT authentication, HTTPS only)')
    .option('--catalog <catalog>', 'default catalog')
    .option('--schema <schema>', 'default schema')
    .option('--session <name=value>', 'session property (repeatable)', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--execute <sql>', 'run the statements and exit')
    .option('-f, --file <file>', 'run the statements of a file and exit')
    .addOption(new Option('--output-format <format>', 'ALIGNED in the prompt, CSV in batch').choices(OUTPUT_FORMATS).argParser(upperFormat))
    .option('--ignore-errors', 'in batch, go on after a failed statement')
    .option('--progress', 'in batch, show the progress of each query on a terminal stderr')
    .option('--truststore-path <pem>', 'PEM certificates to trust for HTTPS')
    .option('--encoding <list>', `spooling protocol encodings to ask for, in order ('none': the direct protocol)`, DEFAULT_ENCODING)
    .allowExcessArguments(false);
  program.parse(args, { from: 'user' });
  return program.opts<QueryOptions>();
}

function upperFormat(value: string): string {
  const upper = value.toUpperCase();
  if (!(OUTPUT_FORMATS as readonly string[]).includes(upper)) {
    throw new CommanderError(2, 'commander.invalidArgument', `--output-format must be one of ${OUTPUT_FORMATS.join(', ')}`);
  }
  return upper;
}

function defaultUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'vivace';
  }
}

async function createClient(options: QueryOptions): Promise<StatementClient> {
  let url: URL;
  try {
    url = new URL(options.server);
  } catch {
    throw new UsageError(`invalid --server URL: ${options.server}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--server must be an http or https URL: ${options.server}`);
  if (options.schema !== undefined && options.catalog === undefined) throw new UsageError('--schema needs --catalog');
  const properties = options.session.map(parseSessionOption);
  let authentication: Authentication = { kind: 'none' };
  if (options.password && options.accessToken !== undefined) throw new UsageError('--password and --access-token cannot both be used');
  // As Trino's CLI: credentials never travel in clear text.
  if ((options.password || options.accessToken !== undefined) && url.protocol !== 'https:') {
    throw new UsageError('authentication with a password or an access token needs an https --server');
  }
  if (options.password) {
    const password = passwordFromEnvironment(process.env) ?? (await promptPassword(process.stdin, process.stderr));
    authentication = { kind: 'basic', user: options.user, password };
  } else if (options.accessToken !== undefined) {
    authentication = { kind: 'bearer', token: options.accessToken };
  }
  const session = new ClientSession({
    user: options.user,
    ...(options.catalog === undefined ? {} : { catalog: options.catalog }),
    ...(options.schema === undefined ? {} : { schema: options.schema }),
    properties,
  });
  return new StatementClient({
    server: url.toString(),
    session,
    authentication,
    ...(options.truststorePath === undefined ? {} : { truststorePath: options.truststorePath }),
    ...(options.encoding === 'none' ? {} : { encoding: options.encoding }),
  });
}

async function runBatch(ctx: Context, text: string, ignoreErrors: boolean): Promise<number> {
  // Ctrl-C in batch: cancel the running statement (and stop); a second Ctrl-C exits at once.
  process.on('SIGINT', () => {
    if (ctx.current === undefined || ctx.cancelling) process.exit(130);
    ctx.cancelling = true;
    void ctx.current.cancel();
  });
  const { statements, rest } = splitStatements(text);
  // As Trino's CLI, a last statement without ';' runs too.
  if (!isBlank(rest)) statements.push(rest.trim());
  let failed = false;
  for (const sql of statements) {
    const result = await runStatement(ctx, sql);
    if (result === 'cancelled') return 130;
    if (result === 'failed') {
      failed = true;
      if (!ignoreErrors) return 1;
    }
  }
  return failed ? 1 : 0;
}

async function runStatement(ctx: Context, sql: string): Promise<'ok' | 'failed' | 'cancelled'> {
  const write = (s: string) => process.stdout.write(s);
  let printer: OutputPrinter | undefined;
  let display: StatusDisplay | undefined;
  const query = ctx.client.execute(sql, {
    onRows: (rows) => {
      // An INSERT's count row is not a result to print: its update line says it.
      if (query.status?.updateType !== undefined) return;
      display?.stop();
      printer ??= createPrinter(ctx.format, query.status?.columns ?? [], write);
      printer.printRows(rows);
    },
  });
  ctx.current = query;
  ctx.cancelling = false;
  if (ctx.progress) {
    display = new StatusDisplay(process.stderr, () => query.status);
    display.start();
  }
  let outcome;
  try {
    outcome = await query.done;
  } catch (err) {
    display?.stop();
    process.stderr.write(`Error running command: ${err instanceof Error ? err.message : String(err)}\n`);
    return 'failed';
  } finally {
    ctx.current = undefined;
  }
  display?.stop();
  if (outcome.cancelled) {
    process.stderr.write('Query aborted by user\n');
    return 'cancelled';
  }
  const final = outcome.final;
  if (final.error !== undefined) {
    process.stderr.write(failureText(final.id, final.error, sql));
    return 'failed';
  }
  if (final.updateType !== undefined) {
    const count = final.updateCount === undefined ? '' : `: ${final.updateCount} row${final.updateCount === 1 ? '' : 's'}`;
    process.stderr.write(`${final.updateType}${count}\n`);
  } else if (outcome.columns !== undefined) {
    printer ??= createPrinter(ctx.format, outcome.columns, write);
    printer.finish();
  }
  if (ctx.progress) {
    const lines = finalLines(final);
    if (lines.length > 0) process.stderr.write(`${lines.join('\n')}\n`);
  }
  return 'ok';
}

function historyFile(): string {
  return process.env.VIVACE_HISTORY_FILE ?? join(homedir(), '.vivace_history');
}

function loadHistory(): string[] {
  try {
    // The file is oldest first; readline keeps newest first.
    return readFileSync(historyFile(), 'utf8').split('\n').filter((l) => l !== '').slice(-HISTORY_SIZE).reverse();
  } catch {
    return [];
  }
}

function saveHistory(rl: Interface): void {
  const history = (rl as Interface & { history?: string[] }).history ?? [];
  try {
    writeFileSync(historyFile(), `${[...history].reverse().join('\n')}\n`, { mode: 0o600 });
    chmodSync(historyFile(), 0o600);
  } catch {
    // A read-only home: the session still works without saved history.
  }
}

function runInteractive(ctx: Context): Promise<number> {
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    prompt: prompt(ctx.client),
    terminal: true,
    history: loadHistory(),
    historySize: HISTORY_SIZE,
    removeHistoryDuplicates: true,
  });
  let buffer = '';
  let queue = Promise.resolve();
  return new Promise((resolve) => {
    let finished = false;
    const finish = (code: number) => {
      if (finished) return;
      finished = true;
      saveHistory(rl);
      resolve(code);
    };
    rl.on('SIGINT', () => {
      if (ctx.current !== undefined) {
        // First Ctrl-C: cancel the query (back to the prompt when it ends); a second one exits.
        if (ctx.cancelling) {
          void ctx.current.cancel();
          rl.close();
          finish(130);
          return;
        }
        ctx.cancelling = true;
        void ctx.current.cancel();
        return;
      }
      if (buffer !== '' || rl.line !== '') {
        // At the prompt, Ctrl-C drops what was typed (Trino's CLI does the same).
        buffer = '';
        process.stdout.write('^C\n');
        (rl as Interface & { line: string }).line = '';
        rl.setPrompt(prompt(ctx.client));
        rl.prompt();
        return;
      }
      rl.close();
    });
    rl.on('line', (line) => {
      queue = queue.then(() => handleLine(line));
    });
    rl.on('close', () => {
      process.stdout.write('\n');
      void queue.then(() => finish(0));
    });

    const handleLine = async (line: string) => {
      if (finished) return;
      if (buffer === '' && isQuit(line)) {
        rl.close();
        return;
      }
      buffer += `${line}\n`;
      const { statements, rest } = splitStatements(buffer);
      buffer = isBlank(rest) ? '' : rest;
      for (const sql of statements) {
        await runStatement(ctx, sql);
        if (finished) return;
      }
      rl.setPrompt(buffer === '' ? prompt(ctx.client) : continuation(ctx.client));
      rl.prompt();
    };
    rl.prompt();
  });
}

function isQuit(line: string): boolean {
  let word = line.trim().toLowerCase();
  if (word.endsWith(';')) word = word.slice(0, -1).trim();
  return word === 'quit' || word === 'exit';
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}
