// The resource-groups file (lib/resource-groups/resource-groups-config.ts) against Trino's documented example
// (docs/src/main/sphinx/admin/resource-groups-example.json, verbatim) and Trino's validation messages
// (ResourceGroupSpec, SelectorSpec, ManagerSpec, StaticSelector, AbstractResourceConfigurationManager,
// ResourceGroupNameTemplate, FileResourceGroupConfigurationManager), each with its line and column.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import fc from 'fast-check';
import { parseResourceGroupsConfig, type GroupSpec, type ResourceGroupsConfig } from '../../lib/resource-groups/resource-groups-config.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';

const EXAMPLE_PATH = new URL('./fixtures/resource-groups-example.json', import.meta.url);
const EXAMPLE = readFileSync(EXAMPLE_PATH, 'utf8');

function parse(text: string): ResourceGroupsConfig {
  return parseResourceGroupsConfig(text, '/etc/rg.json');
}

/** The message of the error parsing `text` gives. */
function problem(text: string): string {
  try {
    parse(text);
  } catch (err) {
    expect(err).to.be.instanceOf(VivaceError);
    expect((err as VivaceError).errorName).to.equal('CONFIGURATION_INVALID');
    return (err as VivaceError).message;
  }
  throw new Error('parsed');
}

/** A file with one root group with `fields` (over a valid minimum) and a catch-all selector. */
function withGroup(fields: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const group = { name: 'global', softMemoryLimit: '1GB', hardConcurrencyLimit: 1, maxQueued: 1, ...fields };
  return JSON.stringify({ rootGroups: [group], selectors: [{ group: 'global' }], ...extra }, null, 2);
}

function withSelector(selector: Record<string, unknown>, groups: unknown[] = [{ name: 'global', softMemoryLimit: '1GB', hardConcurrencyLimit: 1, maxQueued: 1 }]): string {
  return JSON.stringify({ rootGroups: groups, selectors: [selector] }, null, 2);
}

describe('resource groups file (Trino file configuration manager)', () => {
  it("reads Trino's documented example", () => {
    const config = parse(EXAMPLE);
    expect(config.rootGroups.map((g) => g.name.text)).to.deep.equal(['global', 'admin']);
    const global = config.rootGroups[0]!;
    expect(global).to.include({ maxQueued: 1000, hardConcurrencyLimit: 100, schedulingPolicy: 'weighted', jmxExport: true });
    expect(global.softMemoryLimit).to.deep.equal({ fraction: 0.8 });
    expect(global.hardPhysicalDataScanLimitBytes).to.equal(50 * 1024 ** 4);
    const names = (groups: GroupSpec[]): unknown[] => groups.map((g) => (g.subGroups.length ? [g.name.text, names(g.subGroups)] : g.name.text));
    expect(names(config.rootGroups)).to.deep.equal([
      ['global', ['data_definition', ['adhoc', [['other', ['${USER}']], ['bi-${toolname}', ['${USER}']]]], ['pipeline', ['pipeline_${USER}']]]],
      'admin',
    ]);
    expect(config.rootGroups[1]).to.include({ schedulingPolicy: 'query_priority', hardConcurrencyLimit: 50 });
    expect(config.selectors).to.have.length(8);
    expect(config.selectors.map((s) => s.group.text)).to.deep.equal([
      'admin', 'admin', 'admin', 'admin',
      'global.data_definition', 'global.pipeline.pipeline_${USER}', 'global.adhoc.bi-${toolname}.${USER}', 'global.adhoc.other.${USER}',
    ]);
    expect(config.selectors[4]!.queryType).to.equal('DATA_DEFINITION');
    expect(config.selectors[6]!.clientTags).to.deep.equal(['hipri']);
    expect(config.selectors[6]!.source!.matches('jdbc#powerfulbi')).to.equal(true);
    expect(config.cpuQuotaPeriodMs).to.equal(3_600_000);
    expect(config.physicalDataScanQuotaPeriodMs).to.equal(3_600_000);
  });

  it('reads every field: limits, policies, weights, CPU limits, maxRunning as the old name of hardConcurrencyLimit', () => {
    const config = parse(JSON.stringify({
      rootGroups: [{
        name: 'root', softMemoryLimit: '512MB', maxRunning: 4, softConcurrencyLimit: 2, maxQueued: 7, schedulingPolicy: 'WEIGHTED_FAIR',
        softCpuLimit: '1m', hardCpuLimit: '2m', jmxExport: false,
        subGroups: [{ name: 'a', softMemoryLimit: '12.5%', hardConcurrencyLimit: 1, maxQueued: 1, schedulingWeight: 3 }, { name: 'b', softMemoryLimit: '1kB', hardConcurrencyLimit: 1, maxQueued: 1, schedulingWeight: 1 }],
      }],
      selectors: [{ user: 'a.*', userGroup: 'g', source: 's', queryType: 'select', clientTags: ['x', 'y'], group: 'root.a' }],
      cpuQuotaPeriod: '1h',
    }));
    const root = config.rootGroups[0]!;
    expect(root).to.include({ hardConcurrencyLimit: 4, softConcurrencyLimit: 2, maxQueued: 7, schedulingPolicy: 'weighted_fair', softCpuLimitMs: 60_000, hardCpuLimitMs: 120_000, jmxExport: false });
    expect(root.softMemoryLimit).to.deep.equal({ bytes: 512 * 1024 * 1024 });
    expect(root.subGroups[0]!.softMemoryLimit).to.deep.equal({ fraction: 0.125 });
    expect(root.subGroups.map((g) => g.schedulingWeight)).to.deep.equal([3, 1]);
    const selector = config.selectors[0]!;
    expect(selector.queryType).to.equal('SELECT');
    expect(selector.user!.matches('alice')).to.equal(true);
    expect(selector.user!.matches('bob')).to.equal(false);
    expect(selector.userGroup!.matches('g')).to.equal(true);
    expect(selector.clientTags).to.deep.equal(['x', 'y']);
  });

  it('names the line and column of an unknown property, as Jackson does for Trino', () => {
    const text = '{\n  "rootGroups": [\n    {\n      "name": "global",\n      "maxRuning": 3\n    }\n  ],\n  "selectors": []\n}';
    expect(problem(text)).to.equal('Invalid resource groups file /etc/rg.json: line 5, column 7: Unknown property at line 5:7: maxRuning');
  });

  it('names the place of broken JSON', () => {
    expect(problem('{\n  "rootGroups": [\n  ,\n')).to.equal("Invalid resource groups file /etc/rg.json: line 3, column 3: unexpected ','");
    expect(problem('{"rootGroups": [], "selectors": []')).to.match(/line 1, column 35: unexpected end of the file$/);
    expect(problem('')).to.match(/line 1, column 1: unexpected end of the file$/);
    expect(problem('[1] x')).to.match(/line 1, column 5: unexpected 'x' after the document$/);
    expect(problem('['.repeat(100_000))).to.match(/nesting deeper than 64$/);
  });

  it("gives Trino's messages for a group's limits", () => {
    expect(problem(withGroup({ maxQueued: -1 }))).to.match(/line 3, column 5: maxQueued is negative$/);
    expect(problem(withGroup({ hardConcurrencyLimit: -1 }))).to.match(/: hardConcurrencyLimit is negative$/);
    expect(problem(withGroup({ hardConcurrencyLimit: undefined }))).to.match(/: Missing required property: hardConcurrencyLimit$/);
    expect(problem(withGroup({ softConcurrencyLimit: -1 }))).to.match(/: softConcurrencyLimit is negative$/);
    expect(problem(withGroup({ softConcurrencyLimit: 2 }))).to.match(/: hardConcurrencyLimit must be greater than or equal to softConcurrencyLimit$/);
    expect(problem(withGroup({ softMemoryLimit: undefined }))).to.match(/: softMemoryLimit is null$/);
    expect(problem(withGroup({ softMemoryLimit: 'lots' }))).to.match(/line 5, column 26: size is not a valid data size string: lots$/);
    expect(problem(withGroup({ softMemoryLimit: '10XB' }))).to.match(/: Unknown unit: XB$/);
    expect(problem(withGroup({ softMemoryLimit: '1000%' }))).to.match(/: size is not a valid data size string: 1000%$/);
    expect(problem(withGroup({ schedulingPolicy: 'lottery' }))).to.match(/: No enum constant io.trino.spi.resourcegroups.SchedulingPolicy.LOTTERY$/);
    expect(problem(withGroup({ maxQueued: 'many' }))).to.match(/line 7, column 20: maxQueued: expected an integer, found a string$/);
    expect(problem(withGroup({ maxQueued: 1.5 }))).to.match(/maxQueued: expected an integer, found a number$/);
    expect(problem(withGroup({ maxQueued: 2 ** 31 }))).to.match(/maxQueued: 2147483648 is out of range of int$/);
    expect(problem(withGroup({ name: undefined }))).to.match(/: name is null$/);
    expect(problem(withGroup({ jmxExport: 'yes' }))).to.match(/jmxExport: expected a boolean, found a string$/);
  });

  it("gives Trino's messages for names", () => {
    expect(problem(withGroup({ name: '' }))).to.match(/: Resource group name is empty$/);
    expect(problem(withGroup({ name: 'a.b' }))).to.match(/: Invalid resource group name. 'a.b' contains a '.'$/);
    expect(problem(withGroup({ name: 'a${' }))).to.match(/: Invalid resource group name. 'a\$\{' contains extraneous '\$', '\{', or '\}$/);
    expect(problem(withGroup({ name: '${1x}' }))).to.match(/contains extraneous/);
    const twice = JSON.stringify({ rootGroups: [{ name: 'g', softMemoryLimit: '1GB', hardConcurrencyLimit: 1 }, { name: 'g', softMemoryLimit: '1GB', hardConcurrencyLimit: 1 }], selectors: [] });
    expect(problem(twice)).to.match(/: Duplicated root group: g$/);
    const sub = { name: 's', softMemoryLimit: '1GB', hardConcurrencyLimit: 1 };
    expect(problem(withGroup({ subGroups: [sub, sub] }))).to.match(/: Duplicated sub group: s$/);
  });

  it("gives Trino's messages for policies, weights and CPU limits", () => {
    const sub = (name: string, extra: Record<string, unknown> = {}) => ({ name, softMemoryLimit: '1GB', hardConcurrencyLimit: 1, ...extra });
    expect(problem(withGroup({ schedulingPolicy: 'weighted', subGroups: [sub('a', { schedulingWeight: 2 }), sub('b')] }))).to.match(/: Must specify scheduling weight for all sub-groups of 'global' or none of them$/);
    expect(problem(withGroup({ schedulingPolicy: 'fair', subGroups: [sub('a', { schedulingWeight: 2 })] }))).to.match(/: Must use 'weighted' or 'weighted_fair' scheduling policy if specifying scheduling weight for 'global'$/);
    expect(problem(withGroup({ schedulingPolicy: 'query_priority', subGroups: [sub('a', { schedulingPolicy: 'fair' })] }))).to.match(/: Parent of a uses query priority scheduling, so a must also$/);
    expect(problem(withGroup({ subGroups: [sub('a', { schedulingWeight: 0 })] }))).to.match(/: weight must be positive$/);
    expect(problem(withGroup({ hardCpuLimit: '1m' }))).to.match(/: cpuQuotaPeriod must be specified to use CPU limits on group: global$/);
    expect(problem(withGroup({ softCpuLimit: '1m' }, { cpuQuotaPeriod: '1h' }))).to.match(/: Must specify hard CPU limit in addition to soft limit$/);
    expect(problem(withGroup({ softCpuLimit: '2m', hardCpuLimit: '1m' }, { cpuQuotaPeriod: '1h' }))).to.match(/: Soft CPU limit cannot be greater than hard CPU limit$/);
    expect(problem(withGroup({}, { cpuQuotaPeriod: 'soon' }))).to.match(/: duration is not a valid data duration string: soon$/);
    expect(problem(withGroup({}, { cpuQuotaPeriod: '1y' }))).to.match(/: Unknown time unit: y$/);
  });

  it("gives Trino's messages for selectors", () => {
    expect(problem(withSelector({ group: 'nowhere' }))).to.match(/line 11, column 5: Selector refers to nonexistent group: nowhere$/);
    expect(problem(withSelector({ group: 'global.sub' }))).to.match(/: Selector refers to nonexistent group: global.sub$/);
    expect(problem(withSelector({ user: 'x' }))).to.match(/: group is null$/);
    expect(problem(withSelector({ queryType: 'SELEKT', group: 'global' }))).to.match(/: Selector specifies an invalid query type: SELEKT$/);
    const templated = [{ name: 'g-${tool}', softMemoryLimit: '1GB', hardConcurrencyLimit: 1 }];
    expect(problem(withSelector({ group: 'g-${tool}' }, templated))).to.match(/: unresolved variables \[tool\] in resource group ID 'g-\$\{tool\}', available: \[USER, SOURCE\]"$/);
    expect(parse(withSelector({ source: 'jdbc#(?<tool>.*)', group: 'g-${tool}' }, templated)).selectors).to.have.length(1);
    expect(problem(withSelector({ user: '(?<USER>.*)', group: 'global' }))).to.match(/: Multiple definitions found for variable \$\{USER\}$/);
    expect(problem(withSelector({ user: '(?<x>a)', source: '(?<x>b)', group: 'global' }))).to.match(/: Multiple definitions found for variable \$\{x\}$/);
    expect(problem(withSelector({ user: '(a', group: 'global' }))).to.match(/line 12, column 15: user: invalid pattern "\(a": /);
    // Backtracking constructs are refused rather than run slowly.
    expect(problem(withSelector({ source: '(a)\\1', group: 'global' }))).to.match(/source: invalid pattern/);
    expect(problem(withSelector({ clientTags: ['a', 1], group: 'global' }))).to.match(/clientTags: expected a string, found a number$/);
  });

  it('any text gives a configuration or CONFIGURATION_INVALID, never another error', () => {
    const fragments = fc.constantFrom(
      '{', '}', '[', ']', ',', ':', '"', '\\', 'null', 'true', '-', '0', '1.5e3', '\n', ' ',
      '"rootGroups"', '"selectors"', '"name"', '"group"', '"softMemoryLimit"', '"hardConcurrencyLimit"', '"maxQueued"',
      '"subGroups"', '"schedulingPolicy"', '"schedulingWeight"', '"user"', '"source"', '"clientTags"', '"10%"', '"1GB"',
      '"global"', '"${USER}"', '"(?<x>.*)"', '"weighted"', '"cpuQuotaPeriod"', '"1h"', '"\\u00e9"',
    );
    const texts = fc.oneof(fc.string(), fc.array(fragments, { maxLength: 60 }).map((parts) => parts.join('')));
    fc.assert(fc.property(texts, (text) => {
      try {
        parse(text);
      } catch (err) {
        expect(err).to.be.instanceOf(VivaceError);
        expect((err as VivaceError).errorName).to.equal('CONFIGURATION_INVALID');
        expect((err as VivaceError).message).to.match(/^Invalid resource groups file \/etc\/rg\.json: line \d+, column \d+: ./);
      }
    }), { numRuns: 2000 });
  });

  it('any valid JSON value gives a configuration or CONFIGURATION_INVALID', () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
      try {
        parse(JSON.stringify(value));
      } catch (err) {
        expect((err as VivaceError).errorName).to.equal('CONFIGURATION_INVALID');
      }
    }), { numRuns: 500 });
  });
});
