/**
 * A device is host + UUID, with the PCI bus id breaking ties; refs with fewer fields join the
 * device whose known fields do not conflict; two GPUs are never merged (DESIGN.md section 5).
 */
import { describe, expect, it } from 'vitest';
import { assignReportIds, boardKey, resolveBoards } from '../../src/analysis/identity.js';
import type { DeviceRef } from '../../src/model/observations.js';
import { analyze, gpu0, gpu1, HOST, MASKED_UUID, samplesAt, type SourceEvents, UUID_0, UUID_1 } from './events.js';

const pci = (bus: number): string => `00000000:${bus.toString(16).padStart(2, '0').toUpperCase()}:00.0`;

describe('masked UUIDs', () => {
  const boardA: DeviceRef = { host: HOST, uuid: MASKED_UUID, pciBusId: pci(1) };
  const boardB: DeviceRef = { host: HOST, uuid: MASKED_UUID, pciBusId: pci(2) };
  const profile = analyze([{ source: 'capture.txt', samples: [...samplesAt(boardA, [0, 60], [{ utilizationPct: 10 }]), ...samplesAt(boardB, [0, 60], [{ utilizationPct: 90 }])] }]);

  it('with different PCI bus ids are two GPUs', () => {
    expect(profile.gpus.map((gpu) => [gpu.pciBusId, gpu.utilization!.mean])).toEqual([[pci(1), 10], [pci(2), 90]]);
  });

  it('get ids made unique with @host and then #pciBusId', () => {
    expect(profile.gpus.map((gpu) => gpu.id)).toEqual([`${MASKED_UUID}@${HOST}#${pci(1)}`, `${MASKED_UUID}@${HOST}#${pci(2)}`]);
  });

  it('do not tell two boards apart by index alone either', () => {
    const byIndex = analyze([{ source: 'q.csv', samples: [
      ...samplesAt({ host: HOST, uuid: MASKED_UUID, index: 0 }, [0], [{ utilizationPct: 1 }]),
      ...samplesAt({ host: HOST, uuid: MASKED_UUID, index: 1 }, [0], [{ utilizationPct: 2 }]),
    ] }]);
    expect(byIndex.gpus.map((gpu) => gpu.index)).toEqual([0, 1]);
  });

  it('leave a ref that names only the masked UUID unplaced, with a warning, rather than guess', () => {
    const vague = analyze([
      { source: 'capture.txt', samples: [...samplesAt(boardA, [0], [{ utilizationPct: 1 }]), ...samplesAt(boardB, [0], [{ utilizationPct: 1 }])] },
      { source: 'uuid-only.csv', samples: samplesAt({ host: HOST, uuid: MASKED_UUID }, [0, 60], [{ utilizationPct: 50 }]) },
    ]);
    expect(vague.gpus).toHaveLength(2);
    expect(vague.warnings).toEqual([{
      source: 'uuid-only.csv',
      message: `uuid ${MASKED_UUID} on host ${HOST} fits 2 GPUs equally well; its samples and processes were left out`,
    }]);
  });
});

describe('refs with fewer fields', () => {
  const inventory: SourceEvents = { source: 'nvidia-smi.xml', run: (sink) => {
    sink.device({ ref: gpu0, model: 'NVIDIA A10G', memoryTotalMiB: 23028 });
    sink.device({ ref: gpu1, model: 'NVIDIA A10G', memoryTotalMiB: 23028 });
  } };

  it('a uuid-only CSV ref joins the XML device', () => {
    const profile = analyze([
      inventory,
      { source: 'query.csv', samples: samplesAt({ host: HOST, uuid: UUID_1 }, [0, 60], [{ utilizationPct: 70 }]) },
    ]);
    expect(profile.gpus.map((gpu) => [gpu.id, gpu.utilization?.mean ?? null, gpu.memoryTotalMiB])).toEqual([
      [UUID_0, null, 23028],
      [UUID_1, 70, 23028],
    ]);
  });

  it('a dmon index-only ref joins the device with that index', () => {
    const profile = analyze([
      { source: 'dmon.txt', samples: samplesAt({ host: HOST, index: 1 }, [0, 1, 2], [{ utilizationPct: 33, memoryUsedMiB: 500 }]) },
      inventory, // read after dmon: the order of inputs does not matter
    ]);
    expect(profile.gpus).toHaveLength(2);
    expect(profile.gpus[1]).toMatchObject({ id: UUID_1, index: 1, samples: 3, model: 'NVIDIA A10G' });
    expect(profile.gpus[1]!.utilization!.mean).toBe(33);
  });

  it('a pmon process with only an index lands on that device', () => {
    const profile = analyze([inventory, { source: 'pmon.txt', run: (sink) => {
      sink.process({ ref: { host: HOST, index: 0 }, time: Date.UTC(2026, 0, 1), pid: 4242, name: 'python', type: 'C' });
    } }]);
    expect(profile.gpus[0]!.processes).toEqual([{ pid: 4242, name: 'python', type: 'C', maxMemoryMiB: null, samples: 1 }]);
    expect(profile.gpus[1]!.processes).toEqual([]);
  });

  it('an index-only ref on a host with one GPU is that GPU', () => {
    const profile = analyze([
      { source: 'x.xml', run: (sink) => sink.device({ ref: { host: HOST, uuid: UUID_0, pciBusId: pci(1) } }) },
      { source: 'dmon.txt', samples: samplesAt({ host: HOST, index: 0 }, [0, 1], [{ utilizationPct: 5 }]) },
    ]);
    expect(profile.gpus.map((gpu) => [gpu.id, gpu.index, gpu.samples])).toEqual([[UUID_0, 0, 2]]);
  });

  it('thousands of GPUs on one host: each index-only ref joins the board of its index, one board per GPU', () => {
    const full = Array.from({ length: 5_000 }, (_, gpu) => ({ host: HOST, uuid: `GPU-${String(gpu).padStart(8, '0')}-0000-0000-0000-000000000000`, pciBusId: pci(gpu % 256), index: gpu }));
    const indexOnly = full.map(({ index }) => ({ host: HOST, index })).reverse();
    const { boards, boardOf } = resolveBoards([...indexOnly, ...full]);
    expect(boards).toHaveLength(5_000);
    for (const ref of [indexOnly[0]!, indexOnly[4_999]!]) expect(boards[boardOf.get(boardKey(ref))!]!.index).toBe(ref.index);
  });

  it('a ref that conflicts with every known device is a device of its own', () => {
    const profile = analyze([inventory, { source: 'dmon.txt', samples: samplesAt({ host: HOST, index: 2 }, [0, 1], [{ utilizationPct: 5 }]) }]);
    expect(profile.gpus.map((gpu) => gpu.id)).toEqual([UUID_0, UUID_1, 'gpu2']);
  });
});

describe('one GPU across documents and hosts', () => {
  it('stays one GPU across documents and sources', () => {
    const profile = analyze([
      { source: 'a.xml', samples: samplesAt(gpu0, [0], [{ utilizationPct: 1 }]) },
      { source: 'b.xml', samples: samplesAt(gpu0, [60], [{ utilizationPct: 1 }]) },
      { source: 'apps.csv', run: (sink) => sink.process({ ref: { host: HOST, uuid: UUID_0, pciBusId: gpu0.pciBusId! }, pid: 7, name: 'vllm', usedMemoryMiB: 20000 }) },
    ]);
    expect(profile.gpus).toHaveLength(1);
    expect(profile.gpus[0]!.processes[0]).toMatchObject({ pid: 7, maxMemoryMiB: 20000 });
  });

  it('a distinctive UUID stays one GPU even when its index changes between documents', () => {
    const profile = analyze([
      { source: 'before-reboot.csv', samples: samplesAt({ host: HOST, uuid: UUID_0, index: 0 }, [0, 60], [{ utilizationPct: 1 }]) },
      { source: 'after-reboot.csv', samples: samplesAt({ host: HOST, uuid: UUID_0, index: 1 }, [600, 660], [{ utilizationPct: 1 }]) },
    ]);
    expect(profile.gpus).toHaveLength(1);
  });

  it('the same UUID on two hosts is two GPUs, told apart by @host', () => {
    const profile = analyze([{ source: 'fleet.prom', samples: [
      ...samplesAt({ host: 'node-a', uuid: MASKED_UUID }, [0], [{ utilizationPct: 1 }]),
      ...samplesAt({ host: 'node-b', uuid: MASKED_UUID }, [0], [{ utilizationPct: 1 }]),
    ] }]);
    expect(profile.gpus.map((gpu) => gpu.id)).toEqual([`${MASKED_UUID}@node-a`, `${MASKED_UUID}@node-b`]);
  });
});

describe('resolveBoards', () => {
  it('merges fields from every ref of a board', () => {
    const { boards } = resolveBoards([{ host: 'h', uuid: UUID_0 }, { host: 'h', pciBusId: pci(1), index: 3 }]);
    // one board on the host: the uuid-only ref fits the (pci, index) board, nothing conflicts
    expect(boards).toEqual([{ host: 'h', uuid: UUID_0, pciBusId: pci(1), index: 3 }]);
  });

  it('picks the board that agrees on more fields when several fit', () => {
    const resolution = resolveBoards([
      { host: 'h', uuid: UUID_0, pciBusId: pci(1) },
      { host: 'h', uuid: UUID_1, pciBusId: pci(2) },
      { host: 'h', pciBusId: pci(2) },
    ]);
    expect(resolution.boards).toHaveLength(2);
    expect(resolution.boardOf.get(['h', '', pci(2), ''].join('\u0000'))).toBe(1);
    expect(resolution.ambiguous).toEqual([]);
  });
});

describe('assignReportIds', () => {
  it('uses the UUID alone where it is unique', () => {
    expect(assignReportIds([
      { host: 'a', uuid: UUID_0, pciBusId: pci(1), index: 0 },
      { host: 'b', uuid: UUID_1, pciBusId: pci(1), index: 0 },
    ])).toEqual([UUID_0, UUID_1]);
  });

  it('names a board without UUID by its PCI bus id, else by its index', () => {
    expect(assignReportIds([
      { host: 'a', uuid: null, pciBusId: pci(1), index: null },
      { host: 'a', uuid: null, pciBusId: null, index: 4 },
    ])).toEqual([pci(1), 'gpu4']);
  });
});
