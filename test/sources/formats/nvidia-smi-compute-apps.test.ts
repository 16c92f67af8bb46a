import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { nvidiaSmiComputeApps } from '../../../src/sources/formats/nvidia-smi-compute-apps.js';
import type { SourceContext } from '../../../src/sources/types.js';
import { InputError } from '../../../src/support/errors.js';
import { RecordingSink, chunked } from '../../helpers/sink.js';

const context: SourceContext = { ref: 'apps.csv', host: 'node-1', timeZone: 'UTC' };

async function parse(text: string, sizes?: number[]) {
  const sink = new RecordingSink();
  const result = await nvidiaSmiComputeApps.parse(chunked(text, sizes), context, sink);
  return { ...result, ...sink };
}

const HEADER = 'timestamp, gpu_name, gpu_bus_id, gpu_serial, gpu_uuid, pid, process_name, used_gpu_memory [MiB]';
const UUID = 'GPU-df6e7a7c-7314-46f8-abc4-b88b36dcf3aa';
const GPU = { host: 'node-1', uuid: UUID, pciBusId: '00000000:00:09.0' };

const LINUX = [
  HEADER,
  `2026/07/14 09:00:44.742, NVIDIA H100 80GB HBM3, 00000000:00:09.0, 1654922007836, ${UUID}, 21180, /root/tools/memhog, 2296 MiB`,
  `2026/07/14 09:00:44.742, NVIDIA H100 80GB HBM3, 00000000:00:09.0, 1654922007836, ${UUID}, 21198, ./gpu_burn, 7484 MiB`,
  '',
].join('\n');

describe('nvidia-smi --query-compute-apps CSV', () => {
  it('reads one process per row, on the GPU named by gpu_uuid and gpu_bus_id', async () => {
    const out = await parse(LINUX);
    expect(out.records).toBe(2);
    // 2026/07/14 09:00:44.742 read in UTC
    const time = Date.UTC(2026, 6, 14, 9, 0, 44, 742);
    expect(out.processes).toEqual([
      { ref: GPU, time, pid: 21180, name: '/root/tools/memhog', usedMemoryMiB: 2296 },
      { ref: GPU, time, pid: 21198, name: './gpu_burn', usedMemoryMiB: 7484 },
    ]);
    expect(out.devices).toEqual([{ ref: GPU, model: 'NVIDIA H100 80GB HBM3' }]);
    expect(out.samples).toEqual([]);
    expect(out.warnings).toEqual([]);
  });

  it('leaves memory unset where Windows (WDDM) prints [N/A], and keeps paths with spaces whole', async () => {
    const out = await parse([
      HEADER,
      `2026/06/22 23:04:33.535, NVIDIA GeForce RTX 2080 SUPER, 00000000:0C:00.0, [N/A], ${UUID}, 20372, C:\\Program Files\\NZXT CAM\\NZXT CAM.exe, [N/A]`,
    ].join('\r\n'));
    expect(out.processes).toEqual([{
      ref: { host: 'node-1', uuid: UUID, pciBusId: '00000000:0C:00.0' },
      time: Date.UTC(2026, 5, 22, 23, 4, 33, 535),
      pid: 20372,
      name: 'C:\\Program Files\\NZXT CAM\\NZXT CAM.exe',
    }]);
  });

  it('reads a header-only file (an idle GPU) as a valid input with no processes', async () => {
    const out = await parse(`${HEADER}\n`);
    expect(out).toMatchObject({ records: 0, processes: [], devices: [], warnings: [] });
  });

  it('reads the name and used_memory aliases, and values printed with nounits', async () => {
    const out = await parse(`pid, name, used_memory [MiB]\n4242, python3, 1024\n`);
    expect(out.processes).toEqual([{ ref: { host: 'node-1' }, pid: 4242, name: 'python3', usedMemoryMiB: 1024 }]);
  });

  it('keeps a process whose name nvidia-smi could not read, with an empty name', async () => {
    const out = await parse(`pid, process_name, used_gpu_memory [MiB]\n4242, [Insufficient Permissions], 1024 MiB\n`);
    expect(out.processes).toEqual([{ ref: { host: 'node-1' }, pid: 4242, name: '', usedMemoryMiB: 1024 }]);
  });

  it('skips rows without a readable pid, and rows with the wrong number of cells, with warnings', async () => {
    const out = await parse(`pid, process_name, used_gpu_memory [MiB]\n[N/A], a, 1 MiB\nabc, b, 2 MiB\n7, c\n8, d, 4 MiB\n`);
    expect(out.processes.map((process) => process.pid)).toEqual([8]);
    expect(out.records).toBe(1);
    expect(out.warnings).toEqual([
      { location: 'line 2', message: 'no pid in this row; row skipped' },
      { location: 'line 3', message: 'pid: cannot read "abc"; row skipped' },
      { location: 'line 4', message: '2 cells where the header has 3; row skipped' },
    ]);
  });

  it('gives identical output wherever the input is cut into chunks, with CRLF and BOM', async () => {
    const text = `\uFEFF${LINUX.replaceAll('\n', '\r\n')}`;
    const whole = await parse(LINUX);
    for (let cut = 1; cut < text.length; cut += 1) {
      expect(await parse(text, [cut, text.length])).toEqual(whole);
    }
  });

  it('refuses a table without pid, naming file and line', async () => {
    const error = await parse('timestamp, gpu_name, gpu_uuid\n').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputError);
    expect(error).toMatchObject({ file: 'apps.csv', location: 'line 1' });
  });

  describe('detect', () => {
    it('claims a header with pid and a process field', () => {
      expect(nvidiaSmiComputeApps.detect(`${HEADER}\n`)).toBe(true);
      expect(nvidiaSmiComputeApps.detect('\uFEFFpid, used_memory [MiB]\r\n')).toBe(true);
      expect(nvidiaSmiComputeApps.detect('pid, process_name\n')).toBe(true);
    });

    it('leaves --query-gpu, --query-accounted-apps and other inputs alone', () => {
      for (const head of [
        'timestamp, name, uuid, memory.used [MiB]\n',
        'timestamp, gpu_name, gpu_bus_id, gpu_serial, gpu_uuid, pid, gpu_utilization [%], mem_utilization [%], max_memory_usage [MiB], time [ms]\n',
        '# gpu         pid   type     sm    mem    command\n',
        'pid, user, rss\n',
        '12444, C:\\Windows\\explorer.exe, [N/A]\n',
      ]) {
        expect(nvidiaSmiComputeApps.detect(head), head).toBe(false);
      }
      fc.assert(fc.property(fc.string({ maxLength: 200 }), (head) => {
        expect(nvidiaSmiComputeApps.detect(head)).toBe(false);
      }));
    });
  });
});
