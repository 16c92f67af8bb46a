import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { nvidiaSmiPmon } from '../../../src/sources/formats/nvidia-smi-pmon.js';
import type { SourceContext } from '../../../src/sources/types.js';
import { InputError } from '../../../src/support/errors.js';
import { RecordingSink, chunked } from '../../helpers/sink.js';

const context: SourceContext = { ref: 'pmon.txt', host: 'node-1', timeZone: 'UTC' };

async function parse(text: string, sizes?: number[]) {
  const sink = new RecordingSink();
  const result = await nvidiaSmiPmon.parse(chunked(text, sizes), context, sink);
  return { ...result, ...sink };
}

const GPU0 = { host: 'node-1', index: 0 };
const GPU1 = { host: 'node-1', index: 1 };

/** `nvidia-smi pmon -c 1` on two GPUs, driver 590: one busy, one idle (a row of dashes). */
const PMON_590 = [
  '# gpu         pid   type     sm    mem    enc    dec    jpg    ofa    command ',
  '# Idx           #    C/G      %      %      %      %      %      %    name ',
  '    0       1696     G      -      -      -      -      -      -    gnome-shell    ',
  '    0       5267     C      7      3     99      -      -      -    ffmpeg         ',
  '    0      15964   C+G      -      -      -      -      -      -    NVIDIA Overlay.',
  '    1          -     -      -      -      -      -      -      -    -              ',
  '',
].join('\n');

describe('nvidia-smi pmon', () => {
  it('reads one process per row with its type, SM share and (truncated) command; an idle GPU gives none', async () => {
    const out = await parse(PMON_590);
    expect(out.records).toBe(4);
    expect(out.processes).toEqual([
      { ref: GPU0, pid: 1696, name: 'gnome-shell', type: 'G' },
      // pmon's `mem` is bandwidth utilization, not memory held: not read as usedMemoryMiB.
      { ref: GPU0, pid: 5267, name: 'ffmpeg', type: 'C', smPct: 7 },
      { ref: GPU0, pid: 15964, name: 'NVIDIA Overlay.', type: 'C+G' },
    ]);
    expect(out.devices).toEqual([{ ref: GPU0 }, { ref: GPU1 }]);
    expect(out.warnings).toEqual([]);
  });

  it('reads fb as the memory a process holds, following the last of two header pairs (-s mu on older drivers)', async () => {
    const out = await parse([
      '# gpu        pid  type    sm   mem   enc   dec   command',
      '# Idx          #   C/G     %     %     %     %   name',
      '# gpu        pid  type    fb    sm   mem   enc   dec   command',
      '# Idx          #   C/G    MB     %     %     %     %   name',
      '    0     447153     C  7669     -     -     -     -   python3.9      ',
      '    0     447160     C 11057    42     -     -     -   python3.9      ',
    ].join('\n'));
    expect(out.processes).toEqual([
      { ref: GPU0, pid: 447153, name: 'python3.9', type: 'C', usedMemoryMiB: 7669 },
      { ref: GPU0, pid: 447160, name: 'python3.9', type: 'C', usedMemoryMiB: 11057, smPct: 42 },
    ]);
  });

  it('reads -o DT dates and times', async () => {
    const out = await parse([
      '#Date       Time        gpu        pid  type    fb   command',
      '#YYYYMMDD   HH:MM:SS    Idx          #   C/G    MB   name',
      ' 20240104   13:54:35      0       1234     C   512   llama-server',
    ].join('\n'));
    // 2024-01-04 13:54:35 read in UTC
    expect(out.processes).toEqual([{ ref: GPU0, time: Date.UTC(2024, 0, 4, 13, 54, 35), pid: 1234, name: 'llama-server', type: 'C', usedMemoryMiB: 512 }]);
  });

  it('leaves the type unset for kinds the model does not name (MPS clients)', async () => {
    const out = await parse('# gpu  pid  type  command\n    0  77  M+C  python\n');
    expect(out.processes).toEqual([{ ref: GPU0, pid: 77, name: 'python' }]);
  });

  it('skips rows it cannot read, with warnings naming their lines', async () => {
    const out = await parse('# gpu  pid  type  sm  command\n    0  abc  C  5  x\n    0  12  C\n    0  13  C  5  y\n');
    expect(out.processes.map((process) => process.pid)).toEqual([13]);
    expect(out.warnings).toEqual([
      { location: 'line 2', message: 'pid: cannot read "abc"; row skipped' },
      { location: 'line 3', message: '3 fields where the header has 5; row skipped' },
    ]);
  });

  it('gives identical output wherever the input is cut into chunks, with CRLF and BOM', async () => {
    const text = `\uFEFF${PMON_590.replaceAll('\n', '\r\n')}`;
    const whole = await parse(PMON_590);
    for (let cut = 1; cut < text.length; cut += 1) {
      expect(await parse(text, [cut, text.length])).toEqual(whole);
    }
  });

  it('refuses data without a header, naming file and line', async () => {
    const error = await parse('    0       1696     G      -    gnome-shell\n').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputError);
    expect(error).toMatchObject({ file: 'pmon.txt', location: 'line 1' });
  });

  describe('detect', () => {
    it('claims pmon headers', () => {
      expect(nvidiaSmiPmon.detect(PMON_590)).toBe(true);
      expect(nvidiaSmiPmon.detect('#Date       Time        gpu        pid  type    fb   command\n')).toBe(true);
    });

    it('leaves dmon and other inputs alone', () => {
      for (const head of ['# gpu    pwr  gtemp\n', '# HELP x\n', 'pid, process_name\n', '<?xml version="1.0" ?>\n']) {
        expect(nvidiaSmiPmon.detect(head), head).toBe(false);
      }
      fc.assert(fc.property(fc.string({ maxLength: 200 }), (head) => {
        expect(nvidiaSmiPmon.detect(head)).toBe(false);
      }));
    });
  });
});
