import { describe, expect, it } from 'vitest';
import { modelKeyOf, normaliseGpuName, pciDeviceIdOf, resolveGpu, resolveGpuModel } from '../../src/catalog/index.js';

describe('resolveGpuModel: spellings of one board', () => {
  it.each([
    ['NVIDIA A100-SXM4-40GB', 'exact nvidia-smi product_name'],
    ['A100-SXM4-40GB', 'older drivers (450.x) without the NVIDIA prefix'],
    ['NVIDIA-A100-SXM4-40GB', 'GPU Feature Discovery label nvidia.com/gpu.product'],
    ['NVIDIA-A100-SXM4-40GB-SHARED', 'GFD label of a time-sliced GPU'],
    ['nvidia a100-sxm4-40gb', 'case does not matter'],
    ['  NVIDIA A100-SXM4-40GB  ', 'surrounding blanks'],
  ])('%s (%s) -> a100-sxm4-40gb', (name) => {
    expect(resolveGpuModel(name)?.key).toBe('a100-sxm4-40gb');
  });

  it.each([
    ['NVIDIA H100 80GB HBM3', 'h100-sxm-80gb'],
    ['NVIDIA H100 PCIe', 'h100-pcie-80gb'],
    ['NVIDIA H100 NVL', 'h100-nvl-94gb'],
    ['NVIDIA H200', 'h200-sxm-141gb'],
    ['NVIDIA H200 NVL', 'h200-nvl-141gb'],
    ['NVIDIA A100 80GB PCIe', 'a100-pcie-80gb'],
    ['NVIDIA GH200 480GB', 'gh200-96gb'],
    ['NVIDIA GH200 144G HBM3e', 'gh200-144gb'],
    ['Tesla V100-SXM2-32GB', 'v100-sxm2-32gb'],
  ])('%s -> %s (names that differ only in a suffix stay apart)', (name, key) => {
    expect(resolveGpuModel(name)?.key).toBe(key);
  });
});

describe('resolveGpu: MIG device names keep their profile', () => {
  it.each([
    ['NVIDIA H100 NVL MIG 1g.12gb', 'h100-nvl-94gb', '1g.12gb'],
    ['NVIDIA-H100-NVL-MIG-1g.12gb', 'h100-nvl-94gb', '1g.12gb'],
    ['NVIDIA A100-SXM4-80GB MIG 7g.80gb', 'a100-sxm4-80gb', '7g.80gb'],
    ['NVIDIA H200 MIG 1c.3g.71gb', 'h200-sxm-141gb', '1c.3g.71gb'],
    ['NVIDIA A100-SXM4-40GB MIG 1g.5gb+me', 'a100-sxm4-40gb', '1g.5gb+me'],
    ['NVIDIA-A100-SXM4-40GB-MIG-1g.5gb-SHARED', 'a100-sxm4-40gb', '1g.5gb'],
  ])('%s -> %s, profile %s', (name, key, profile) => {
    const resolution = resolveGpu(name);
    expect(resolution).toMatchObject({ status: 'resolved', matchedBy: 'product-name', migProfile: profile });
    expect(resolution.status === 'resolved' && resolution.spec.key).toBe(key);
  });
});

describe('resolveGpu: PCI device id as the second key', () => {
  it('uses the upper 16 bits of pci_device_id when the name is not in the table', () => {
    // telegraf-gtx-1660-ti.xml style: an unhelpful name; 0x20B2 is the A100-SXM4-80GB (DCGM SKU table).
    expect(resolveGpu('Graphics Device', '20B210DE')).toMatchObject({ status: 'resolved', matchedBy: 'pci-device-id' });
    expect(modelKeyOf('Graphics Device', '0x20B210DE')).toBe('a100-sxm4-80gb');
  });

  it('resolves a GPU that has no names in the reference by its id alone (B100: 0x29BC)', () => {
    expect(modelKeyOf(null, '0x29BC10DE')).toBe('b100');
  });

  it('prefers the name when both are given', () => {
    expect(modelKeyOf('NVIDIA H200', '0x233010DE')).toBe('h200-sxm-141gb');
  });

  it.each([
    ['000000DE', 'virtualised A10G in EC2 (telegraf-a10g.xml)'],
    ['[REDACTED]', 'masked by the capturer'],
    ['0x233010AB', 'a vendor other than NVIDIA (10DE)'],
    ['', 'empty'],
  ])('ignores %s (%s)', (raw) => {
    expect(pciDeviceIdOf(raw)).toBeNull();
  });

  it('accepts the 8-digit forms with and without 0x, and a bare 4-digit device id', () => {
    expect(pciDeviceIdOf('0x20B010DE')).toBe('0x20B0');
    expect(pciDeviceIdOf('20b010de')).toBe('0x20B0');
    expect(pciDeviceIdOf('0x20b0')).toBe('0x20B0');
  });
});

describe('resolveGpu: explicit unknowns carry their reason', () => {
  it('a vGPU guest name names a slice, not a board', () => {
    expect(resolveGpu('GRID A100-40C')).toMatchObject({ status: 'unknown', reason: 'vgpu-guest', vgpuProfile: 'A100-40C' });
  });

  it('a vGPU guest is placed by its PCI id when that names a board in the table', () => {
    // Guests see the physical board's device id (telegraf-tesla_p4.xml: GRID P4-1Q on 1BB310DE, a Tesla P4).
    expect(resolveGpu('GRID A100-10C', '20B010DE')).toMatchObject({ status: 'resolved', matchedBy: 'pci-device-id', vgpuProfile: 'A100-10C' });
  });

  it('a board the table lacks', () => {
    expect(resolveGpu('NVIDIA GeForce RTX 4090', '268410DE')).toMatchObject({ status: 'unknown', reason: 'not-in-gpu-table' });
    expect(modelKeyOf('NVIDIA GeForce RTX 4090')).toBe('unknown');
  });

  it('no name and no id', () => {
    expect(resolveGpu(null)).toMatchObject({ status: 'unknown', reason: 'no-name' });
    expect(resolveGpu('   ')).toMatchObject({ status: 'unknown', reason: 'no-name' });
    expect(modelKeyOf(null)).toBe('unknown');
  });
});

describe('normaliseGpuName', () => {
  it('folds case, hyphens, underscores and the NVIDIA prefix', () => {
    expect(normaliseGpuName('NVIDIA-H100-80GB-HBM3')).toBe('h100 80gb hbm3');
    expect(normaliseGpuName('NVIDIA H100 80GB HBM3')).toBe('h100 80gb hbm3');
    // Only a leading NVIDIA is dropped; "Tesla" stays (DCGM and nvidia-smi both print it).
    expect(normaliseGpuName('Tesla T4')).toBe('tesla t4');
  });
});
