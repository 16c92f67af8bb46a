/**
 * A device is host + UUID, with the PCI bus id breaking ties; refs with fewer fields join the
 * device whose known fields do not conflict; two GPUs are never merged (DESIGN.md section 5).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignReportIds, resolveBoards, type BoardIdentity } from '../../src/analysis/identity.js';
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

describe('resolveBoards against every ref tried on every board of its host', () => {
  /** The plain definition: each ref, most specific first, against each board of its host in board order. */
  function reference(identities: readonly BoardIdentity[]): { boards: BoardIdentity[]; ambiguous: number } {
    const masked = (uuid: string): boolean => uuid.startsWith('GPU-00000000');
    const pcis = new Map<string, Set<string>>();
    for (const identity of identities) {
      if (identity.uuid === undefined || masked(identity.uuid)) continue;
      const key = `${identity.host}/${identity.uuid}`;
      const set = pcis.get(key) ?? new Set<string>();
      if (identity.pciBusId !== undefined) set.add(identity.pciBusId);
      pcis.set(key, set);
    }
    const distinctive = (a: BoardIdentity, b: BoardIdentity): boolean => a.uuid !== undefined && a.uuid === b.uuid && (pcis.get(`${a.host}/${a.uuid}`)?.size ?? 2) <= 1;
    const unique = new Map<string, BoardIdentity>();
    for (const identity of identities) unique.set(`${identity.host}|${identity.uuid ?? ''}|${identity.pciBusId ?? ''}|${identity.index ?? ''}`, identity);
    const known = (identity: BoardIdentity): number => [identity.uuid, identity.pciBusId, identity.index].filter((value) => value !== undefined).length;
    const ordered = [...unique.values()].sort((a, b) => known(b) - known(a));
    const boards: BoardIdentity[] = [];
    let ambiguous = 0;
    for (const identity of ordered) {
      const fitting = boards.map((board, number) => ({ board, number })).filter(({ board }) => !(
        board.host !== identity.host
        || (board.uuid !== undefined && identity.uuid !== undefined && board.uuid !== identity.uuid)
        || (board.pciBusId !== undefined && identity.pciBusId !== undefined && board.pciBusId !== identity.pciBusId)
        || (!distinctive(board, identity) && board.index !== undefined && identity.index !== undefined && board.index !== identity.index)));
      let chosen: number | undefined;
      if (fitting.length === 0) {
        boards.push({ ...identity });
        chosen = boards.length - 1;
      } else if (fitting.length === 1) {
        chosen = fitting[0]!.number;
      } else {
        const score = (board: BoardIdentity): number => (distinctive(board, identity) ? 1 : 0) + (identity.pciBusId !== undefined && board.pciBusId === identity.pciBusId ? 1 : 0) + (identity.index !== undefined && board.index === identity.index ? 1 : 0);
        const scored = fitting.map((fit) => ({ ...fit, score: score(fit.board) })).sort((a, b) => b.score - a.score);
        if (scored[0]!.score > 0 && scored[0]!.score > scored[1]!.score) chosen = scored[0]!.number;
        else ambiguous += 1;
      }
      if (chosen === undefined) continue;
      const board = boards[chosen]!;
      board.uuid ??= identity.uuid;
      board.pciBusId ??= identity.pciBusId;
      board.index ??= identity.index;
      for (const field of ['uuid', 'pciBusId', 'index'] as const) if (board[field] === undefined) delete board[field];
    }
    return { boards, ambiguous };
  }

  it('finds the same boards and the same ambiguous refs on random fleets', () => {
    const identity = fc.record({
      host: fc.constantFrom('a', 'b'),
      uuid: fc.option(fc.constantFrom(UUID_0, UUID_1, MASKED_UUID, 'GPU-3f2a9c1e-0000-4000-8000-000000000003'), { nil: undefined }),
      pciBusId: fc.option(fc.constantFrom(pci(1), pci(2), pci(3)), { nil: undefined }),
      index: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
    }, { requiredKeys: ['host'] }).map((raw) => Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined)) as unknown as BoardIdentity);
    fc.assert(fc.property(fc.array(identity, { maxLength: 14 }), (identities) => {
      const resolved = resolveBoards(identities);
      const expected = reference(identities);
      expect(resolved.boards).toEqual(expected.boards);
      expect(resolved.ambiguous).toHaveLength(expected.ambiguous);
    }), { numRuns: 2000 });
  });
});
