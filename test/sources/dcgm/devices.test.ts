import { describe, expect, it } from 'vitest';
import { DcgmDevices } from '../../../src/sources/dcgm/devices.js';
import { readSeriesLabels } from '../../../src/sources/dcgm/labels.js';
import type { SeriesDevice } from '../../../src/sources/dcgm/labels.js';
import { RecordingSink } from '../../helpers/sink.js';

function device(labels: Record<string, string>): SeriesDevice {
  return readSeriesLabels(new Map(Object.entries(labels)), 'file-host')!.device;
}

describe('DcgmDevices', () => {
  it('hands out one frozen ref per device', () => {
    const devices = new DcgmDevices(new RecordingSink());
    const first = devices.seen(device({ UUID: 'GPU-1', gpu: '0' }), undefined);
    const again = devices.seen(device({ gpu: '0', UUID: 'GPU-1' }), undefined);
    expect(again).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('sends inventory when it is new, fills a gap or changes, not when a derived total wobbles', () => {
    const sink = new RecordingSink();
    const devices = new DcgmDevices(sink);
    const ref = { host: 'file-host', uuid: 'GPU-1' };
    devices.seen(device({ UUID: 'GPU-1' }), undefined);
    devices.seen(device({ UUID: 'GPU-1' }), 15358);
    devices.seen(device({ UUID: 'GPU-1' }), 15359);
    devices.seen(device({ UUID: 'GPU-1', modelName: 'Tesla T4' }), 15358);
    devices.seen(device({ UUID: 'GPU-1', modelName: 'Tesla T4' }), 15358);
    devices.seen(device({ UUID: 'GPU-1', modelName: 'Tesla T4', DCGM_FI_DRIVER_VERSION: '590.48.01' }), 15358);
    expect(sink.devices).toEqual([
      { ref },
      { ref, memoryTotalMiB: 15358 },
      { ref, memoryTotalMiB: 15358, model: 'Tesla T4' },
      { ref, memoryTotalMiB: 15358, model: 'Tesla T4', driverVersion: '590.48.01' },
    ]);
  });
});
