/**
 * A fleet-sized audit: one dcgm-exporter federation scrape of 2,000 GPUs (250 hosts of 8), made
 * by the benchmark generator, goes through the whole pipeline. Every GPU of the scrape must come
 * out exactly once, under its own host, index and PCI bus id, with the figures its own lines
 * give (worked out here from the text, independently of the parser). Board resolution, which
 * now looks boards up per host instead of testing every ref against every board, is compared
 * with the pairwise definition on random refs.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDcgmFederation } from '../../bench/generate/dcgm-exposition.js';
import { generateOnce } from '../../bench/generate/writer.js';
import { resolveBoards, type BoardIdentity } from '../../src/analysis/identity.js';
import { runAudit } from '../../src/engine/run-audit.js';
import { loadCatalog } from '../../src/catalog/index.js';
import type { Report } from '../../src/model/report.js';
import { AUDIT_DEFAULTS } from '../helpers/audit.js';

const GPU_COUNT = 2000;
const GPUS_PER_HOST = 8;

/** What the scrape says of one GPU, read from its lines with a regular expression. */
interface ScrapedGpu {
  labels: Record<string, string>;
  values: Record<string, number>;
}

function readScrape(text: string): Map<string, ScrapedGpu> {
  const gpus = new Map<string, ScrapedGpu>();
  for (const line of text.split('\n')) {
    const match = /^(\w+)\{(.*)\} (\S+) \d+$/.exec(line);
    if (match === null) continue;
    const [, metric, labelText, value] = match;
    const labels = Object.fromEntries([...labelText!.matchAll(/(\w+)="([^"]*)"/g)].map(([, name, text]) => [name!, text!]));
    const uuid = labels.UUID!;
    const gpu = gpus.get(uuid) ?? { labels, values: {} };
    gpu.values[metric!] = Number(value);
    gpus.set(uuid, gpu);
  }
  return gpus;
}

let folder: string;
let scraped: Map<string, ScrapedGpu>;
let report: Report;

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), 'gpu-audit-fleet-'));
  const file = path.join(folder, 'dcgm-fleet.prom');
  generateOnce(file, { gpuCount: GPU_COUNT }, (out) => writeDcgmFederation(out, { gpuCount: GPU_COUNT }));
  scraped = readScrape(readFileSync(file, 'utf8'));
  const catalog = await loadCatalog({ preferCache: false });
  ({ report } = await runAudit({
    inputs: [file], ...AUDIT_DEFAULTS, catalog,
    now: () => new Date('2026-12-01T00:00:00Z'),
  }));
}, 120_000);

afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

describe('audit of a 2,000-GPU dcgm-exporter scrape', () => {
  it('reports every GPU of the scrape exactly once, on its own host', () => {
    expect(scraped.size).toBe(GPU_COUNT);
    expect(report.gpus).toHaveLength(GPU_COUNT);
    expect(new Set(report.gpus.map((gpu) => gpu.id)).size).toBe(GPU_COUNT);
    expect(new Set(report.gpus.map((gpu) => gpu.uuid))).toEqual(new Set(scraped.keys()));
    // 2000 GPUs / 8 per host = 250 hosts; no MIG devices in the generated fleet.
    expect(report.summary.gpuCount).toBe(GPU_COUNT);
    expect(report.summary.hostCount).toBe(GPU_COUNT / GPUS_PER_HOST);
    expect(report.gpus.every((gpu) => gpu.parentId === null)).toBe(true);
    for (const gpu of report.gpus) {
      const labels = scraped.get(gpu.uuid!)!.labels;
      expect([gpu.host, gpu.index, gpu.pciBusId, gpu.model]).toEqual([labels.Hostname, Number(labels.gpu), labels.pci_bus_id, labels.modelName]);
    }
  });

  it('gives each GPU the figures of its own lines (every 37th GPU checked)', () => {
    const checked = report.gpus.filter((_gpu, position) => position % 37 === 0);
    expect(checked.length).toBe(55); // positions 0, 37, ..., 1998: floor(1999 / 37) + 1
    for (const gpu of checked) {
      const v = scraped.get(gpu.uuid!)!.values;
      // One scrape: one sample, so mean = p50 = p95 = max = the value printed.
      const util = v.DCGM_FI_DEV_GPU_UTIL!;
      expect(gpu.samples).toBe(1);
      expect(gpu.utilization).toEqual({ mean: util, p50: util, p95: util, max: util });
      // The ratio 0-1 is reported as a percent: 0.485000 -> 48.5.
      expect(gpu.grEngineActive!.max).toBeCloseTo(v.DCGM_FI_PROF_GR_ENGINE_ACTIVE! * 100, 9);
      expect(gpu.tensorActive!.max).toBeCloseTo(v.DCGM_FI_PROF_PIPE_TENSOR_ACTIVE! * 100, 9);
      const used = v.DCGM_FI_DEV_FB_USED!;
      expect(gpu.memoryUsedMiB).toEqual({ mean: used, p95: used, max: used });
      // Total = free + used + reserved (H100: 81559 = (81559 - 479 - used) + used + 479).
      const total = v.DCGM_FI_DEV_FB_FREE! + used + v.DCGM_FI_DEV_FB_RESERVED!;
      expect(gpu.memoryTotalMiB).toBe(total);
      expect(gpu.vramHeadroomMiB).toBe(total - used);
    }
  });

  it('lists the GPUs in report order: host, then index', () => {
    const order = report.gpus.map((gpu) => [gpu.host, gpu.index] as const);
    const sorted = [...order].sort(([hostA, a], [hostB, b]) => hostA.localeCompare(hostB) || a! - b!);
    expect(order).toEqual(sorted);
  });
});

/** Board resolution by definition: every ref is tested against every board found so far. */
function resolveByScan(identities: readonly BoardIdentity[]): ReturnType<typeof resolveBoards> {
  const masked = /^GPU-[0-]+$/i;
  const pciByUuid = new Map<string, Set<string>>();
  for (const identity of identities) {
    if (identity.uuid === undefined || masked.test(identity.uuid)) continue;
    const key = `${identity.host}\u0000${identity.uuid}`;
    const pcis = pciByUuid.get(key) ?? new Set<string>();
    if (identity.pciBusId !== undefined) pcis.add(identity.pciBusId);
    pciByUuid.set(key, pcis);
  }
  const distinctive = new Set([...pciByUuid].filter(([, pcis]) => pcis.size <= 1).map(([key]) => key));
  const sameUuid = (a: BoardIdentity, b: BoardIdentity): boolean => a.uuid !== undefined && a.uuid === b.uuid && distinctive.has(`${a.host}\u0000${a.uuid}`);
  const conflicts = (board: BoardIdentity, ref: BoardIdentity): boolean =>
    board.host !== ref.host
    || (board.uuid !== undefined && ref.uuid !== undefined && board.uuid !== ref.uuid)
    || (board.pciBusId !== undefined && ref.pciBusId !== undefined && board.pciBusId !== ref.pciBusId)
    || (!sameUuid(board, ref) && board.index !== undefined && ref.index !== undefined && board.index !== ref.index);
  const agreement = (board: BoardIdentity, ref: BoardIdentity): number =>
    (sameUuid(board, ref) ? 1 : 0) + (board.pciBusId !== undefined && board.pciBusId === ref.pciBusId ? 1 : 0) + (board.index !== undefined && board.index === ref.index ? 1 : 0);
  const known = (identity: BoardIdentity): number => [identity.uuid, identity.pciBusId, identity.index].filter((field) => field !== undefined).length;
  const unique = new Map<string, BoardIdentity>();
  for (const identity of identities) unique.set([identity.host, identity.uuid ?? '', identity.pciBusId ?? '', identity.index ?? ''].join('\u0000'), identity);
  const boards: BoardIdentity[] = [];
  const boardOf = new Map<string, number>();
  const ambiguous: { identity: BoardIdentity; candidates: number }[] = [];
  for (const [key, identity] of [...unique].sort(([, a], [, b]) => known(b) - known(a))) {
    const fitting = boards.map((board, number) => ({ board, number })).filter(({ board }) => !conflicts(board, identity));
    let chosen: number | undefined;
    if (fitting.length === 0) chosen = boards.push({ ...identity }) - 1;
    else if (fitting.length === 1) chosen = fitting[0]!.number;
    else {
      const scored = fitting.map((fit) => ({ ...fit, score: agreement(fit.board, identity) })).sort((a, b) => b.score - a.score);
      if (scored[0]!.score > 0 && scored[0]!.score > scored[1]!.score) chosen = scored[0]!.number;
      else ambiguous.push({ identity, candidates: scored.filter((fit) => fit.score === scored[0]!.score).length });
    }
    if (chosen === undefined) continue;
    const board = boards[chosen]!;
    board.uuid ??= identity.uuid;
    board.pciBusId ??= identity.pciBusId;
    board.index ??= identity.index;
    for (const field of ['uuid', 'pciBusId', 'index'] as const) if (board[field] === undefined) delete board[field];
    boardOf.set(key, chosen);
  }
  return { boards, boardOf, ambiguous };
}

describe('board resolution by host', () => {
  it('resolves random refs (masked and partial ids, several hosts) as the pairwise scan does', () => {
    const identity = fc.record({
      host: fc.constantFrom('node-a', 'node-b', 'node-c'),
      uuid: fc.option(fc.constantFrom('GPU-1111', 'GPU-2222', 'GPU-3333', 'GPU-00000000-0000-0000-0000-000000000000'), { nil: undefined }),
      pciBusId: fc.option(fc.constantFrom('00000000:18:00.0', '00000000:2A:00.0', '00000000:3A:00.0'), { nil: undefined }),
      index: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
    }).map((drawn): BoardIdentity => {
      const board: BoardIdentity = { host: drawn.host };
      if (drawn.uuid !== undefined) board.uuid = drawn.uuid;
      if (drawn.pciBusId !== undefined) board.pciBusId = drawn.pciBusId;
      if (drawn.index !== undefined) board.index = drawn.index;
      return board;
    });
    fc.assert(fc.property(fc.array(identity, { maxLength: 40 }), (identities) => {
      const fast = resolveBoards(identities);
      const scan = resolveByScan(identities);
      expect(fast.boards).toEqual(scan.boards);
      expect([...fast.boardOf]).toEqual([...scan.boardOf]);
      expect(fast.ambiguous).toEqual(scan.ambiguous);
    }), { numRuns: 300 });
  });
});
