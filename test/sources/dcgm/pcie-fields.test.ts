/**
 * PCIe throughput from DCGM: the profiling byte rates (B/s) and the older deprecated
 * throughput fields (NVML's KB/s, as nvidia-smi prints it) land in the same KiB/s readings.
 */
import { describe, expect, it } from 'vitest';
import { fieldByMetricName, fieldByShortName } from '../../../src/sources/dcgm/fields.js';
import { readDcgmValue } from '../../../src/sources/dcgm/values.js';
import { dcgmExporter } from '../../../src/sources/formats/dcgm-exporter.js';
import { parseWith } from '../../helpers/parse.js';

const LABELS = 'gpu="0",UUID="GPU-aaaa",pci_bus_id="00000000:01:00.0",modelName="Tesla T4",Hostname="node-1"';

describe('DCGM PCIe fields', () => {
  it.each([
    ['DCGM_FI_DEV_PCIE_TX_THROUGHPUT', 'TXTPT', 200, 'pcieTxKiBps'],
    ['DCGM_FI_DEV_PCIE_RX_THROUGHPUT', 'RXTPT', 201, 'pcieRxKiBps'],
    ['DCGM_FI_PROF_PCIE_TX_BYTES', 'PCITX', 1009, 'pcieTxKiBps'],
    ['DCGM_FI_PROF_PCIE_RX_BYTES', 'PCIRX', 1010, 'pcieRxKiBps'],
  ])('reads %s (dmon %s, field %i) as %s', (name, shortName, id, reading) => {
    expect(fieldByMetricName(name)).toMatchObject({ id, reading });
    expect(fieldByShortName(shortName)).toBe(fieldByMetricName(name));
  });

  it('keeps the deprecated fields\' KB/s and turns the profiling B/s into KiB/s', () => {
    expect(readDcgmValue('4000', fieldByMetricName('DCGM_FI_DEV_PCIE_RX_THROUGHPUT')!)).toBe(4000);
    // ericsson-t4 corpus scrape: PROF_PCIE_RX_BYTES 6935930 B/s / 1024 = 6773.369140625 KiB/s.
    expect(readDcgmValue('6935930', fieldByMetricName('DCGM_FI_PROF_PCIE_RX_BYTES')!)).toBe(6935930 / 1024);
  });

  it('fills a scrape\'s sample from the deprecated throughput fields', async () => {
    const text = [
      `DCGM_FI_DEV_GPU_UTIL{${LABELS}} 20`,
      `DCGM_FI_DEV_PCIE_RX_THROUGHPUT{${LABELS}} 91000`,
      `DCGM_FI_DEV_PCIE_TX_THROUGHPUT{${LABELS}} 13000`,
      '',
    ].join('\n');
    const { sink } = await parseWith(dcgmExporter, text);
    expect(sink.samples).toEqual([expect.objectContaining({ utilizationPct: 20, pcieRxKiBps: 91000, pcieTxKiBps: 13000 })]);
  });
});
