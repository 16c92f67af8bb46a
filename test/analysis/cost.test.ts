import { describe, expect, it } from 'vitest';
import { applyGpuCosts, applyModelKeys } from '../../src/analysis/index.js';
import { gpuEntry } from './gpu-fixtures.js';

const board = gpuEntry({ id: 'GPU-a', model: 'NVIDIA A100-SXM4-40GB', migMode: 'enabled' });
const instance = gpuEntry({ id: 'GPU-a/1', parentId: 'GPU-a', model: 'NVIDIA A100-SXM4-40GB' });
const other = gpuEntry({ id: 'GPU-b', model: 'Tesla T4' });

describe('applyGpuCosts', () => {
  // p4d.24xlarge: 8 GPUs at $32.77/h -> $4.09625 per GPU-hour
  const priced = applyGpuCosts([board, instance, other], (gpu) =>
    gpu.model === 'Tesla T4' ? undefined : { instanceType: 'p4d.24xlarge', basis: 'label', hourlyUsdPerGpu: 32.77 / 8 });

  it('puts the per-GPU price on the physical GPU', () => {
    expect(priced[0]).toMatchObject({ instanceType: 'p4d.24xlarge', instanceTypeBasis: 'label', hourlyCostUsd: 4.09625 });
  });

  it('gives a MIG device its parent instance type but no cost of its own', () => {
    expect(priced[1]).toMatchObject({ instanceType: 'p4d.24xlarge', instanceTypeBasis: 'label', hourlyCostUsd: null });
  });

  it('leaves GPUs without a price as they were, and the input untouched', () => {
    expect(priced[2]).toEqual(other);
    expect(board.hourlyCostUsd).toBeNull();
  });
});

describe('applyModelKeys', () => {
  it('resolves by model name and PCI device id; a MIG device takes its parent key', () => {
    const calls: [string | null, string | null][] = [];
    const keyed = applyModelKeys([board, instance, other], (model, pciDeviceId) => {
      calls.push([model, pciDeviceId]);
      return pciDeviceId === '20B010DE' ? 'a100-sxm4-40gb' : 'unknown';
    }, new Map([['GPU-a', { pciDeviceId: '20B010DE' }]]));
    expect(keyed.map((gpu) => gpu.modelKey)).toEqual(['a100-sxm4-40gb', 'a100-sxm4-40gb', 'unknown']);
    expect(calls).toEqual([['NVIDIA A100-SXM4-40GB', '20B010DE'], ['Tesla T4', null]]);
  });
});
