// etc/resource-groups.properties and its JSON file (lib/resource-groups/resource-groups-file.ts), on real files
// in a temp dir: read at start (a broken file is a start error with path, line and reason), re-read when it
// changes, a broken re-read keeping the last good configuration and logging why.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import sinon from 'sinon';
import type { Logger } from '../../lib/log/logger.js';
import { readResourceGroupsProperties, resourceGroupsPropertiesPath, ResourceGroupsFile } from '../../lib/resource-groups/resource-groups-file.js';
import type { ResourceGroupsConfig } from '../../lib/resource-groups/resource-groups-config.js';
import { tempFiles } from './temp-files.js';

const groupsJson = (hard: number) => JSON.stringify({ rootGroups: [{ name: 'global', softMemoryLimit: '100%', hardConcurrencyLimit: hard, maxQueued: 10 }], selectors: [{ group: 'global' }] }, null, 2);

describe('resource groups files', () => {
  const files = tempFiles('vivace-rg-');
  const { write } = files;

  function properties(lines: string[]): string {
    return write('resource-groups.properties', lines.join('\n') + '\n');
  }

  it('finds resource-groups.properties beside config.properties, or in etc/ beside it', () => {
    const config = write('config.properties', 'http-server.http.port=0\n');
    expect(resourceGroupsPropertiesPath(config)).to.equal(undefined);
    mkdirSync(join(files.dir, 'etc'));
    writeFileSync(join(files.dir, 'etc', 'resource-groups.properties'), '');
    expect(resourceGroupsPropertiesPath(config)).to.equal(join(files.dir, 'etc', 'resource-groups.properties'));
    const beside = properties([]);
    expect(resourceGroupsPropertiesPath(config)).to.equal(beside);
    expect(resourceGroupsPropertiesPath(undefined)).to.equal(undefined);
  });

  it('reads the properties, refusing what Trino refuses', () => {
    const json = write('groups.json', groupsJson(1));
    const path = properties(['resource-groups.configuration-manager=file', `resource-groups.config-file=${json}`, 'resource-groups.refresh-interval=5s']);
    expect(readResourceGroupsProperties(path)).to.deep.equal({ propertiesFile: path, configFile: json, refreshIntervalMs: 5000 });
    expect(readResourceGroupsProperties(properties(['resource-groups.configuration-manager=file', `resource-groups.config-file=${json}`])).refreshIntervalMs).to.equal(1000);
    const failing = (lines: string[]) => () => readResourceGroupsProperties(properties(lines));
    expect(failing(['resource-groups.configuration-manager=db', `resource-groups.config-file=${json}`])).to.throw(`${path}:1: Resource group configuration manager 'db' is not registered`);
    expect(failing(['resource-groups.configuration-manager=file'])).to.throw('Invalid configuration property resource-groups.config-file: must not be null');
    expect(failing(['resource-groups.configuration-manager=file', `resource-groups.config-file=${json}`, 'resource-groups.max-refresh-interval=1h'])).to.throw(`${path}:3: Configuration property 'resource-groups.max-refresh-interval' was not used`);
    expect(failing(['resource-groups.configuration-manager=file', `resource-groups.config-file=${json}`, 'resource-groups.refresh-interval=often'])).to.throw(`${path}:3: Invalid configuration property resource-groups.refresh-interval: often`);
  });

  it('stops the start on a broken file with its path, line and reason', () => {
    const json = write('groups.json', '{\n  "rootGroups": [],\n  "selectors": [],\n  "cpuQuota": "1h"\n}\n');
    const settings = readResourceGroupsProperties(properties(['resource-groups.configuration-manager=file', `resource-groups.config-file=${json}`]));
    expect(() => new ResourceGroupsFile(settings, { onChange: () => {} })).to.throw(`Invalid resource groups file ${json}: line 4, column 3: Unknown property at line 4:3: cpuQuota`);
    const missing = { ...settings, configFile: join(files.dir, 'nope.json') };
    expect(() => new ResourceGroupsFile(missing, { onChange: () => {} })).to.throw(`Invalid resource groups file ${join(files.dir, 'nope.json')}: cannot be read`);
  });

  it('re-reads a changed file; a broken one keeps the last good configuration and is logged once', () => {
    const json = write('groups.json', groupsJson(1));
    const settings = readResourceGroupsProperties(properties(['resource-groups.configuration-manager=file', `resource-groups.config-file=${json}`]));
    const changes: ResourceGroupsConfig[] = [];
    const warn = sinon.spy();
    const file = new ResourceGroupsFile(settings, { onChange: (config) => changes.push(config), logger: { warn } as unknown as Logger });
    expect(file.current.rootGroups[0]!.hardConcurrencyLimit).to.equal(1);
    expect(file.check()).to.equal(false); // unchanged
    write('groups.json', groupsJson(7));
    expect(file.check()).to.equal(true);
    expect(changes.map((c) => c.rootGroups[0]!.hardConcurrencyLimit)).to.deep.equal([7]);
    write('groups.json', '{ "rootGroups": [ }');
    expect(file.check()).to.equal(false);
    expect(file.current.rootGroups[0]!.hardConcurrencyLimit).to.equal(7);
    expect(warn.calledOnce).to.equal(true);
    expect(warn.firstCall.args[0]).to.include({ event: 'resource_groups_invalid', path: json });
    expect(warn.firstCall.args[0].message).to.equal(`Invalid resource groups file ${json}: line 1, column 19: unexpected '}'; the last good configuration stays in force`);
    write('groups.json', '{ "rootGroups": [ } ');
    file.check();
    expect(warn.callCount).to.equal(1); // the same problem again is not told again
    write('groups.json', groupsJson(3));
    expect(file.check()).to.equal(true);
    expect(file.current.rootGroups[0]!.hardConcurrencyLimit).to.equal(3);
  });
});
