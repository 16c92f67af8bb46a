/**
 * A GPU's PCIe link bandwidth per direction from its generation and width (a board property,
 * reported in GpuEntry.pcieLink): transfer rate x encoding x lanes / 8 bits.
 */
import { describe, expect, it } from 'vitest';
import { pcieLinkBandwidthMiBps, pcieLinkOf } from '../../src/analysis/pcie-link.js';

const MIB = 2 ** 20;

describe('pcieLinkBandwidthMiBps', () => {
  it.each([
    // GT/s x encoding x lanes / 8 bits = bytes per second each way, then / 2^20.
    [1, 1, (2.5e9 * (8 / 10) * 1) / 8 / MIB], // 250,000,000 B/s = 238.42 MiB/s
    [2, 16, (5e9 * (8 / 10) * 16) / 8 / MIB], // 8,000,000,000 B/s = 7629.39 MiB/s
    [3, 4, (8e9 * (128 / 130) * 4) / 8 / MIB], // 3,938,461,538 B/s = 3756.01 MiB/s (GT 1030, telegraf-gt-1030.xml)
    [3, 16, (8e9 * (128 / 130) * 16) / 8 / MIB], // 15,753,846,154 B/s = 15024.04 MiB/s
    [4, 16, (16e9 * (128 / 130) * 16) / 8 / MIB], // 31,507,692,308 B/s = 30048.08 MiB/s
    [5, 16, (32e9 * (128 / 130) * 16) / 8 / MIB], // 63,015,384,615 B/s = 60096.15 MiB/s
    [6, 16, (64e9 * (242 / 256) * 16) / 8 / MIB], // 121,000,000,000 B/s = 115394.59 MiB/s
  ])('Gen%i x%i carries %f MiB/s each way', (generation, width, expected) => {
    expect(pcieLinkBandwidthMiBps(generation, width)).toBeCloseTo(expected, 6);
  });

  it('spot values worked by hand', () => {
    expect(pcieLinkBandwidthMiBps(4, 16)).toBeCloseTo(30_048.08, 2);
    expect(pcieLinkBandwidthMiBps(1, 1)).toBeCloseTo(238.42, 2);
  });

  it('knows no generation or width that PCIe does not have', () => {
    expect(pcieLinkBandwidthMiBps(7, 16)).toBeUndefined();
    expect(pcieLinkBandwidthMiBps(0, 16)).toBeUndefined();
    expect(pcieLinkBandwidthMiBps(4, 3)).toBeUndefined();
    expect(pcieLinkOf(4, undefined)).toBeNull();
    expect(pcieLinkOf(4, 3)).toBeNull();
  });
});
