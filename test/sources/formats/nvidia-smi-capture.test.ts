import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isRuleLine, nvidiaSmiCapture } from '../../../src/sources/formats/nvidia-smi-capture.js';
import type { SourceContext } from '../../../src/sources/types.js';
import { InputError } from '../../../src/support/errors.js';
import { RecordingSink, chunked } from '../../helpers/sink.js';

const context: SourceContext = { ref: 'capture.txt', host: 'node-1', timeZone: 'UTC' };

async function parse(text: string, sizes?: number[]) {
  const sink = new RecordingSink();
  const result = await nvidiaSmiCapture.parse(chunked(text, sizes), context, sink);
  return { ...result, ...sink };
}

const RULE = '#'.repeat(80);
const UUID = 'GPU-00000000-0000-0000-0000-000000000000';
const GPU = { host: 'node-1', uuid: UUID, pciBusId: '00000000:00:09.0' };

function section(title: string, command: string | undefined, body: string[]): string[] {
  return [RULE, `# ${title}`, ...(command === undefined ? [] : [`# $ ${command}`]), RULE, ...body, '', ''];
}

/** A cut-down capture with the same section layout as nvidia_gpu_exporter's. */
const CAPTURE = [
  RULE, '# nvidia_gpu_exporter GPU capture', RULE,
  'collected_at:   2026-07-14T09:00:26Z', 'masked:         yes', '', '',
  ...section('capabilities :: help-query-gpu', 'nvidia-smi --help-query-gpu', [
    'List of valid properties to query for the switch "--query-gpu":', '', '"utilization.gpu"', 'Percent of time ...',
  ]),
  ...section('idle :: nvidia-smi (default table)', 'nvidia-smi ', ['|   0  NVIDIA H100 80GB HBM3          On  |   00000000:00:09.0 Off |']),
  ...section('load :: query-gpu (csv, what the exporter parses)', 'nvidia-smi --query-gpu=timestamp,name,uuid,pci.bus_id,memory.used,utilization.gpu --format=csv', [
    'timestamp, name, uuid, pci.bus_id, memory.used [MiB], utilization.gpu [%]',
    `2026/07/14 09:00:44.579, NVIDIA H100 80GB HBM3, ${UUID}, 00000000:00:09.0, 11125 MiB, [N/A]`,
  ]),
  ...section('load :: query-compute-apps (per-process)', 'nvidia-smi --query-compute-apps=timestamp,gpu_uuid,gpu_bus_id,pid,process_name,used_gpu_memory --format=csv', [
    'timestamp, gpu_uuid, gpu_bus_id, pid, process_name, used_gpu_memory [MiB]',
    `2026/07/14 09:00:44.742, ${UUID}, 00000000:00:09.0, 21180, /root/tools/memhog, 2296 MiB`,
  ]),
  ...section('load :: query-accounted-apps', 'nvidia-smi --query-accounted-apps=timestamp,pid,gpu_util --format=csv', [
    'timestamp, pid, gpu_utilization [%]', '2026/07/14 09:00:44.800, 21180, 100 %',
  ]),
  ...section('load :: pmon (per-process monitor)', 'nvidia-smi pmon -c 1', [
    '# gpu         pid   type     sm    mem    command ', '# Idx           #    C/G      %      %    name ', '    0      21180     C      -      -    memhog   ',
  ]),
  ...section('load :: dmon (per-device monitor, incl. PCIe rx/tx)', 'nvidia-smi dmon -c 1', [
    '# gpu    pwr     sm    mem ', '# Idx      W      %      % ', '    0    438      -      - ',
  ]),
  ...section('capabilities :: query-gpu field list (derived, used for query-gpu above)', undefined, ['timestamp', 'name']),
].join('\n');

describe('nvidia_gpu_exporter capture files', () => {
  it('reads only the --query-gpu and --query-compute-apps CSV sections', async () => {
    const out = await parse(CAPTURE);
    // One query-gpu row and one compute-apps row; dmon, pmon, accounted-apps and text sections are not read.
    expect(out.records).toBe(2);
    expect(out.samples).toEqual([{ ref: GPU, time: Date.UTC(2026, 6, 14, 9, 0, 44, 579), memoryUsedMiB: 11125 }]);
    expect(out.processes).toEqual([{ ref: GPU, time: Date.UTC(2026, 6, 14, 9, 0, 44, 742), pid: 21180, name: '/root/tools/memhog', usedMemoryMiB: 2296 }]);
    expect(out.devices).toEqual([{ ref: GPU, model: 'NVIDIA H100 80GB HBM3' }, { ref: GPU }]);
    expect(out.warnings).toEqual([]);
  });

  it('reads a header-only compute-apps section (an idle GPU) as no processes', async () => {
    const text = [...section('idle :: query-compute-apps (per-process)', 'nvidia-smi --query-compute-apps=pid,process_name,used_gpu_memory --format=csv', [
      'pid, process_name, used_gpu_memory [MiB]',
    ])].join('\n');
    expect(await parse(text)).toMatchObject({ records: 0, processes: [], warnings: [] });
  });

  it('warns about a CSV section it cannot read and goes on with the others', async () => {
    const text = [
      ...section('load :: query-gpu', 'nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader', ['0, 100 %']),
      ...section('load :: query-compute-apps', 'nvidia-smi --query-compute-apps=pid,used_gpu_memory --format=csv', []),
      ...section('load :: query-gpu', 'nvidia-smi --query-gpu=index,utilization.gpu --format=csv', ['index, utilization.gpu [%]', '0, 99 %']),
    ].join('\n');
    const out = await parse(text);
    expect(out.samples).toEqual([{ ref: { host: 'node-1', index: 0 }, utilizationPct: 99 }]);
    expect(out.warnings).toEqual([
      { location: 'line 5', message: expect.stringMatching(/^section "load :: query-gpu": .*noheader.*; section skipped$/) },
      { location: 'line 9', message: expect.stringMatching(/^section "load :: query-compute-apps": no --query-compute-apps CSV header/) },
    ]);
  });

  it('gives identical output wherever the input is cut into chunks, with CRLF and BOM', async () => {
    const whole = await parse(CAPTURE);
    const text = `\uFEFF${CAPTURE.replaceAll('\n', '\r\n')}`;
    expect(await parse(text)).toEqual(whole);
    for (let cut = 1; cut < text.length; cut += 7) {
      expect(await parse(text, [cut, text.length])).toEqual(whole);
    }
    await fc.assert(fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1, maxLength: 6 }), async (sizes) => {
      expect(await parse(text, sizes)).toEqual(whole);
    }), { numRuns: 30 });
  });

  it('refuses an input without section rules', async () => {
    const error = await parse('timestamp, name\n').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputError);
    expect(error).toMatchObject({ file: 'capture.txt', location: 'line 1' });
  });

  it('knows a rule line: exactly 80 #, trailing blanks allowed', () => {
    expect(isRuleLine(RULE)).toBe(true);
    expect(isRuleLine(`${RULE}  `)).toBe(true);
    expect(isRuleLine('#'.repeat(79))).toBe(false);
    expect(isRuleLine('#'.repeat(81))).toBe(false);
    expect(isRuleLine(`${'#'.repeat(40)} ${'#'.repeat(39)}`)).toBe(false);
  });

  describe('detect', () => {
    it('claims a file that opens with a rule and has titled, commanded sections', () => {
      expect(nvidiaSmiCapture.detect(CAPTURE)).toBe(true);
    });

    it('leaves other inputs alone', () => {
      for (const head of [
        `${RULE}\njust a banner\n${RULE}\n`,
        '# gpu    pwr\n# Idx      W\n',
        'timestamp, name, uuid, memory.used [MiB]\n',
        '# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n',
      ]) {
        expect(nvidiaSmiCapture.detect(head), head).toBe(false);
      }
      fc.assert(fc.property(fc.string({ maxLength: 200 }), (head) => {
        expect(nvidiaSmiCapture.detect(head)).toBe(false);
      }));
    });
  });
});
