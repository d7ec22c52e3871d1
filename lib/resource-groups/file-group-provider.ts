// Trino's file group provider, for the resource-group selectors' `userGroup` (Trino's FileGroupProvider and
// GroupProviderManager): etc/group-provider.properties beside the config file (or in etc/ beside it):
//   group-provider.name=file
//   file.group-file=/path/to/group.txt     (must exist at start)
//   file.refresh-period=5s                 (Trino's default 5s; at least 1ms)
//   group-provider.group-case=keep         (keep, upper or lower, any case; GroupProviderManager's Case)
// The group file has a line per group, `group:user1,user2`: blanks around each part are dropped, empty
// users are skipped, a blank line or one starting with `#` is ignored, and a line without `:` is an error
// ("Error in group file line N: Expected two parts for group and users", Trino's message). A user's groups
// are those of every line naming the user.
//
// Read at start (a broken file stops the start). Then, at most once per refresh period, when asked for a
// user's groups, the file is looked at and read again when it changed. Where Trino fails the queries that
// ask while the file is broken (its memoized loader throws), this keeps the last good file and logs why.
// The file is configuration, still not trusted: one pass over its characters, no regular expression, and a
// bound on its size.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { defaultLogger, type Logger } from '../log/logger.js';
import { durationMillis } from '../protocol/duration.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { fileStamp, readPropertiesFile } from './resource-groups-file.js';

export interface GroupProviderSettings {
  propertiesFile: string;
  groupFile: string;
  refreshPeriodMs: number;
  /** group-provider.group-case: how each group's name is given (absent: as the file spells it) */
  groupCase?: GroupCase;
}

/** Trino's io.trino.util.Case: a group name kept, or upper- or lower-cased (Locale.ROOT). */
export type GroupCase = 'keep' | 'upper' | 'lower';
const GROUP_CASES: readonly GroupCase[] = ['keep', 'lower', 'upper'];

function transformCase(groupCase: GroupCase | undefined, name: string): string {
  if (groupCase === 'upper') return name.toUpperCase();
  return groupCase === 'lower' ? name.toLowerCase() : name;
}

/** FileGroupConfig's file.refresh-period default. */
export const DEFAULT_GROUP_REFRESH_MS = 5000;
/** The largest group file read (a bound of ours; Trino reads any size into memory). */
export const MAX_GROUP_FILE_BYTES = 64 << 20;

const PROPERTIES = ['group-provider.name', 'group-provider.group-case', 'file.group-file', 'file.refresh-period'];

function invalid(message: string): VivaceError {
  return new VivaceError('CONFIGURATION_INVALID', message);
}

/** The group-provider.properties beside a config file (or in etc/ beside it), if there is one. */
export function groupProviderPropertiesPath(configFile: string | undefined): string | undefined {
  if (configFile === undefined) return undefined;
  const beside = dirname(resolve(configFile));
  return [join(beside, 'group-provider.properties'), join(beside, 'etc', 'group-provider.properties')].find((path) => existsSync(path));
}

/** The settings of a group-provider.properties file; a missing, unknown or bad property is a start error. */
export function readGroupProviderProperties(path: string): GroupProviderSettings {
  const values = readPropertiesFile(path, PROPERTIES);
  const name = values.get('group-provider.name')?.value.trim();
  if (!name) throw invalid(`Group provider configuration ${resolve(path)} does not contain group-provider.name`);
  // GroupProviderManager reads the case before it looks the provider up, comparing without regard to case.
  const caseEntry = values.get('group-provider.group-case');
  let groupCase: GroupCase | undefined;
  if (caseEntry) {
    const wanted = caseEntry.value.trim().toLowerCase();
    groupCase = GROUP_CASES.find((c) => c === wanted);
    if (!groupCase) throw invalid(`${path}:${caseEntry.line}: Group provider configuration ${resolve(path)} does not contain valid group-provider.group-case. Expected one of: [KEEP, LOWER, UPPER]`);
  }
  if (name !== 'file') throw invalid(`${path}:${values.get('group-provider.name')!.line}: Group provider ${name} is not registered`);
  const file = values.get('file.group-file')?.value.trim();
  if (!file) throw invalid(`${path}: Invalid configuration property file.group-file: must not be null`);
  const groupFile = resolve(file);
  if (!existsSync(groupFile)) throw invalid(`${path}:${values.get('file.group-file')!.line}: Invalid configuration property file.group-file: file does not exist: ${groupFile}`);
  const period = values.get('file.refresh-period');
  let refreshPeriodMs = DEFAULT_GROUP_REFRESH_MS;
  if (period) {
    const ms = durationMillis(period.value.trim());
    if (ms === undefined || !(ms >= 1)) throw invalid(`${path}:${period.line}: Invalid configuration property file.refresh-period: ${period.value.trim()} (at least 1ms)`);
    refreshPeriodMs = ms;
  }
  return { propertiesFile: path, groupFile, refreshPeriodMs, ...(groupCase === undefined || groupCase === 'keep' ? {} : { groupCase }) };
}

/** Java's String.trim: drops characters up to U+0020 at both ends. */
function trimJava(s: string, from = 0, to = s.length): string {
  let start = from;
  let end = to;
  while (start < end && s.charCodeAt(start) <= 0x20) start++;
  while (end > start && s.charCodeAt(end - 1) <= 0x20) end--;
  return s.slice(start, end);
}

/** The end of the line that starts at `i` (before its \n, \r\n or \r, as Files.readAllLines splits). */
function lineEnd(text: string, i: number): number {
  let j = i;
  while (j < text.length && text[j] !== '\n' && text[j] !== '\r') j++;
  return j;
}

/**
 * User -> groups of a group file's text; a line without `:` throws Trino's error naming it. `groupCase`:
 * each group's name as group-provider.group-case gives it, two names that become one counted once (Trino
 * transforms the provider's set into a set).
 */
export function parseGroupFile(text: string, groupCase?: GroupCase): Map<string, string[]> {
  const groupsOf = new Map<string, Set<string>>();
  let lineNumber = 0;
  let i = 0;
  while (i <= text.length) {
    const end = lineEnd(text, i);
    lineNumber++;
    const line = trimJava(text, i, end);
    i = end + (text[end] === '\r' && text[end + 1] === '\n' ? 2 : 1);
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon < 0) throw invalid(`Error in group file line ${lineNumber}: Expected two parts for group and users`);
    const group = transformCase(groupCase, line.slice(0, colon).trim());
    for (const part of line.slice(colon + 1).split(',')) {
      const user = part.trim();
      if (user === '') continue;
      let groups = groupsOf.get(user);
      if (!groups) groupsOf.set(user, (groups = new Set()));
      groups.add(group);
    }
  }
  return new Map([...groupsOf].map(([user, groups]) => [user, [...groups]]));
}

export interface FileGroupProviderOptions {
  /** epoch milliseconds (a spec's simulated clock) */
  now?: () => number;
  logger?: Logger;
}

const NO_GROUPS: readonly string[] = Object.freeze([]);

export class FileGroupProvider {
  private groups: Map<string, string[]>;
  private stamp: string;
  private checkedAt: number;
  private lastProblem: string | undefined;
  private readonly now: () => number;

  /** Reads the file at once: a broken one throws CONFIGURATION_INVALID. */
  constructor(
    readonly settings: GroupProviderSettings,
    private readonly options: FileGroupProviderOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.stamp = fileStamp(settings.groupFile);
    this.groups = this.read();
    this.checkedAt = this.now();
  }

  private read(): Map<string, string[]> {
    let text: string;
    try {
      const size = statSync(this.settings.groupFile).size;
      if (size > MAX_GROUP_FILE_BYTES) throw new Error(`${size} bytes, more than ${MAX_GROUP_FILE_BYTES}`);
      text = readFileSync(this.settings.groupFile, 'utf8');
    } catch (err) {
      throw new VivaceError('CONFIGURATION_UNAVAILABLE', `Failed to read group file: ${this.settings.groupFile}: ${(err as Error).message}`);
    }
    return parseGroupFile(text, this.settings.groupCase);
  }

  /** The user's groups (Trino's GroupProvider.getGroups): none for a user no line names. */
  groupsOf(user: string): readonly string[] {
    this.refresh();
    return this.groups.get(user) ?? NO_GROUPS;
  }

  /** Once a refresh period has passed: re-reads the file when it changed; a broken one keeps the last good groups. */
  private refresh(): void {
    const now = this.now();
    if (now - this.checkedAt < this.settings.refreshPeriodMs) return;
    this.checkedAt = now;
    const current = fileStamp(this.settings.groupFile);
    if (current === this.stamp) return;
    try {
      this.groups = this.read();
      this.stamp = current;
      this.lastProblem = undefined;
    } catch (err) {
      const problem = VivaceError.from(err).message;
      if (problem !== this.lastProblem) {
        this.lastProblem = problem;
        (this.options.logger ?? defaultLogger()).warn({ component: 'group-provider', event: 'group_file_invalid', path: this.settings.groupFile, message: `${problem}; the last good group file stays in force` });
      }
    }
  }
}
