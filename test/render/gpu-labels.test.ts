import { describe, expect, it } from 'vitest';
import type { GpuEntry } from '../../src/model/report.js';
import { gpuNames, gpuRows, processDisplayName, shortModelName } from '../../src/render/gpu-labels.js';
import { A10G_ID, H100_MIG_PARENT_ID, H100_WHOLE_ID, SMALL_FLEET } from '../fixtures/reports/small-fleet.js';

const byId = (id: string): GpuEntry => SMALL_FLEET.gpus.find((gpu) => gpu.id === id)!;

describe('gpuRows', () => {
  it('puts MIG devices right after their parent, the last one marked', () => {
    const shuffled = [byId(`${H100_MIG_PARENT_ID}/2`), byId(A10G_ID), byId(H100_MIG_PARENT_ID), byId(H100_WHOLE_ID), byId(`${H100_MIG_PARENT_ID}/1`)];
    expect(gpuRows(shuffled).map((row) => [row.gpu.id, row.isMigDevice, row.isLastChild])).toEqual([
      [A10G_ID, false, false],
      [H100_MIG_PARENT_ID, false, false],
      [`${H100_MIG_PARENT_ID}/2`, true, false], // MIG devices keep their report order
      [`${H100_MIG_PARENT_ID}/1`, true, true],
      [H100_WHOLE_ID, false, false],
    ]);
  });

  it('keeps a MIG device whose parent is missing, still drawn as a MIG device', () => {
    const orphan = byId(`${H100_MIG_PARENT_ID}/1`);
    expect(gpuRows([byId(A10G_ID), orphan]).map((row) => row.isMigDevice)).toEqual([false, true]);
  });
});

describe('gpuNames', () => {
  const names = gpuNames(SMALL_FLEET.gpus);

  it('names a GPU by index and UUID prefix, a MIG device by its GPU instance', () => {
    expect(names.short(byId(H100_WHOLE_ID))).toBe('#1 1a2b3c4d');
    expect(names.short(byId(`${H100_MIG_PARENT_ID}/2`))).toBe('GI 2');
    expect(names.full(byId(`${H100_MIG_PARENT_ID}/2`))).toBe('node-a #0 8f3c2a1b GI 2');
    expect(names.target(A10G_ID)).toBe('node-b #0 5e6f7a8b');
    expect(names.target('chat-api')).toBe('chat-api');
  });

  it('uses the PCI bus id where UUIDs are masked (all the same prefix)', () => {
    const masked = [0, 1].map((index) => ({
      ...byId(A10G_ID),
      id: `GPU-00000000-0000-0000-0000-000000000000#0000000${index}:3B:00.0`,
      index,
      uuid: 'GPU-00000000-0000-0000-0000-000000000000',
      pciBusId: `0000000${index}:3B:00.0`,
    }));
    const maskedNames = gpuNames(masked);
    expect(masked.map((gpu) => maskedNames.short(gpu))).toEqual(['#0 3B:00.0', '#1 00000001:3B:00.0']);
    expect(maskedNames.full(masked[0]!)).toBe('#0 3B:00.0'); // one host: no host in the name
  });

  it('falls back to the id when nothing shorter identifies the GPU', () => {
    const bare = { ...byId(A10G_ID), id: 'node-b#7', index: null, uuid: null, pciBusId: null };
    expect(gpuNames([bare]).short(bare)).toBe('node-b#7');
  });
});

describe('display names', () => {
  it('drops the vendor from a model and the directory from a process', () => {
    expect(shortModelName('NVIDIA H100 80GB HBM3')).toBe('H100 80GB HBM3');
    expect(shortModelName('Tesla T4')).toBe('Tesla T4');
    expect(shortModelName(null)).toBeNull();
    expect(processDisplayName('/opt/conda/bin/python3')).toBe('python3');
    expect(processDisplayName('C:\\Program Files\\app\\run.exe')).toBe('run.exe');
    expect(processDisplayName('tritonserver')).toBe('tritonserver');
    // Arguments stay; only the executable's directory goes.
    expect(processDisplayName('/opt/conda/bin/python3 train.py --config conf/a.yaml')).toBe('python3 train.py --config conf/a.yaml');
    expect(processDisplayName('python3 -m vllm.entrypoints.openai.api_server')).toBe('python3 -m vllm.entrypoints.openai.api_server');
    expect(processDisplayName('C:\\Program Files\\Blender Foundation\\Blender 4.2\\blender.exe')).toBe('blender.exe');
  });
});
