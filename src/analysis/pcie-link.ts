/**
 * The bandwidth of a PCIe link, per direction, from its generation and width: the transfer
 * rate per lane times the lanes times the line encoding's share of payload bits.
 *
 *   generation  GT/s per lane  encoding          GB/s per lane per direction
 *   1           2.5            8b/10b            2.5 x 8/10 / 8      = 0.25
 *   2           5              8b/10b            5 x 8/10 / 8        = 0.5
 *   3           8              128b/130b         8 x 128/130 / 8     = 0.9846
 *   4           16             128b/130b         16 x 128/130 / 8    = 1.9692
 *   5           32             128b/130b         32 x 128/130 / 8    = 3.9385
 *   6           64 (PAM4)      242/256 FLIT      64 x 242/256 / 8    = 7.5625
 *
 * This is the link's ceiling: packet headers take a further few percent, so a transfer that
 * reaches about 80% of it is already saturating the link.
 */
import type { PcieLink } from '../model/index.js';

interface Generation {
  gigatransfersPerSecond: number;
  /** Payload bits per line bit. */
  encoding: number;
}

const GENERATIONS: ReadonlyMap<number, Generation> = new Map([
  [1, { gigatransfersPerSecond: 2.5, encoding: 8 / 10 }],
  [2, { gigatransfersPerSecond: 5, encoding: 8 / 10 }],
  [3, { gigatransfersPerSecond: 8, encoding: 128 / 130 }],
  [4, { gigatransfersPerSecond: 16, encoding: 128 / 130 }],
  [5, { gigatransfersPerSecond: 32, encoding: 128 / 130 }],
  [6, { gigatransfersPerSecond: 64, encoding: 242 / 256 }],
]);

/** Widths a PCIe link can train to. */
const WIDTHS: ReadonlySet<number> = new Set([1, 2, 4, 8, 12, 16, 32]);

const BYTES_PER_MIB = 1024 * 1024;

/** Bandwidth of one direction of the link, MiB/s; undefined for a generation or width PCIe does not have. */
export function pcieLinkBandwidthMiBps(generation: number, width: number): number | undefined {
  const rate = GENERATIONS.get(generation);
  if (rate === undefined || !WIDTHS.has(width)) return undefined;
  const bytesPerSecond = (rate.gigatransfersPerSecond * 1e9 * rate.encoding * width) / 8;
  return bytesPerSecond / BYTES_PER_MIB;
}

/** The report's link entry; null unless both generation and width are known and real. */
export function pcieLinkOf(generation: number | undefined, width: number | undefined): PcieLink | null {
  if (generation === undefined || width === undefined) return null;
  const bandwidthMiBps = pcieLinkBandwidthMiBps(generation, width);
  return bandwidthMiBps === undefined ? null : { generation, width, bandwidthMiBps };
}
