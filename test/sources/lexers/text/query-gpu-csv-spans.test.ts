/**
 * The `--query-gpu` reader reads data rows in place, as spans of the decoded chunk: a row is
 * sliced into a string of its own only when a chunk boundary cuts it. These tests feed the
 * same log whole and cut everywhere (inside a number, a timestamp, a multi-byte name, a
 * quoted cell, between \r and \n) and require identical samples, devices and warnings.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { nvidiaSmiCsv } from '../../../../src/sources/formats/nvidia-smi-csv.js';
import { RecordingSink, chunked } from '../../../helpers/sink.js';

async function parse(text: string, sizes?: number[]) {
  const sink = new RecordingSink();
  const result = await nvidiaSmiCsv.parse(chunked(text, sizes), { ref: 'gpu.csv', host: 'node-1', timeZone: 'UTC' }, sink);
  return { ...result, ...sink };
}

const UUID_A = 'GPU-ef1b2c9b-38d8-2090-2bd1-f567a3eb42a6';
const UUID_B = 'GPU-04757e3e-3077-4e2e-b988-7e2d647b52e9';
const HEADER = 'timestamp, name, uuid, pci.bus_id, index, memory.total [MiB], memory.used [MiB], utilization.gpu [%], power.draw [W]';
const OTHER_HEADER = 'timestamp, uuid, utilization.gpu [%], power.draw.instant [W]';

/** A log with every shape the in-place path has to get right, CRLF line ends and a BOM. */
const LOG = `\uFEFF${[
  HEADER,
  `2026/07/14 09:00:44.579, NVIDIA GeForce RTX™ 4090, ${UUID_A}, 00000000:01:00.0, 0, 24564 MiB, 1024 MiB, 38 %, 433.78 W`,
  `2026/07/14 09:00:44.581, NVIDIA GeForce RTX™ 4090, ${UUID_B}, 0000:02:00.0, 1, 24564 MiB, [N/A], [Not Supported], 69.85 W`,
  // nvidia-smi never quotes: a quoted cell with ", " inside is two cells, so this row has one too many.
  `2026/07/14 09:00:45.580, "NVIDIA, Inc", ${UUID_A}, 00000000:01:00.0, 0, 24564 MiB, 1030 MiB, 100 %, 631.95 W`,
  `2026/07/14 09:00:45.582, NVIDIA GeForce RTX™ 4090, ${UUID_B}, 0000:02:00.0, 1, 24564, 12, 7, 70`,
  HEADER, // printed again by a concatenated log
  `2026/07/14 09:00:46.580, NVIDIA GeForce RTX™ 4090, ${UUID_A}, 00000000:01:00.0, 0, 24564 MiB, 5 GiB, 100 %, 0.5 W`,
  OTHER_HEADER, // a concatenated log with other fields
  `2026/07/14 09:00:47.580, ${UUID_A}, 99 %, 612.5 W`,
  `2026/07/14 09:00:47.582, ${UUID_B}, N/A, -12.25 W`,
  `2026/07/14 09:00:48.5`, // cut short by a killed nvidia-smi
].join('\r\n')}`;

const refA = { host: 'node-1', uuid: UUID_A, pciBusId: '00000000:01:00.0', index: 0 };
const refB = { host: 'node-1', uuid: UUID_B, pciBusId: '00000000:02:00.0', index: 1 };

describe('--query-gpu CSV read in place', () => {
  it('reads units, nounits, missing values, repeated and changed headers as the string readers did', async () => {
    const out = await parse(LOG);
    expect(out.samples).toEqual([
      // 09:00:44.579 UTC; 433.78 W read as 43378 / 100.
      { ref: refA, time: Date.UTC(2026, 6, 14, 9, 0, 44, 579), memoryTotalMiB: 24564, memoryUsedMiB: 1024, utilizationPct: 38, powerW: 433.78 },
      // [N/A] and [Not Supported] are missing values, never 0; the 4-digit domain is widened to 8.
      { ref: refB, time: Date.UTC(2026, 6, 14, 9, 0, 44, 581), memoryTotalMiB: 24564, powerW: 69.85 },
      // --format=csv,nounits cells under unit headers.
      { ref: refB, time: Date.UTC(2026, 6, 14, 9, 0, 45, 582), memoryTotalMiB: 24564, memoryUsedMiB: 12, utilizationPct: 7, powerW: 70 },
      // `5 GiB` under [MiB] is skipped with a warning; the rest of the row stands.
      { ref: refA, time: Date.UTC(2026, 6, 14, 9, 0, 46, 580), memoryTotalMiB: 24564, utilizationPct: 100, powerW: 0.5 },
      // After the second header: uuid only, so new refs; power from power.draw.instant.
      { ref: { host: 'node-1', uuid: UUID_A }, time: Date.UTC(2026, 6, 14, 9, 0, 47, 580), utilizationPct: 99, powerW: 612.5 },
      { ref: { host: 'node-1', uuid: UUID_B }, time: Date.UTC(2026, 6, 14, 9, 0, 47, 582), powerW: -12.25 },
    ]);
    expect(out.records).toBe(6);
    expect(out.devices.map((device) => device.model)).toEqual(['NVIDIA GeForce RTX™ 4090', 'NVIDIA GeForce RTX™ 4090', undefined, undefined]);
    expect(out.warnings).toEqual([
      { location: 'line 4', message: '10 cells where the header has 9; row skipped' },
      { location: 'line 7', message: 'memory.used [MiB]: cannot read "5 GiB"; value skipped' },
      { location: 'line 11', message: '1 cells where the header has 4; row skipped' },
    ]);
  });

  it('gives identical output wherever the chunks are cut', async () => {
    const whole = await parse(LOG);
    // Every single cut: inside numbers, timestamps, the ™, the quoted cell, between \r and \n.
    for (let cut = 1; cut < LOG.length; cut += 1) {
      expect(await parse(LOG, [cut, LOG.length])).toEqual(whole);
    }
    await fc.assert(fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 6 }), async (sizes) => {
      expect(await parse(LOG, sizes)).toEqual(whole);
    }), { numRuns: 200 });
  });

  it('gives identical output for LF and CRLF line ends', async () => {
    expect(await parse(LOG.replaceAll('\r\n', '\n'))).toEqual(await parse(LOG));
  });

  it('recognises GPUs by their cells however often their order changes (the look-up caches follow the rows)', async () => {
    // 70 GPUs, more than the caches hold (32 refs, 64 identity runs), in an order that changes every tick.
    const uuids = Array.from({ length: 70 }, (_, gpu) => `GPU-00000000-0000-0000-0000-${String(gpu).padStart(12, '0')}`);
    const rows = [HEADER];
    for (let tick = 0; tick < 3; tick += 1) {
      for (let slot = 0; slot < uuids.length; slot += 1) {
        // In order, then reversed, then every third GPU round the ring (3 and 70 share no factor).
        const gpu = [slot, uuids.length - 1 - slot, (slot * 3) % uuids.length][tick]!;
        // The bus id printed in both spellings: the same GPU, whichever text its run was remembered with.
        const bus = `${tick === 1 ? '0000' : '00000000'}:${gpu.toString(16).toUpperCase().padStart(2, '0')}:00.0`;
        rows.push(`2026/07/14 09:00:${String(44 + tick)}.000, GPU model ${gpu % 3}, ${uuids[gpu]!}, ${bus}, ${gpu}, 81559 MiB, ${gpu} MiB, ${tick} %, 70 W`);
      }
    }
    const out = await parse(`${rows.join('\n')}\n`);
    expect(out.samples).toHaveLength(3 * uuids.length);
    for (const sample of out.samples) {
      // Each sample's memory.used was written as its GPU number: the ref must name the same GPU.
      const gpu = sample.memoryUsedMiB!;
      expect(sample.ref).toEqual({ host: 'node-1', uuid: uuids[gpu], pciBusId: `00000000:${gpu.toString(16).toUpperCase().padStart(2, '0')}:00.0`, index: gpu });
    }
    expect(new Set(out.samples.map((sample) => sample.ref)).size).toBe(uuids.length);
    expect(out.devices.filter((device) => device.ref.index === 5).map((device) => device.model)).toEqual(['GPU model 2']);
  });

  it('replays identity columns only where the whole run of cells is the same text', async () => {
    const header = 'index, name, uuid, pci.bus_id, utilization.gpu [%]';
    const rows = [
      `0, H100, ${UUID_A}, 00000000:01:00.0, 1 %`,
      `0, H100, ${UUID_A}, 00000000:01:00.0, 2 %`, // the same run: replayed
      `0, H100, ${UUID_A}, 00000000:01:00.00, 3 %`, // starts like the remembered run, one more digit: a bad bus id
      `0, H100, ${UUID_A}, 00000000:01:00.0`, // the run without the ", " after it: one cell short
      `0, H100, ${UUID_A}, 00000000:01:00.0, 5 %, extra`, // one cell too many after a replayed run
      `0, H100, ${UUID_A}, bogus, 6 %`, // an unreadable cell in a run: not remembered...
      `0, H100, ${UUID_A}, bogus, 7 %`, // ...so it warns again
      `0, [N/A], ${UUID_A}, 00000000:01:00.0, 8 %`, // a missing name leaves model unset
    ];
    const out = await parse(`${header}\n${rows.join('\n')}\n`);
    const ref = { host: 'node-1', uuid: UUID_A, pciBusId: '00000000:01:00.0', index: 0 };
    expect(out.samples).toEqual([
      { ref, utilizationPct: 1 },
      { ref, utilizationPct: 2 },
      { ref: { host: 'node-1', uuid: UUID_A, index: 0 }, utilizationPct: 3 },
      { ref: { host: 'node-1', uuid: UUID_A, index: 0 }, utilizationPct: 6 },
      { ref: { host: 'node-1', uuid: UUID_A, index: 0 }, utilizationPct: 7 },
      { ref, utilizationPct: 8 },
    ]);
    expect(out.warnings).toEqual([
      { location: 'line 4', message: 'pci.bus_id: cannot read "00000000:01:00.00"; value skipped' },
      { location: 'line 5', message: '4 cells where the header has 5; row skipped' },
      { location: 'line 6', message: '6 cells where the header has 5; row skipped' },
      { location: 'line 7', message: 'pci.bus_id: cannot read "bogus"; value skipped' },
      { location: 'line 8', message: 'pci.bus_id: cannot read "bogus"; value skipped' },
    ]);
    // Inventory: the GPU with its bus id (H100), the same GPU without one (rows 3, 6, 7: H100), then the
    // [N/A] row, which changes the first one's facts and so is sent again, without a model.
    expect(out.devices.map((device) => [device.ref.pciBusId, device.model])).toEqual([['00000000:01:00.0', 'H100'], [undefined, 'H100'], ['00000000:01:00.0', undefined]]);
  });

  it('does not replay a column whose row property another column also writes (name and gpu_name)', async () => {
    // gpu_name is read after name, so it wins where it has a value; where it is [N/A], name's value stands.
    const header = 'name, gpu_name, uuid, index, utilization.gpu [%]';
    const rows = [
      `A100, H100, ${UUID_A}, 0, 1 %`,
      `A100, [N/A], ${UUID_A}, 0, 2 %`,
      `A100, H100, ${UUID_A}, 0, 3 %`,
    ];
    const out = await parse(`${header}\n${rows.join('\n')}\n`);
    expect(out.devices.map((device) => device.model)).toEqual(['H100', 'A100', 'H100']);
    expect(out.samples.map((sample) => sample.utilizationPct)).toEqual([1, 2, 3]);
  });

  it('reads the timestamp of each row when the minute, the hour or the day changes mid-log (the row loop reuses the minute before)', async () => {
    const gpu = (stamp: string, tick: number): string => `${stamp}, NVIDIA H100, ${UUID_A}, 00000000:01:00.0, 0, 81559 MiB, ${tick} MiB, ${tick} %, 70.5 W`;
    const stamps = ['2026/07/14 23:59:58.900', '2026/07/14 23:59:59.900', '2026/07/15 00:00:00.900', '2026/07/15 00:00:01', '2026/07/15 00:01:00.000', '2026/07/15 00:01:00.001'];
    const out = await parse(`${[HEADER, ...stamps.map(gpu)].join('\n')}\n`);
    expect(out.samples.map((sample) => sample.time)).toEqual([
      Date.UTC(2026, 6, 14, 23, 59, 58, 900),
      Date.UTC(2026, 6, 14, 23, 59, 59, 900),
      Date.UTC(2026, 6, 15, 0, 0, 0, 900), // a new day, hour and minute at once
      Date.UTC(2026, 6, 15, 0, 0, 1), // no milliseconds
      Date.UTC(2026, 6, 15, 0, 1, 0, 0),
      Date.UTC(2026, 6, 15, 0, 1, 0, 1),
    ]);
  });

  it('tells apart GPUs whose identity text differs from the row before by one character', async () => {
    // Two GPUs whose uuids differ in the last character only, then a bus id and an index one character apart.
    const uuidC = `${UUID_A.slice(0, -1)}3`;
    const header = 'timestamp, name, uuid, pci.bus_id, index, utilization.gpu [%]';
    const rows = [
      `2026/07/14 09:00:44.000, H100, ${UUID_A}, 00000000:01:00.0, 0, 1 %`,
      `2026/07/14 09:00:44.000, H100, ${uuidC}, 00000000:01:00.0, 0, 2 %`,
      `2026/07/14 09:00:45.000, H100, ${UUID_A}, 00000000:01:00.0, 0, 3 %`,
      `2026/07/14 09:00:45.000, H100, ${UUID_A}, 00000000:02:00.0, 0, 4 %`,
      `2026/07/14 09:00:45.000, H100, ${UUID_A}, 00000000:01:00.0, 1, 5 %`,
      `2026/07/14 09:00:46.000, H101, ${UUID_A}, 00000000:01:00.0, 0, 6 %`,
    ];
    const out = await parse(`${[header, ...rows].join('\n')}\n`);
    const ref = (uuid: string, bus: string, index: number) => ({ host: 'node-1', uuid, pciBusId: `00000000:${bus}:00.0`, index });
    expect(out.samples.map((sample) => [sample.ref, sample.utilizationPct])).toEqual([
      [ref(UUID_A, '01', 0), 1],
      [ref(uuidC, '01', 0), 2],
      [ref(UUID_A, '01', 0), 3],
      [ref(UUID_A, '02', 0), 4],
      [ref(UUID_A, '01', 1), 5],
      [ref(UUID_A, '01', 0), 6],
    ]);
    // The model named one character differently is new inventory for the same GPU.
    expect(out.devices.filter((device) => device.ref.uuid === UUID_A && device.ref.index === 0 && device.ref.pciBusId === '00000000:01:00.0').map((device) => device.model))
      .toEqual(['H100', 'H101']);
  });

  it('reads a missing value in a column every row has as missing, and the rows around it as usual', async () => {
    const header = 'timestamp, uuid, utilization.gpu [%], memory.used [MiB], power.draw [W], power.draw.instant [W]';
    const rows = [
      `2026/07/14 09:00:44.000, ${UUID_A}, 38 %, 1024 MiB, 433.78 W, 431.50 W`,
      `2026/07/14 09:00:45.000, ${UUID_A}, [N/A], [Not Supported], [N/A], 431.50 W`, // power from the instant reading
      `2026/07/14 09:00:46.000, ${UUID_A}, N/A, 0 MiB, 69.00 W, [N/A]`,
      `2026/07/14 09:00:47.000, ${UUID_A}, 7 %, 5 MiB, 70 W, 71 W`, // nounits cell under a unit header
      `2026/07/14 09:00:48.000, ${UUID_A}, 7 %, 5 GiB, -12.25 W, 1 W`, // another unit: a warning, the rest stands
    ];
    const out = await parse(`${[header, ...rows].join('\n')}\n`);
    const ref = { host: 'node-1', uuid: UUID_A };
    const time = (second: number): number => Date.UTC(2026, 6, 14, 9, 0, second);
    expect(out.samples).toEqual([
      { ref, time: time(44), utilizationPct: 38, memoryUsedMiB: 1024, powerW: 433.78 },
      { ref, time: time(45), powerW: 431.5 },
      { ref, time: time(46), memoryUsedMiB: 0, powerW: 69 },
      { ref, time: time(47), utilizationPct: 7, memoryUsedMiB: 5, powerW: 70 },
      { ref, time: time(48), utilizationPct: 7, powerW: -12.25 },
    ]);
    expect(out.warnings).toEqual([{ location: 'line 6', message: 'memory.used [MiB]: cannot read "5 GiB"; value skipped' }]);
  });

  it('takes the first readable value of a power field printed twice, and the preferred field over the others', async () => {
    const header = 'timestamp, uuid, power.draw.instant [W], power.draw [W], power.draw [W], power.draw.average [W]';
    const rows = [
      `2026/07/14 09:00:44.000, ${UUID_A}, 1 W, 2 W, 3 W, 4 W`, // power.draw, the first one
      `2026/07/14 09:00:45.000, ${UUID_A}, 1 W, [N/A], 3 W, 4 W`, // the second power.draw, readable
      `2026/07/14 09:00:46.000, ${UUID_A}, 1 W, [N/A], [N/A], 4 W`, // the average
      `2026/07/14 09:00:47.000, ${UUID_A}, 1 W, [N/A], [N/A], [N/A]`, // the instant reading
      `2026/07/14 09:00:48.000, ${UUID_A}, 1 W, bad, 3 W, 4 W`, // unreadable first: warned, the second counts
    ];
    const out = await parse(`${[header, ...rows].join('\n')}\n`);
    expect(out.samples.map((sample) => sample.powerW)).toEqual([2, 3, 4, 1, 3]);
    expect(out.warnings).toEqual([{ location: 'line 6', message: 'power.draw [W]: cannot read "bad"; value skipped' }]);
  });
});
