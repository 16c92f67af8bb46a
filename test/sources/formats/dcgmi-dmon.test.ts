import { describe, expect, it } from 'vitest';
import { dcgmiDmon } from '../../../src/sources/formats/dcgmi-dmon.js';
import { parseWith } from '../../helpers/parse.js';

// Column layout as DCGM 3.x prints it: entity 8 + 2 padding, then (width + 6) + 2 per field.
const RUN = [
  '#Entity   GPUTL         FBUSD               SMACT         TENSO         PCITX                       PCIRX        ',
  'ID                                                                                                             ',
  'GPU 1     N/A           N/A                 N/A           N/A           N/A                         N/A          ',
  'GPU 0     N/A           N/A                 N/A           N/A           N/A                         N/A          ',
  'GPU 1     97            40511               0.812         0.403         498948                      1555         ',
  'GPU 0     0             4                   0.000         0.000         2048                        1024         ',
  '',
].join('\n');

describe('dcgmi-dmon detect', () => {
  it('claims a dmon run by its #Entity header', () => {
    expect(dcgmiDmon.detect(RUN)).toBe(true);
    expect(dcgmiDmon.detect('#Entity   NVLTX                       NVLRX\nID\n')).toBe(true);
  });

  it.each([
    ['dcgmi dmon -l', '___________________\nLong Name       Short Name          Field ID\n___________________\ndriver_version  DRVER  1\n'],
    ['dcgmi -v', '> dcgmi -v\n\nVersion : 3.1.8\nBuild ID : 8\n'],
    ['nvidia-smi dmon', '# gpu    pwr  gtemp  mtemp     sm    mem\n# Idx      W      C      C      %      %\n    0     70     40      -      5      1\n'],
    ['dcgmi discovery -l', '8 GPUs found.\n+--------+---------+\n'],
  ])('does not claim %s', (_name, head) => {
    expect(dcgmiDmon.detect(head)).toBe(false);
  });
});

describe('dcgmi-dmon parse', () => {
  it('maps short-name columns through the DCGM field table, one point sample per GPU row', async () => {
    const { sink, result } = await parseWith(dcgmiDmon, RUN, undefined, { host: 'h800-1' });
    expect(result.records).toBe(4);
    expect(sink.samples).toEqual([
      // SMACT 0.812 x 100 = 81.2 %, TENSO 0.403 x 100 = 40.3 %; PCITX 498948 / 1024 = 487.25390625 KiB/s, PCIRX 1555 / 1024 = 1.5185546875
      { ref: { host: 'h800-1', index: 1 }, utilizationPct: 97, memoryUsedMiB: 40511, smActivePct: expect.closeTo(81.2, 10), tensorActivePct: expect.closeTo(40.3, 10), pcieTxKiBps: 487.25390625, pcieRxKiBps: 1.5185546875 },
      { ref: { host: 'h800-1', index: 0 }, utilizationPct: 0, memoryUsedMiB: 4, smActivePct: 0, tensorActivePct: 0, pcieTxKiBps: 2, pcieRxKiBps: 1 },
    ]);
    expect(sink.samples.every((sample) => sample.time === undefined)).toBe(true);
    // GPUs in the order dmon first printed them; N/A warm-up rows give no sample.
    expect(sink.devices).toEqual([{ ref: { host: 'h800-1', index: 1 } }, { ref: { host: 'h800-1', index: 0 } }]);
    expect(sink.warnings).toEqual([]);
  });

  it('derives the framebuffer total from FBUSD, FBFRE and FBRSV', async () => {
    const text = [
      '#Entity   FBUSD               FBFRE               FBRSV               POWER',
      'ID                                                                    W',
      'GPU 0     1024                79000               535                 312.118',
    ].join('\n');
    const { sink } = await parseWith(dcgmiDmon, text);
    // 1024 + 79000 + 535 = 80559 MiB
    expect(sink.samples).toEqual([{ ref: { host: 'file-host', index: 0 }, memoryUsedMiB: 1024, memoryTotalMiB: 80559, powerW: 312.118 }]);
  });

  it('cuts cells at the header positions when a field is missing for an entity', async () => {
    const text = [
      '#Entity   GPUTL         FBUSD               PCITX',
      'ID',
      'GPU 0                   512                 4096',
    ].join('\n');
    const { sink } = await parseWith(dcgmiDmon, text);
    expect(sink.samples).toEqual([{ ref: { host: 'file-host', index: 0 }, memoryUsedMiB: 512, pcieTxKiBps: 4 }]);
  });

  it('reads on after a repeated header, and tolerates a trailing "..." with a warning', async () => {
    const text = [
      '#Entity   GPUTL',
      'ID',
      'GPU 0     10',
      '#Entity   GPUTL',
      'ID',
      'GPU 0     20',
      '...',
    ].join('\n');
    const { sink, result } = await parseWith(dcgmiDmon, text);
    expect(result.records).toBe(2);
    expect(sink.samples.map((sample) => sample.utilizationPct)).toEqual([10, 20]);
    expect(sink.warnings).toEqual([{ location: 'line 7', message: 'skipped "...": not a dcgmi dmon row' }]);
  });

  it('skips rows of MIG instances and links once-warned, and says when no column is one it reads', async () => {
    const text = [
      '#Entity           NVLTX                       NVLRX',
      'ID',
      'GPU 0             100                         200',
      'GPU-I 7           5                           6',
      'GPU-I 8           5                           6',
      'GPU 0 LINK 3      1                           2',
    ].join('\n');
    const { sink, result } = await parseWith(dcgmiDmon, text);
    expect(result.records).toBe(1);
    expect(sink.samples).toEqual([]);
    expect(sink.devices).toEqual([{ ref: { host: 'file-host', index: 0 } }]);
    expect(sink.warnings).toEqual([
      { location: 'line 1', message: 'no column here is a figure gpu-audit reads (columns NVLTX, NVLRX; it reads GPUTL, MCUTL, FBTTL, FBFRE, FBUSD, FBRSV, POWER, GRACT, SMACT, TENSO, PCITX, PCIRX, TXTPT, RXTPT): rows give no samples' },
      { location: 'line 4', message: 'rows of GPU-I entities skipped: only GPU rows map to devices' },
      { location: 'line 6', message: 'rows of GPU N LINK entities skipped: only GPU rows map to devices' },
    ]);
  });

  it('warns about a cell that is not a reading and keeps the row\'s other values', async () => {
    const { sink } = await parseWith(dcgmiDmon, '#Entity   GPUTL         FBUSD\nID\nGPU 0     busy          77\n');
    expect(sink.samples).toEqual([{ ref: { host: 'file-host', index: 0 }, memoryUsedMiB: 77 }]);
    expect(sink.warnings).toEqual([{ location: 'line 3', message: 'GPUTL value "busy" is not a reading of this field; left out' }]);
  });

  it('leaves out a reading outside its domain with the line, and reads NVML\'s sentinel as no value', async () => {
    const { sink } = await parseWith(dcgmiDmon, '#Entity   GPUTL    SMACT    FBUSD\nID\nGPU 0     150      0.5      4294967295\n');
    expect(sink.samples).toEqual([{ ref: { host: 'file-host', index: 0 }, smActivePct: 50 }]);
    expect(sink.warnings).toEqual([{ location: 'line 3', message: 'GPUTL value "150" is outside 0-100 %; value left out' }]);
  });

  it('gives the same observations wherever the chunks are cut', async () => {
    const whole = await parseWith(dcgmiDmon, RUN);
    for (let cut = 1; cut < RUN.length; cut += 1) {
      expect((await parseWith(dcgmiDmon, RUN, [cut, RUN.length])).sink, `cut at ${cut}`).toEqual(whole.sink);
    }
  });
});
