import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { nvidiaSmiDmon } from '../../../src/sources/formats/nvidia-smi-dmon.js';
import type { SourceContext } from '../../../src/sources/types.js';
import { InputError } from '../../../src/support/errors.js';
import { RecordingSink, chunked } from '../../helpers/sink.js';

const context: SourceContext = { ref: 'dmon.txt', host: 'node-1', timeZone: 'UTC' };

async function parse(text: string, sizes?: number[]) {
  const sink = new RecordingSink();
  const result = await nvidiaSmiDmon.parse(chunked(text, sizes), context, sink);
  return { ...result, ...sink };
}

const GPU0 = { host: 'node-1', index: 0 };
const GPU1 = { host: 'node-1', index: 1 };

/** `nvidia-smi dmon -c 2` on two GPUs, driver 590 (jpg and ofa columns). */
const DEFAULT_590 = [
  '# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk ',
  '# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz ',
  '    0    630     53     41    100      8      0      0      0      0   3201   1980 ',
  '    1     77     30     29      0      0      0      0      0      0   3201    345 ',
  '    0    628     53     42     97      7      0      0      0      0   3201   1980 ',
  '    1     78     30     29      -      -      -      -      -      -   3201    345 ',
  '',
].join('\n');

describe('nvidia-smi dmon', () => {
  it('reads sm as utilization, mem as memory utilization and pwr as power, per GPU index, without time', async () => {
    const out = await parse(DEFAULT_590);
    expect(out.records).toBe(4);
    expect(out.samples).toEqual([
      { ref: GPU0, utilizationPct: 100, memoryUtilizationPct: 8, powerW: 630 },
      { ref: GPU1, utilizationPct: 0, memoryUtilizationPct: 0, powerW: 77 },
      { ref: GPU0, utilizationPct: 97, memoryUtilizationPct: 7, powerW: 628 },
      // `-` (unavailable, as under MIG) is no value, never 0.
      { ref: GPU1, powerW: 78 },
    ]);
    expect(out.devices).toEqual([{ ref: GPU0 }, { ref: GPU1 }]);
    expect(out.warnings).toEqual([]);
  });

  it('reads columns by name, so older drivers without jpg/ofa read the same', async () => {
    const out = await parse([
      '# gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk',
      '# Idx     W     C     C     %     %     %     %   MHz   MHz',
      '    0    37    19     -    45    12     0     0  5000  1590',
    ].join('\n'));
    expect(out.samples).toEqual([{ ref: GPU0, utilizationPct: 45, memoryUtilizationPct: 12, powerW: 37 }]);
  });

  it('reads -o DT dates and times, fb as MiB and PCIe MB/s as KiB/s', async () => {
    // Real shape of `nvidia-smi dmon -s mutc -o TD` (driver 535).
    const out = await parse([
      '#Date       Time        gpu     fb   bar1   ccpm     sm    mem    enc    dec    jpg    ofa  rxpci  txpci   mclk   pclk ',
      '#YYYYMMDD   HH:MM:SS    Idx     MB     MB     MB      %      %      %      %      %      %   MB/s   MB/s    MHz    MHz ',
      ' 20240104   13:54:35      0    239      3      0      6      1      0      0      0      0      5     10   6250   1695 ',
      '',
      ' 20240104   13:54:36      0     74     10      0      0      0      0      0      0      0    217    677   6250   1695 ',
    ].join('\n'));
    expect(out.samples).toEqual([
      // rx 5 MB/s x 1024 = 5120 KiB/s; tx 10 x 1024 = 10240
      { ref: GPU0, time: Date.UTC(2024, 0, 4, 13, 54, 35), memoryUsedMiB: 239, utilizationPct: 6, memoryUtilizationPct: 1, pcieRxKiBps: 5120, pcieTxKiBps: 10240 },
      // rx 217 x 1024 = 222208; tx 677 x 1024 = 693248
      { ref: GPU0, time: Date.UTC(2024, 0, 4, 13, 54, 36), memoryUsedMiB: 74, utilizationPct: 0, memoryUtilizationPct: 0, pcieRxKiBps: 222208, pcieTxKiBps: 693248 },
    ]);
  });

  it('follows the header where a long run prints it again', async () => {
    const out = await parse([
      '# gpu    pwr     sm', '# Idx      W      %', '    0    100     50',
      '# gpu    pwr     sm', '# Idx      W      %', '    0    101     51',
      '# gpu     sm    pwr', '# Idx      %      W', '    0     52    102',
    ].join('\n'));
    expect(out.samples.map((sample) => [sample.utilizationPct, sample.powerW])).toEqual([[50, 100], [51, 101], [52, 102]]);
  });

  it('ignores a known column whose unit is not the expected one, with a warning', async () => {
    const out = await parse('# gpu     fb     sm\n# Idx    GiB      %\n    0      3     50\n');
    expect(out.samples).toEqual([{ ref: GPU0, utilizationPct: 50 }]);
    expect(out.warnings).toEqual([{ location: 'line 2', message: 'column fb is in GiB, expected MB; column ignored' }]);
  });

  it('leaves out an sm above 100 with a warning naming the line', async () => {
    const out = await parse('# gpu     sm\n# Idx      %\n    0    150\n    0     40\n');
    expect(out.samples).toEqual([{ ref: GPU0, utilizationPct: undefined }, { ref: GPU0, utilizationPct: 40 }]);
    expect(out.warnings).toEqual([{ location: 'line 3', message: 'GPU utilization 150 is outside 0-100 %; value left out' }]);
  });

  it('says that -o T alone gives no timestamps', async () => {
    const out = await parse('#Time        gpu     sm\n#HH:MM:SS    Idx      %\n 13:54:35      0     50\n');
    expect(out.samples).toEqual([{ ref: GPU0, utilizationPct: 50 }]);
    expect(out.warnings).toEqual([{ location: 'line 1', message: expect.stringMatching(/Time column without Date/) }]);
  });

  it('skips rows it cannot read, with warnings naming their lines', async () => {
    const out = await parse([
      '#Date       Time        gpu     sm    pwr',
      ' 20240104   13:54:35      0     50    100',
      ' 20240104   13:54:36      0     50',
      ' 20240104   13:54:37      x     50    100',
      ' 20241304   13:54:38      0     50    100',
      ' 20240104   13:54:39      0    abc    100',
    ].join('\n'));
    expect(out.samples.map((sample) => sample.time)).toEqual([Date.UTC(2024, 0, 4, 13, 54, 35), Date.UTC(2024, 0, 4, 13, 54, 39)]);
    expect(out.samples[1]).toEqual({ ref: GPU0, time: Date.UTC(2024, 0, 4, 13, 54, 39), powerW: 100 });
    expect(out.warnings).toEqual([
      { location: 'line 3', message: '4 fields where the header has 5; row skipped' },
      { location: 'line 4', message: 'gpu: cannot read "x" as a GPU index; row skipped' },
      { location: 'line 5', message: 'cannot read the date and time "20241304 13:54:38"; row skipped' },
      { location: 'line 6', message: 'sm: cannot read "abc"; value skipped' },
    ]);
  });

  it('gives identical output wherever the input is cut into chunks, with CRLF and BOM', async () => {
    const text = `\uFEFF${DEFAULT_590.replaceAll('\n', '\r\n')}`;
    const whole = await parse(DEFAULT_590);
    for (let cut = 1; cut < text.length; cut += 1) {
      expect(await parse(text, [cut, text.length])).toEqual(whole);
    }
  });

  it('refuses data without a header, and an input with no header at all', async () => {
    const before = await parse('    0    630     53\n').catch((caught: unknown) => caught);
    expect(before).toBeInstanceOf(InputError);
    expect(before).toMatchObject({ file: 'dmon.txt', location: 'line 1' });
    await expect(parse('\n\n')).rejects.toMatchObject({ name: 'InputError', file: 'dmon.txt' });
  });

  describe('detect', () => {
    it('claims dmon headers, with or without Date/Time columns', () => {
      expect(nvidiaSmiDmon.detect(DEFAULT_590)).toBe(true);
      expect(nvidiaSmiDmon.detect('\uFEFF#Date       Time        gpu     fb\r\n#YYYYMMDD   HH:MM:SS    Idx     MB\r\n')).toBe(true);
    });

    it('leaves pmon, dcgmi dmon, Prometheus text and CSV alone', () => {
      for (const head of [
        '# gpu         pid   type     sm    mem    enc    dec    command\n',
        '#Entity   NVLTX   NVLRX   PCITX   PCIRX\nID\nGPU 0   N/A   N/A\n',
        '# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n',
        'index, utilization.gpu [%]\n',
        `${'#'.repeat(80)}\n# nvidia_gpu_exporter GPU capture\n`,
      ]) {
        expect(nvidiaSmiDmon.detect(head), head).toBe(false);
      }
      fc.assert(fc.property(fc.string({ maxLength: 200 }), (head) => {
        expect(nvidiaSmiDmon.detect(head)).toBe(false);
      }));
    });
  });
});
