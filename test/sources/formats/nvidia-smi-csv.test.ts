import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { nvidiaSmiCsv } from '../../../src/sources/formats/nvidia-smi-csv.js';
import type { SourceContext } from '../../../src/sources/types.js';
import { InputError } from '../../../src/support/errors.js';
import { RecordingSink, chunked } from '../../helpers/sink.js';

const context: SourceContext = { ref: 'gpu.csv', host: 'node-1', timeZone: 'UTC' };

async function parse(text: string, options: { sizes?: number[]; timeZone?: string } = {}) {
  const sink = new RecordingSink();
  const result = await nvidiaSmiCsv.parse(chunked(text, options.sizes), { ...context, timeZone: options.timeZone ?? 'UTC' }, sink);
  return { ...result, ...sink };
}

const HEADER = 'timestamp, name, uuid, pci.bus_id, index, memory.total [MiB], memory.used [MiB], utilization.gpu [%], utilization.memory [%], power.draw [W]';
const UUID_A = 'GPU-ef1b2c9b-38d8-2090-2bd1-f567a3eb42a6';
const UUID_B = 'GPU-04757e3e-3077-4e2e-b988-7e2d647b52e9';

/** `nvidia-smi --query-gpu=... --format=csv -l 1` on two GPUs: the header once, GPUs interleaved. */
const LOOPED_LOG = [
  HEADER,
  `2026/07/14 09:00:44.579, NVIDIA H100 80GB HBM3, ${UUID_A}, 00000000:00:09.0, 0, 81559 MiB, 11125 MiB, 38 %, 4 %, 433.78 W`,
  `2026/07/14 09:00:44.581, NVIDIA H100 80GB HBM3, ${UUID_B}, 00000000:00:0A.0, 1, 81559 MiB, 0 MiB, 0 %, 0 %, 69.85 W`,
  `2026/07/14 09:00:45.580, NVIDIA H100 80GB HBM3, ${UUID_A}, 00000000:00:09.0, 0, 81559 MiB, 11130 MiB, 100 %, 11 %, 631.95 W`,
  `2026/07/14 09:00:45.582, NVIDIA H100 80GB HBM3, ${UUID_B}, 00000000:00:0A.0, 1, 81559 MiB, 0 MiB, 0 %, 0 %, 70.02 W`,
  '',
].join('\n');

describe('nvidia-smi --query-gpu CSV', () => {
  it('reads one sample per row of a looped log, GPUs interleaved, and names each GPU by uuid, bus id and index', async () => {
    const out = await parse(LOOPED_LOG);
    expect(out.records).toBe(4);
    const refA = { host: 'node-1', uuid: UUID_A, pciBusId: '00000000:00:09.0', index: 0 };
    const refB = { host: 'node-1', uuid: UUID_B, pciBusId: '00000000:00:0A.0', index: 1 };
    expect(out.samples).toEqual([
      // 2026/07/14 09:00:44.579 read in UTC
      { ref: refA, time: Date.UTC(2026, 6, 14, 9, 0, 44, 579), memoryTotalMiB: 81559, memoryUsedMiB: 11125, utilizationPct: 38, memoryUtilizationPct: 4, powerW: 433.78 },
      { ref: refB, time: Date.UTC(2026, 6, 14, 9, 0, 44, 581), memoryTotalMiB: 81559, memoryUsedMiB: 0, utilizationPct: 0, memoryUtilizationPct: 0, powerW: 69.85 },
      { ref: refA, time: Date.UTC(2026, 6, 14, 9, 0, 45, 580), memoryTotalMiB: 81559, memoryUsedMiB: 11130, utilizationPct: 100, memoryUtilizationPct: 11, powerW: 631.95 },
      { ref: refB, time: Date.UTC(2026, 6, 14, 9, 0, 45, 582), memoryTotalMiB: 81559, memoryUsedMiB: 0, utilizationPct: 0, memoryUtilizationPct: 0, powerW: 70.02 },
    ]);
    // Inventory is sent once per GPU, not once per row: it did not change.
    expect(out.devices).toEqual([
      { ref: refA, model: 'NVIDIA H100 80GB HBM3', memoryTotalMiB: 81559 },
      { ref: refB, model: 'NVIDIA H100 80GB HBM3', memoryTotalMiB: 81559 },
    ]);
    expect(out.warnings).toEqual([]);
  });

  it('reads --format=csv,nounits exactly as --format=csv', async () => {
    const nounits = LOOPED_LOG.replace(/ (MiB|%|W)(?=,|\n)/g, '');
    expect(nounits).not.toContain(' MiB,');
    const withUnits = await parse(LOOPED_LOG);
    const withoutUnits = await parse(nounits);
    expect(withoutUnits.samples).toEqual(withUnits.samples);
    expect(withoutUnits.devices).toEqual(withUnits.devices);
  });

  it('leaves out a value outside its domain with a warning naming the line; NVML\'s 4294967295 is no value', async () => {
    const row = (used: string, util: string): string => `2026/07/14 09:00:44.579, NVIDIA H100 80GB HBM3, ${UUID_A}, 00000000:00:09.0, 0, 81559 MiB, ${used} MiB, ${util} %, 4 %, 433.78 W`;
    const out = await parse([HEADER, row('1000', '150'), row('1000', '-5'), row('999999', '4294967295'), row('1000', '40'), ''].join('\n'));
    expect(out.samples.map((sample) => [sample.utilizationPct, sample.memoryUsedMiB])).toEqual([
      [undefined, 1000], [undefined, 1000], [undefined, undefined], [40, 1000],
    ]);
    expect(out.warnings).toEqual([
      { location: 'line 2', message: 'GPU utilization 150 is outside 0-100 %; value left out' },
      { location: 'line 3', message: 'GPU utilization -5 is outside 0-100 %; value left out' },
      { location: 'line 4', message: 'memory used 999999 is outside 0-81559 MiB, the memory total; value left out' },
    ]);
  });

  it.each([
    '[N/A]', '[Not Supported]', '[Insufficient Permissions]', '[Unknown Error]', '[Requested functionality has been deprecated]',
  ])('reads %s as no value, never as 0', async (missing) => {
    const out = await parse(`${HEADER}\n2026/07/14 09:00:44.579, NVIDIA H100 80GB HBM3, ${UUID_A}, 00000000:00:09.0, 0, 81559 MiB, 11125 MiB, ${missing}, ${missing}, ${missing}\n`);
    expect(out.samples).toHaveLength(1);
    const [sample] = out.samples;
    expect(sample).not.toHaveProperty('utilizationPct');
    expect(sample).not.toHaveProperty('memoryUtilizationPct');
    expect(sample).not.toHaveProperty('powerW');
    expect(sample?.memoryUsedMiB).toBe(11125);
    expect(out.warnings).toEqual([]);
  });

  it('reads inventory fields: MIG mode, driver, PCI device id as the XML spells it, bus ids of old drivers', async () => {
    const out = await parse([
      'name, pci.bus_id, index, mig.mode.current, driver_version, pci.device_id, memory.used [MiB]',
      'NVIDIA A100-SXM4-40GB, 0000:0c:00.0, 0, Enabled, 510.47.03, 0x20B010DE, 0 MiB',
      'Tesla T4, 00000000:3B:00.0, 1, [N/A], 510.47.03, 0x1EB810DE, 0 MiB',
    ].join('\n'));
    expect(out.devices).toEqual([
      { ref: { host: 'node-1', pciBusId: '00000000:0C:00.0', index: 0 }, model: 'NVIDIA A100-SXM4-40GB', migMode: 'enabled', driverVersion: '510.47.03', pciDeviceId: '20B010DE' },
      { ref: { host: 'node-1', pciBusId: '00000000:3B:00.0', index: 1 }, model: 'Tesla T4', driverVersion: '510.47.03', pciDeviceId: '1EB810DE' },
    ]);
  });

  it('reads only Enabled and Disabled as a MIG mode, not a name every object has', async () => {
    const out = await parse(['index, mig.mode.current', '0, constructor', '1, Disabled'].join('\n'));
    expect(out.devices).toEqual([{ ref: { host: 'node-1', index: 0 } }, { ref: { host: 'node-1', index: 1 }, migMode: 'disabled' }]);
    expect(out.warnings).toHaveLength(1);
    expect(out.warnings[0]?.message).toContain('constructor');
  });

  it('takes power.draw first, then power.draw.average, then power.draw.instant', async () => {
    const out = await parse([
      'index, power.draw.instant [W], power.draw.average [W], power.draw [W]',
      '0, 625.68 W, 631.95 W, 631.95 W',
      '1, 39.32 W, [N/A], 39.32 W',
      '2, 86.41 W, 84.24 W, [N/A]',
      '3, 70.72 W, [N/A], [N/A]',
    ].join('\n'));
    expect(out.samples.map((sample) => sample.powerW)).toEqual([631.95, 39.32, 84.24, 70.72]);
  });

  it('reads gpu_name, gpu_uuid and gpu_bus_id, the aliases --help-query-gpu lists', async () => {
    const out = await parse(`gpu_name, gpu_uuid, gpu_bus_id, utilization.gpu [%]\nTesla T4, ${UUID_A}, 00000000:3B:00.0, 12 %\n`);
    expect(out.samples).toEqual([{ ref: { host: 'node-1', uuid: UUID_A, pciBusId: '00000000:3B:00.0' }, utilizationPct: 12 }]);
    expect(out.devices).toEqual([{ ref: { host: 'node-1', uuid: UUID_A, pciBusId: '00000000:3B:00.0' }, model: 'Tesla T4' }]);
  });

  it('reads timestamps as wall-clock time in the given zone', async () => {
    const out = await parse(`timestamp, index, utilization.gpu [%]\n2026/07/14 09:00:44.579, 0, 5 %\n`, { timeZone: 'Europe/Berlin' });
    // Berlin is UTC+2 in July (CEST): 09:00:44.579 local = 07:00:44.579 UTC.
    expect(out.samples[0]?.time).toBe(Date.UTC(2026, 6, 14, 7, 0, 44, 579));
  });

  it('skips a header printed again, and remaps columns when a concatenated log brings a different header', async () => {
    const out = await parse([
      'index, utilization.gpu [%]',
      '0, 10 %',
      'index, utilization.gpu [%]',
      '0, 20 %',
      'utilization.gpu [%], index, memory.used [MiB]',
      '30 %, 1, 512 MiB',
    ].join('\n'));
    expect(out.records).toBe(3);
    expect(out.samples).toEqual([
      { ref: { host: 'node-1', index: 0 }, utilizationPct: 10 },
      { ref: { host: 'node-1', index: 0 }, utilizationPct: 20 },
      { ref: { host: 'node-1', index: 1 }, utilizationPct: 30, memoryUsedMiB: 512 },
    ]);
  });

  it('sends devices but no samples for an inventory-only query', async () => {
    const out = await parse(`index, name, uuid, driver_version\n0, Tesla T4, ${UUID_A}, 535.54.03\n`);
    expect(out.samples).toEqual([]);
    expect(out.devices).toEqual([{ ref: { host: 'node-1', uuid: UUID_A, index: 0 }, model: 'Tesla T4', driverVersion: '535.54.03' }]);
  });

  it('warns once when no column names the GPU, since every row is then the same device', async () => {
    const out = await parse('timestamp, utilization.gpu [%]\n2026/07/14 09:00:44.579, 5 %\n');
    expect(out.samples).toEqual([{ ref: { host: 'node-1' }, time: Date.UTC(2026, 6, 14, 9, 0, 44, 579), utilizationPct: 5 }]);
    expect(out.warnings).toEqual([{ location: 'line 1', message: expect.stringMatching(/no uuid, pci.bus_id or index column/) }]);
  });

  it('accepts CRLF line ends and a leading byte-order mark', async () => {
    const lf = await parse(LOOPED_LOG);
    const crlf = await parse(`\uFEFF${LOOPED_LOG.replaceAll('\n', '\r\n')}`);
    expect(crlf).toEqual(lf);
  });

  it('gives identical output wherever the input is cut into chunks', async () => {
    const text = `${HEADER}\n2026/07/14 09:00:44.579, NVIDIA H100 80GB HBM3, ${UUID_A}, 00000000:00:09.0, 0, 81559 MiB, 11125 MiB, 38 %, [N/A], 433.78 W\n`;
    const whole = await parse(text);
    for (let cut = 1; cut < text.length; cut += 1) {
      expect(await parse(text, { sizes: [cut, text.length] })).toEqual(whole);
    }
    await fc.assert(fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 8 }), async (sizes) => {
      expect(await parse(LOOPED_LOG, { sizes })).toEqual(await parse(LOOPED_LOG));
    }), { numRuns: 50 });
  });

  describe('bad rows in a good file', () => {
    it('skips a row with the wrong number of cells, with a warning naming its line', async () => {
      const out = await parse('index, utilization.gpu [%]\n0, 10 %\n1, 20 %, 7\n0, 30 %\n1\n');
      expect(out.samples.map((sample) => sample.utilizationPct)).toEqual([10, 30]);
      expect(out.records).toBe(2);
      expect(out.warnings).toEqual([
        { location: 'line 3', message: '3 cells where the header has 2; row skipped' },
        { location: 'line 5', message: '1 cells where the header has 2; row skipped' },
      ]);
    });

    it('skips an unreadable value but keeps the rest of its row', async () => {
      const out = await parse('index, utilization.gpu [%], memory.used [MiB]\n0, lots, 5 GiB\n');
      expect(out.samples).toEqual([{ ref: { host: 'node-1', index: 0 } }]);
      expect(out.warnings).toEqual([
        { location: 'line 2', message: 'utilization.gpu [%]: cannot read "lots"; value skipped' },
        { location: 'line 2', message: 'memory.used [MiB]: cannot read "5 GiB"; value skipped' },
      ]);
    });

    it('skips a row whose timestamp cannot be read: a reading without its time would be misplaced', async () => {
      const out = await parse('timestamp, index, utilization.gpu [%]\nyesterday, 0, 10 %\n2026/07/14 09:00:44.579, 0, 20 %\n');
      expect(out.samples.map((sample) => sample.utilizationPct)).toEqual([20]);
      expect(out.warnings).toEqual([{ location: 'line 2', message: 'timestamp: cannot read "yesterday"; row skipped' }]);
    });

    it('keeps the first 100 warnings and counts the rest, so memory does not grow with bad rows', async () => {
      const rows = Array.from({ length: 250 }, () => '0, x %').join('\n');
      const out = await parse(`index, utilization.gpu [%]\n${rows}\n`);
      expect(out.warnings).toHaveLength(101);
      expect(out.warnings[100]).toEqual({ location: 'line 251', message: '150 more warnings not listed (only the first 100 are kept)' });
    });
  });

  describe('inputs it cannot read', () => {
    it('refuses a header with no nvidia-smi field it reads, naming file and line 1', async () => {
      const error = await parse('host, cpu_percent\nnode-1, 5\n').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InputError);
      expect(error).toMatchObject({ file: 'gpu.csv', location: 'line 1' });
      expect((error as InputError).message).toMatch(/expected fields such as "timestamp, name, uuid/);
    });

    it('refuses --format=csv,noheader output and says to re-run with the header instead of guessing columns', async () => {
      const error = await parse('2026/07/14 09:00:44.579, NVIDIA H100 80GB HBM3, 38 %\n').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InputError);
      expect(error).toMatchObject({ file: 'gpu.csv', location: 'line 1' });
      expect((error as InputError).message).toMatch(/noheader.*re-run nvidia-smi with --format=csv/);
    });

    it('refuses an empty input', async () => {
      await expect(parse('')).rejects.toMatchObject({ name: 'InputError', file: 'gpu.csv', location: 'line 1' });
    });
  });

  describe('detect', () => {
    it('claims --query-gpu headers, with or without units, from the first line', () => {
      expect(nvidiaSmiCsv.detect(`${HEADER}\n2026/07/14 09:00:44.579, ...`)).toBe(true);
      expect(nvidiaSmiCsv.detect('\uFEFFname, uuid, fan.speed [%], pstate, memory.used [MiB]\r\n')).toBe(true);
      expect(nvidiaSmiCsv.detect('utilization.gpu [%]\n')).toBe(true);
    });

    it('leaves other nvidia-smi tables, help text and other formats alone', () => {
      for (const head of [
        'timestamp, gpu_name, gpu_bus_id, gpu_serial, gpu_uuid, pid, process_name, used_gpu_memory [MiB]\n',
        'timestamp, gpu_name, gpu_bus_id, gpu_serial, gpu_uuid, pid, gpu_utilization [%], mem_utilization [%], max_memory_usage [MiB], time [ms]\n',
        'timestamp, gpu_name, gpu_bus_id, gpu_serial, gpu_uuid, retired_pages.address, retired_pages.timestamp, retired_pages.cause\n',
        'List of valid properties to query for the switch "--query-gpu":\n\n"timestamp"\n"utilization.gpu"\n',
        '2026/07/14 09:00:44.579, NVIDIA H100 80GB HBM3, 38 %\n',
        'name, index, timestamp\nalice, 1, 2026-01-01\n',
        '<?xml version="1.0" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">\n',
        '# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n',
        '# gpu    pwr  gtemp  mtemp     sm    mem\n# Idx      W      C      C      %      %\n',
        '',
      ]) {
        expect(nvidiaSmiCsv.detect(head), head).toBe(false);
      }
    });

    it('never claims random text', () => {
      fc.assert(fc.property(fc.string({ maxLength: 200 }), (head) => {
        expect(nvidiaSmiCsv.detect(head)).toBe(false);
      }));
    });
  });
});

describe('nvidia-smi --query-gpu CSV: PCIe link', () => {
  /**
   * `--query-gpu=index,uuid,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,utilization.gpu -l 1`:
   * an idle GPU's link trains down (Gen1 x8 current) while its maximum stays Gen4 x16; GPU 1's
   * first row has no maximum generation yet.
   */
  const LINK_LOG = [
    'timestamp, index, uuid, pcie.link.gen.current, pcie.link.gen.max, pcie.link.width.current, pcie.link.width.max, utilization.gpu [%]',
    `2026/07/14 09:00:44.579, 0, ${UUID_A}, 1, 4, 8, 16, 0 %`,
    `2026/07/14 09:00:44.581, 1, ${UUID_B}, 3, [N/A], 16, 16, 5 %`,
    `2026/07/14 09:00:45.580, 0, ${UUID_A}, 4, 4, 16, 16, 97 %`,
    `2026/07/14 09:00:45.582, 1, ${UUID_B}, 3, 5, 16, 16, 5 %`,
    '',
  ].join('\n');

  it('reads the maximum generation and width into the inventory, not the current ones, sent again only when they change', async () => {
    const out = await parse(LINK_LOG);
    const refA = { host: 'node-1', uuid: UUID_A, index: 0 };
    const refB = { host: 'node-1', uuid: UUID_B, index: 1 };
    // GPU 0's second row repeats its link: nothing sent. GPU 1's fills the generation.
    expect(out.devices).toEqual([
      { ref: refA, pcieLinkMaxGeneration: 4, pcieLinkMaxWidth: 16 },
      { ref: refB, pcieLinkMaxWidth: 16 },
      { ref: refB, pcieLinkMaxGeneration: 5, pcieLinkMaxWidth: 16 },
    ]);
    expect(out.samples.map((sample) => sample.utilizationPct)).toEqual([0, 5, 97, 5]);
    expect(out.warnings).toEqual([]);
  });

  it('reads the link the same way whether the columns are read in place or replayed as a run beside the identity columns', async () => {
    // uuid, gen max and width max side by side form a run of runnable columns (RepeatedRun).
    const run = LINK_LOG.split('\n').map((line) => {
      const cells = line.split(', ');
      return line === '' ? line : [cells[0], cells[1], cells[2], cells[4], cells[6], cells[7]].join(', ');
    }).join('\n');
    const out = await parse(run);
    expect(out.devices).toEqual((await parse(LINK_LOG)).devices);
  });

  it('warns about a link cell that is not a count and keeps the row', async () => {
    const out = await parse(LINK_LOG.replace(`${UUID_A}, 1, 4, 8, 16, 0 %`, `${UUID_A}, 1, four, 8, 16, 0 %`));
    expect(out.samples).toHaveLength(4);
    expect(out.warnings.length).toBe(1);
    expect(out.devices).toContainEqual({ ref: { host: 'node-1', uuid: UUID_A, index: 0 }, pcieLinkMaxWidth: 16 });
  });
});
