import { describe, expect, it } from 'vitest';
import { parseQueryHeader } from '../../../../src/sources/lexers/text/query-csv.js';

describe('parseQueryHeader', () => {
  it('reads field names and bracketed units', () => {
    expect(parseQueryHeader('timestamp, name, memory.used [MiB], utilization.gpu [%], clocks_event_reasons_counters.sw_power_cap [us]')).toEqual([
      { field: 'timestamp', unit: undefined },
      { field: 'name', unit: undefined },
      { field: 'memory.used', unit: 'MiB' },
      { field: 'utilization.gpu', unit: '%' },
      { field: 'clocks_event_reasons_counters.sw_power_cap', unit: 'us' },
    ]);
  });

  it('reads camel-case field names of newer drivers', () => {
    expect(parseQueryHeader('vgpu_driver_capability.heterogenous_multivGPU, encoder.stats.sessionCount')?.map((column) => column.field))
      .toEqual(['vgpu_driver_capability.heterogenous_multivGPU', 'encoder.stats.sessionCount']);
  });

  it('refuses data rows, help text and other files', () => {
    for (const line of [
      '2026/07/14 09:00:44.579, NVIDIA H100 80GB HBM3',
      'Tesla P100-PCIE-16GB, GPU-ef1b2c9b-38d8-2090-2bd1-f567a3eb42a6',
      'List of valid properties to query for the switch "--query-gpu":',
      '# gpu    pwr',
      '<?xml version="1.0" ?>',
      'DCGM_FI_DEV_SM_CLOCK,  gauge, SM clock frequency (in MHz).',
    ]) {
      expect(parseQueryHeader(line), line).toBeUndefined();
    }
  });
});
