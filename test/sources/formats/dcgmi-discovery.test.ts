import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/support/errors.js';
import { dcgmiDiscovery } from '../../../src/sources/formats/dcgmi-discovery.js';
import { parseWith } from '../../helpers/parse.js';

const TWO_GPUS = [
  '2 GPUs found.',
  '+--------+----------------------------------------------------------------------+',
  '| GPU ID | Device Information                                                   |',
  '+--------+----------------------------------------------------------------------+',
  '| 0      | Name: NVIDIA H800                                                    |',
  '|        | PCI Bus ID: 00000000:18:00.0                                         |',
  '|        | Device UUID: GPU-34bf77d1-c686-6821-79a8-32d326c5039c                |',
  '+--------+----------------------------------------------------------------------+',
  '| 1      | Name: <<<NULL>>>                                                     |',
  '|        | PCI Bus ID: 0000:3e:00.0                                             |',
  '|        | Device UUID: GPU-f5046fa5-3db4-45e8-870a-dc1376becaa5                |',
  '+--------+----------------------------------------------------------------------+',
  '0 NvSwitches found.',
  '+-----------+',
  '| Switch ID |',
  '+-----------+',
  '+-----------+',
  '',
].join('\n');

describe('dcgmi-discovery', () => {
  it('claims `dcgmi discovery -l` and nothing else of dcgmi', () => {
    expect(dcgmiDiscovery.detect(TWO_GPUS)).toBe(true);
    expect(dcgmiDiscovery.detect('1 GPU found (Active).\n+--------+\n')).toBe(true);
    expect(dcgmiDiscovery.detect('#Entity   GPUTL\nID\nGPU 0     1\n')).toBe(false);
    expect(dcgmiDiscovery.detect('> dcgmi -v\n\nVersion : 3.1.8\n')).toBe(false);
  });

  it('reads each GPU block as inventory without samples; DCGM\'s string blank is no name', async () => {
    const { sink, result } = await parseWith(dcgmiDiscovery, TWO_GPUS, undefined, { host: 'h800-1' });
    expect(result.records).toBe(2);
    expect(sink.devices).toEqual([
      { ref: { host: 'h800-1', index: 0, uuid: 'GPU-34bf77d1-c686-6821-79a8-32d326c5039c', pciBusId: '00000000:18:00.0' }, model: 'NVIDIA H800' },
      { ref: { host: 'h800-1', index: 1, uuid: 'GPU-f5046fa5-3db4-45e8-870a-dc1376becaa5', pciBusId: '00000000:3E:00.0' } },
    ]);
    expect(sink.samples).toEqual([]);
    expect(sink.warnings).toEqual([]);
  });

  it('reads the same GPUs whatever its chunks', async () => {
    expect((await parseWith(dcgmiDiscovery, TWO_GPUS, [3, 17])).sink).toEqual((await parseWith(dcgmiDiscovery, TWO_GPUS)).sink);
  });

  it('reads the newer layout: `(Active)` count, status lines and `(last known)` suffixes', async () => {
    const text = [
      '1 GPU found (All).',
      '+--------+----------------------------------------------------------------------+',
      '| GPU ID | Device Information                                                   |',
      '+--------+----------------------------------------------------------------------+',
      '| 4      | Status: Lost                                                         |',
      '|        | Name: NVIDIA H100 80GB HBM3 (last known)                             |',
      '|        | PCI Bus ID: 00000000:9D:00.0 (last known)                            |',
      '|        | Device UUID: GPU-9a8ef0b8-9816-459d-fa13-cda74cf19d37                |',
      '+--------+----------------------------------------------------------------------+',
    ].join('\n');
    const { sink } = await parseWith(dcgmiDiscovery, text);
    expect(sink.devices).toEqual([
      { ref: { host: 'file-host', index: 4, uuid: 'GPU-9a8ef0b8-9816-459d-fa13-cda74cf19d37', pciBusId: '00000000:9D:00.0' }, model: 'NVIDIA H100 80GB HBM3' },
    ]);
  });

  it('warns when fewer GPUs are read than announced, and skips a GPU dcgmi could not read', async () => {
    const text = [
      '2 GPUs found.',
      '+--------+----------------------------------------------------------------------+',
      '| 0      | Error: Cannot get device attributes for GPU.                         |',
      '|        | Return: Host engine connection invalid/disconnected                  |',
      '+--------+----------------------------------------------------------------------+',
    ].join('\n');
    const { sink, result } = await parseWith(dcgmiDiscovery, text);
    expect(result.records).toBe(0);
    expect(sink.warnings).toEqual([
      { location: 'line 3', message: 'GPU 0: dcgmi could not read it (Cannot get device attributes for GPU.); skipped' },
      { location: 'line 1', message: 'dcgmi announced 2 GPUs, 0 were read' },
    ]);
  });

  it('refuses text without the GPU count line', async () => {
    await expect(parseWith(dcgmiDiscovery, 'hello\n')).rejects.toThrow(InputError);
  });
});
