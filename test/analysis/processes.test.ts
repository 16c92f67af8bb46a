import { describe, expect, it } from 'vitest';
import { analyze, gpu0, only } from './events.js';

describe('processes of a device', () => {
  const gpu = only(analyze([{ source: 'nvidia-smi.xml', run: (sink) => {
    // three documents: vllm grows from 20 GiB to 30 GiB; a Windows process never reports memory (WDDM N/A)
    sink.process({ ref: gpu0, pid: 100, name: '/usr/bin/python3', type: 'C', usedMemoryMiB: 20480 });
    sink.process({ ref: gpu0, pid: 100, name: '/usr/bin/python3', type: 'C', usedMemoryMiB: 30720 });
    sink.process({ ref: gpu0, pid: 100, name: '/usr/bin/python3', type: 'G', usedMemoryMiB: 25000 });
    sink.process({ ref: gpu0, pid: 7, name: 'C:\\Windows\\System32\\dwm.exe', type: 'G' });
    sink.process({ ref: gpu0, pid: 7, name: 'C:\\Windows\\System32\\dwm.exe', type: 'G' });
    // pid 100 reused by another program: a different process
    sink.process({ ref: gpu0, pid: 100, name: 'ffmpeg', type: 'C', usedMemoryMiB: 512 });
  } }]).gpus);

  it('are keyed by pid and name, with their largest memory and how often they were seen', () => {
    expect(gpu.processes).toEqual([
      { pid: 100, name: '/usr/bin/python3', type: 'C+G', maxMemoryMiB: 30720, samples: 3 },
      { pid: 100, name: 'ffmpeg', type: 'C', maxMemoryMiB: 512, samples: 1 },
      { pid: 7, name: 'C:\\Windows\\System32\\dwm.exe', type: 'G', maxMemoryMiB: null, samples: 2 },
    ]);
  });
});
