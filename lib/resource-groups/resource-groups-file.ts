// etc/resource-groups.properties (beside config.properties, as Trino's etc/) and the JSON file it names:
//   resource-groups.configuration-manager=file
//   resource-groups.config-file=etc/resource-groups.json   (absolute, or relative to the working directory, as Trino's Path.of)
//   resource-groups.refresh-interval=1s                     (how often the file is checked for changes)
// Read at start, where a broken file stops the start with its path, line and reason. Then checked every
// refresh interval: a changed file that reads well replaces the configuration; a broken one keeps the last
// good configuration, and the reason is logged (once per problem).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { defaultLogger, type Logger } from '../log/logger.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { parsePropertiesText, PropertiesSyntaxError, type PropertyEntry } from '../connectors/properties-text.js';
import { parseResourceGroupsConfig, type ResourceGroupsConfig } from './resource-groups-config.js';
import { durationMillis } from '../protocol/duration.js';

export interface ResourceGroupsSettings {
  /** the properties file these came from */
  propertiesFile: string;
  configFile: string;
  refreshIntervalMs: number;
}

/** resource-groups.refresh-interval's default (that of Trino's database manager; the file manager has none). */
export const DEFAULT_REFRESH_INTERVAL_MS = 1000;

/** The resource-groups.properties beside a config file (or in etc/ beside it), if there is one. */
export function resourceGroupsPropertiesPath(configFile: string | undefined): string | undefined {
  if (configFile === undefined) return undefined;
  const beside = dirname(resolve(configFile));
  return [join(beside, 'resource-groups.properties'), join(beside, 'etc', 'resource-groups.properties')].find((path) => existsSync(path));
}

function invalid(message: string): VivaceError {
  return new VivaceError('CONFIGURATION_INVALID', message);
}

/**
 * The entries of a plugin's .properties file by key; an unreadable file, a syntax error or a property not in
 * `known` is CONFIGURATION_INVALID naming the file and line.
 */
export function readPropertiesFile(path: string, known: readonly string[]): Map<string, PropertyEntry> {
  let entries;
  try {
    entries = parsePropertiesText(readFileSync(path, 'utf8'));
  } catch (err) {
    if (err instanceof PropertiesSyntaxError) throw invalid(`${path}:${err.line}: ${err.message}`);
    throw invalid(`${path}: cannot be read: ${(err as Error).message}`);
  }
  for (const entry of entries) {
    if (!known.includes(entry.key)) throw invalid(`${path}:${entry.line}: Configuration property '${entry.key}' was not used`);
  }
  return new Map(entries.map((e) => [e.key, e]));
}

/** The settings of a resource-groups.properties file; an unknown or missing property is a start error naming its line. */
export function readResourceGroupsProperties(path: string): ResourceGroupsSettings {
  const values = readPropertiesFile(path, ['resource-groups.configuration-manager', 'resource-groups.config-file', 'resource-groups.refresh-interval']);
  const manager = values.get('resource-groups.configuration-manager');
  if (!manager) throw invalid(`${path}: Resource group configuration manager is not specified (resource-groups.configuration-manager)`);
  if (manager.value.trim() !== 'file') throw invalid(`${path}:${manager.line}: Resource group configuration manager '${manager.value.trim()}' is not registered`);
  const file = values.get('resource-groups.config-file');
  if (!file || file.value.trim() === '') throw invalid(`${path}: Invalid configuration property resource-groups.config-file: must not be null`);
  const interval = values.get('resource-groups.refresh-interval');
  let refreshIntervalMs = DEFAULT_REFRESH_INTERVAL_MS;
  if (interval) {
    const ms = durationMillis(interval.value.trim());
    if (ms === undefined || !(ms > 0)) throw invalid(`${path}:${interval.line}: Invalid configuration property resource-groups.refresh-interval: ${interval.value.trim()}`);
    refreshIntervalMs = ms;
  }
  return { propertiesFile: path, configFile: resolve(file.value.trim()), refreshIntervalMs };
}

/** What the file looked like when last read: a change of either is a change of the file. */
export function fileStamp(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.mtimeMs}:${stat.size}`;
  } catch {
    return 'missing';
  }
}

export interface ResourceGroupsFileOptions {
  /** told each new good configuration */
  onChange: (config: ResourceGroupsConfig) => void;
  logger?: Logger;
}

export class ResourceGroupsFile {
  private config: ResourceGroupsConfig;
  private stamp: string;
  private lastProblem: string | undefined;
  private timer: NodeJS.Timeout | undefined;

  /** Reads the file at once: a broken one throws CONFIGURATION_INVALID with its path, line and reason. */
  constructor(
    readonly settings: ResourceGroupsSettings,
    private readonly options: ResourceGroupsFileOptions,
  ) {
    this.stamp = fileStamp(settings.configFile);
    this.config = this.read();
  }

  get current(): ResourceGroupsConfig {
    return this.config;
  }

  private read(): ResourceGroupsConfig {
    let text: string;
    try {
      text = readFileSync(this.settings.configFile, 'utf8');
    } catch (err) {
      throw invalid(`Invalid resource groups file ${this.settings.configFile}: cannot be read: ${(err as Error).message}`);
    }
    return parseResourceGroupsConfig(text, this.settings.configFile);
  }

  /** Re-reads the file when it changed since the last look; returns whether a new configuration took effect. */
  check(): boolean {
    const now = fileStamp(this.settings.configFile);
    if (now === this.stamp) return false;
    this.stamp = now;
    try {
      this.config = this.read();
    } catch (err) {
      const problem = VivaceError.from(err).message;
      if (problem !== this.lastProblem) {
        this.lastProblem = problem;
        (this.options.logger ?? defaultLogger()).warn({ component: 'resource-groups', event: 'resource_groups_invalid', path: this.settings.configFile, message: `${problem}; the last good configuration stays in force` });
      }
      return false;
    }
    this.lastProblem = undefined;
    this.options.onChange(this.config);
    return true;
  }

  /** Checks every refresh interval until stopped (the timer does not keep the process alive). */
  start(): void {
    this.timer ??= setInterval(() => this.check(), this.settings.refreshIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
