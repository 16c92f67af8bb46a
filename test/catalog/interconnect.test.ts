import { describe, expect, it } from 'vitest';
import { bundledCatalog, holdsTensorParallel, interconnectOf } from '../../src/catalog/index.js';

const named = (name: string) => bundledCatalog().instances.find((instance) => instance.name === name)!;

describe('how an instance\'s GPUs are linked', () => {
  it('links SXM boards of the HGX types by NVSwitch, and PCIe boards by PCIe only', () => {
    expect(interconnectOf(named('p5.48xlarge')).kind).toBe('nvswitch');
    expect(interconnectOf(named('p4d.24xlarge')).kind).toBe('nvswitch');
    expect(interconnectOf(named('g6.12xlarge')).kind).toBe('pcie');
    expect(interconnectOf(named('g6e.12xlarge')).kind).toBe('pcie');
    expect(interconnectOf(named('p5.4xlarge')).kind).toBe('none');
  });

  it('holds a tensor-parallel split only over NVLink or NVSwitch, and only within the instance', () => {
    expect(holdsTensorParallel(named('p5.48xlarge'), 8)).toBe(true);
    expect(holdsTensorParallel(named('g6.12xlarge'), 4)).toBe(false);
    expect(holdsTensorParallel(named('g6.12xlarge'), 1)).toBe(true);
    expect(holdsTensorParallel(named('p4d.24xlarge'), 16)).toBe(false);
  });

  it('names its basis for every type of the bundled catalog', () => {
    for (const instance of bundledCatalog().instances) expect(interconnectOf(instance).basis.length).toBeGreaterThan(0);
  });
});
