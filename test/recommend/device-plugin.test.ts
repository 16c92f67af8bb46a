/**
 * Device plugin configs read by the rules of the plugin's own config types (NVIDIA
 * k8s-device-plugin, api/config/v1: Config, Sharing, ReplicatedResources, ReplicatedResource,
 * ReplicatedDevices, ResourceName), on the corpus's real configs and on what the planner writes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { devicePluginConfig, devicePluginConfigMap, validateDevicePluginConfig } from '../../src/recommend/sharing/device-plugin.js';
import { corpusFiles } from '../helpers/corpus.js';

/** Every plugin config in the corpus: whole files with `version:`, and the values of ConfigMaps' data. */
function corpusConfigs(): { where: string; text: string }[] {
  const found: { where: string; text: string }[] = [];
  for (const file of corpusFiles('device-plugin', (name) => /\.ya?ml$/u.test(name))) {
    for (const document of parseAllDocuments(readFileSync(file, 'utf8'))) {
      const value = document.toJS() as Record<string, unknown> | null;
      if (value === null || typeof value !== 'object') continue;
      if ('version' in value && 'sharing' in value) found.push({ where: file, text: document.toString() });
      if (value.kind === 'ConfigMap') for (const [key, text] of Object.entries((value.data ?? {}) as Record<string, string>)) found.push({ where: `${file}#${key}`, text });
    }
  }
  return found;
}

describe('reading a device plugin config as the plugin does', () => {
  it('accepts every sharing config in the corpus', () => {
    const configs = corpusConfigs();
    expect(configs.length).toBeGreaterThanOrEqual(2);
    for (const { where, text } of configs) expect(validateDevicePluginConfig(text), where).toMatchObject({ ok: true, mode: 'time-slicing' });
  });

  it.each([
    ['replicas below 2', 'version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 1\n', 'sharing.timeSlicing.resources[0]: number of replicas must be >= 2'],
    ['no replicas', 'version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n', 'sharing.timeSlicing.resources[0]: no replicas specified'],
    ['no resources', 'version: v1\nsharing:\n  timeSlicing:\n    renameByDefault: true\n', 'sharing.timeSlicing: no resources specified'],
    ['devices as a word', 'version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      devices: some\n      replicas: 2\n', "sharing.timeSlicing.resources[0]: devices set as 'some' but the only valid string input is 'all'"],
    ['a device count of 0', 'version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      devices: 0\n      replicas: 2\n', "sharing.timeSlicing.resources[0]: devices set as '0' but a count of devices must be > 0"],
    ['both modes', 'version: v1\nsharing:\n  timeSlicing:\n    resources: [{name: nvidia.com/gpu, replicas: 2}]\n  mps:\n    resources: [{name: nvidia.com/gpu, replicas: 2}]\n', 'sharing: time-slicing and MPS are mutually exclusive'],
    ['MPS of a MIG resource', 'version: v1\nsharing:\n  mps:\n    resources: [{name: nvidia.com/mig-1g.10gb, replicas: 2}]\n', 'sharing.mps.resources[0]: MPS supports only nvidia.com/gpu (full GPUs)'],
    ['a resource name that is no DNS subdomain', 'version: v1\nsharing:\n  timeSlicing:\n    resources: [{name: nvidia.com/GPU_, replicas: 2}]\n', "sharing.timeSlicing.resources[0]: incorrect format for resource name 'nvidia.com/GPU_'"],
    ['another version', 'version: v2\n', 'unknown version: v2'],
    ['a misspelt key the plugin would ignore', 'version: v1\nsharing:\n  timeSlicing:\n    renameByDefualt: true\n    resources: [{name: nvidia.com/gpu, replicas: 2}]\n', 'sharing.timeSlicing: unknown key renameByDefualt'],
  ])('refuses %s with the plugin\'s reason', (_name, text, reason) => {
    expect(validateDevicePluginConfig(text)).toEqual({ ok: false, reason });
  });

  it('reads a bare resource name under nvidia.com, as the plugin does', () => {
    expect(validateDevicePluginConfig('version: v1\nsharing:\n  timeSlicing:\n    resources: [{name: gpu, replicas: 4}]\n')).toEqual({ ok: true, mode: 'time-slicing', resources: [{ name: 'nvidia.com/gpu', replicas: 4, advertisedAs: 'nvidia.com/gpu' }] });
  });
});

describe('what the planner writes', () => {
  it('writes configs the plugin reads, renamed to the shared resource and refusing requests above one', () => {
    for (const mode of ['time-slicing', 'mps'] as const) {
      expect(validateDevicePluginConfig(devicePluginConfig(mode, 2))).toEqual({ ok: true, mode, resources: [{ name: 'nvidia.com/gpu', replicas: 2, advertisedAs: 'nvidia.com/gpu.shared' }] });
    }
    const configMap = parseAllDocuments(devicePluginConfigMap([{ mode: 'mps', replicas: 2 }, { mode: 'time-slicing', replicas: 2 }]))[0]!.toJS() as { data: Record<string, string> };
    expect(Object.keys(configMap.data)).toEqual(['gpu-audit-mps-2', 'gpu-audit-time-slicing-2']);
  });
});
