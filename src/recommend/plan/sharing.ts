/**
 * Pairs of workloads that share one GPU (docs/planner.md, "Sharing"), judged on their joint
 * demand (./joint-demand.ts), and bought as one replica of the pair: a GPU of a node whose device
 * plugin replicates every GPU twice (../sharing/device-plugin.ts).
 *
 * Candidates: single-GPU replicas on whole GPUs of the same model and scope, with a measured
 * compute series, that may move and are not training (a training job fills its GPU). A pair is
 * - shared by MPS where both are busy together in at least half the buckets and each member's
 *   p95 fits its equal share (the plugin gives each of N clients 100/N % of the threads and 1/N
 *   of the memory): they run side by side, where time-slicing would make them take turns;
 * - else time-sliced where the summed compute passes one GPU in at most the tolerated share of
 *   its buckets (1% where a member has a latency SLO, else RecommendOptions.timeSliceMaxOverlapShare):
 *   each burst then has the whole GPU, and both must fit its memory at once;
 * - else shared by MPS where each member's p95 fits its equal share; never on a GPU in MIG mode;
 * - else not shared, and where sharing would have paid, a `sharing-contention` finding says why
 *   and what would make it work.
 * Members of different tenants are never shared (neither mode isolates faults) unless the options
 * allow it. A pair is kept only where its one GPU costs less than buying each member alone.
 */
import { gpuSpecByKey } from '../../catalog/index.js';
import type { Finding, GpuComputeSeries } from '../../model/index.js';
import type { SharingMode } from '../sharing/device-plugin.js';
import { money } from '../units.js';
import type { PlanDemand } from './demand.js';
import { jointDemand, type JointDemand } from './joint-demand.js';
import { movingDemand, type MovingDemand } from './target.js';
import type { SupplyType } from './supply.js';
import { dollars, monthlyCents } from './words.js';

/** Replicas per GPU of a shared node: pairs. */
export const SHARING_REPLICAS = 2;
/** With a latency SLO, the share of buckets the pair's sum may pass one GPU. */
const SLO_OVER_SHARE = 0.01;
/** Both busy in at least this share of buckets: a steady pair, for MPS. */
const CONCURRENT_FOR_MPS = 0.5;
/** Rejected partners listed with their reason, per workload. */
const REJECTIONS_LISTED = 1;
/** Partners tried per workload: bounds the pairing of a large fleet to near-linear work. */
const PARTNERS_TRIED = 8;

export interface SharedPair {
  mode: SharingMode;
  members: [PlanDemand, PlanDemand];
  joint: JointDemand;
  /** The pair as one demand, bought as one replica. */
  moving: MovingDemand;
}

/** An option considered for one workload and not chosen (grouped across workloads in the plan). */
export interface Offer {
  workload: string;
  option: string;
  monthlyUsd: number | null;
  reason: string;
}

export interface PairingOutcome {
  pairs: SharedPair[];
  alternatives: Offer[];
  findings: Finding[];
}

export interface PairingInput {
  /** Each demand that may move, with its purchase alone. */
  moving: ReadonlyMap<string, MovingDemand>;
  seriesOf: (demand: PlanDemand) => GpuComputeSeries | null | undefined;
  typesOf: (moving: MovingDemand) => readonly SupplyType[];
  timeSliceMaxOverlapShare: number;
  allowCrossTenantSharing: boolean;
  idleThresholdPct: number;
}

function candidate(moving: MovingDemand): boolean {
  const demand = moving.demand;
  return demand.disposition.kind === 'move' && demand.slice === null && demand.unit.gpuCount === 1 && demand.replicas === 1
    && demand.gpusPerReplica === 1 && demand.unit.kind !== 'training' && demand.need?.basis === 'measured' && moving.model !== '';
}

const percent = (fraction: number): string => `${(fraction * 100).toFixed(1)}%`;

/**
 * The pair as one demand. Time-slicing: the members' memory added (both are resident at once)
 * and the compute of the joint p95 on their GPU. MPS: twice the larger member's memory and
 * compute, since each gets half of the GPU.
 */
function pairDemand(a: PlanDemand, b: PlanDemand, mode: SharingMode, joint: JointDemand): PlanDemand {
  const spec = gpuSpecByKey(a.unit.modelKey);
  const jointOf = (capacity: number | null | undefined, x: number | null, y: number | null): number | null => {
    if (x === null && y === null) return null; // a constraint for neither member
    if (mode === 'mps') return SHARING_REPLICAS * Math.max(x ?? 0, y ?? 0);
    return capacity === null || capacity === undefined ? null : (capacity * joint.p95Pct) / 100;
  };
  const vramA = a.vramPerGpuMiB!;
  const vramB = b.vramPerGpuMiB!;
  const vram = mode === 'mps' ? SHARING_REPLICAS * Math.max(vramA, vramB) : vramA + vramB;
  const add = (x: number | null, y: number | null): number | null => (x === null && y === null ? null : (x ?? 0) + (y ?? 0));
  return {
    ...a,
    unit: { ...a.unit, id: `${a.unit.id}\u0000${b.unit.id}`, label: `${a.unit.label} + ${b.unit.label}`, gpuIds: [...a.unit.gpuIds, ...b.unit.gpuIds] },
    hosts: [...new Set([...a.hosts, ...b.hosts])],
    vramPerGpuMiB: vram,
    vramPerReplicaMiB: vram,
    need: {
      tflops: jointOf(spec?.bf16DenseTflops?.value, a.need!.tflops, b.need!.tflops),
      bandwidthGBps: jointOf(spec?.memoryBandwidthGBps?.value, a.need!.bandwidthGBps, b.need!.bandwidthGBps),
      basis: 'measured',
    },
    shape: 'fixed',
    cpuPerReplica: add(a.cpuPerReplica, b.cpuPerReplica),
    memoryPerReplicaMiB: add(a.memoryPerReplicaMiB, b.memoryPerReplicaMiB),
    sharing: { mode, members: [a, b], joint },
  };
}

/** A GPU large enough for two costs no less than each alone: the usual end of a pair's judgement. */
const FLOOR_REASON = 'one GPU large enough for both costs no less than each bought alone';

interface Verdict {
  pair?: SharedPair;
  /** Why not, in a sentence; with the pair's price where sharing would have paid. */
  reason?: string;
  /** The reason holds for the workload whatever the partner: listed once, not per pair. */
  generic?: boolean;
  contention?: { joint: JointDemand; monthlySavingsUsd: number };
}

const LARGEST = new WeakMap<readonly SupplyType[], number>();

function largestGpuMiB(types: readonly SupplyType[]): number {
  let largest = LARGEST.get(types);
  if (largest === undefined) {
    largest = Math.max(0, ...types.map((type) => type.gpuMemoryMiB));
    LARGEST.set(types, largest);
  }
  return largest;
}

function judge(a: MovingDemand, b: MovingDemand, input: PairingInput): Verdict {
  const [x, y] = [a.demand, b.demand];
  if (x.unit.tenant !== null && y.unit.tenant !== null && x.unit.tenant !== y.unit.tenant && !input.allowCrossTenantSharing) {
    return { reason: `tenants ${x.unit.tenant} and ${y.unit.tenant} stay apart: neither time-slicing nor MPS isolates faults` };
  }
  // No GPU in scope holds both: nothing to judge.
  const largest = largestGpuMiB(input.typesOf(a));
  if (Math.min(x.vramPerGpuMiB! + y.vramPerGpuMiB!, SHARING_REPLICAS * Math.max(x.vramPerGpuMiB!, y.vramPerGpuMiB!)) > largest) {
    return { reason: `no GPU in ${a.scope} holds two of them`, generic: true };
  }
  const joint = jointDemand([input.seriesOf(x), input.seriesOf(y)], input.idleThresholdPct);
  if (joint === undefined) return { reason: 'no compute series over the same time for both: their joint demand is unknown' };
  const alone = a.aloneHourlyUsd + b.aloneHourlyUsd;
  const tolerated = x.unit.serving?.latencySloMs != null || y.unit.serving?.latencySloMs != null ? SLO_OVER_SHARE : input.timeSliceMaxOverlapShare;
  const types = input.typesOf(a);
  /** The pair bought as one replica; a reason where it cannot be, or does not pay. */
  const priced = (mode: SharingMode, sized: JointDemand): MovingDemand | string => {
    const demand = pairDemand(x, y, mode, sized);
    // The cheapest type with a GPU that large bounds the pair's price from below: most pairs stop here.
    const floor = types.find((type) => type.gpuMemoryMiB >= demand.vramPerGpuMiB!)?.hourlyUsd ?? Number.POSITIVE_INFINITY;
    if (floor >= alone - 1e-9) return FLOOR_REASON;
    const found = movingDemand(demand, a.scope, types);
    if (found === undefined || found.model === '') return `no type in ${a.scope} holds both on one GPU`;
    if (found.aloneHourlyUsd >= alone - 1e-9) return `one GPU for both costs ${money(found.aloneHourlyUsd)}/h, no less than each bought alone (${money(alone)}/h)`;
    return found;
  };
  const evenShare = 100 / SHARING_REPLICAS;
  const fitsShare = (x.unit.compute.p95Pct ?? Infinity) <= evenShare && (y.unit.compute.p95Pct ?? Infinity) <= evenShare;
  const timeSlices = joint.overShare <= tolerated + 1e-12;
  // Busy together most of the time, each within half the GPU: MPS runs them side by side where
  // time-slicing would make them take turns. Else time-slicing, where bursts rarely meet; else
  // MPS where each fits its share.
  const modes: SharingMode[] = joint.concurrentShare >= CONCURRENT_FOR_MPS && fitsShare
    ? ['mps', ...(timeSlices ? (['time-slicing'] as const) : [])]
    : [...(timeSlices ? (['time-slicing'] as const) : []), ...(fitsShare ? (['mps'] as const) : [])];
  let reason: string | undefined;
  for (const mode of modes) {
    const found = priced(mode, joint);
    if (typeof found !== 'string') return { pair: { mode, members: [x, y], joint, moving: found } };
    reason ??= found;
  }
  if (reason !== undefined) return { reason, generic: reason === FLOOR_REASON };
  const overText = `their summed compute passes one GPU in ${percent(joint.overShare)} of ${joint.bucketSeconds / 60}-minute buckets (p99 ${joint.p99Pct.toFixed(0)}%, ${joint.slowdown.toFixed(2)}x slower while it does), more than the ${percent(tolerated)} tolerated`;
  const mpsText = `and MPS would cap each at ${evenShare}% of the GPU while its p95 is ${Math.max(x.unit.compute.p95Pct ?? 0, y.unit.compute.p95Pct ?? 0)}%`;
  // What one GPU holding both would cost, sized on the larger member's compute: the saving given up.
  const larger = Math.max(x.unit.compute.p95Pct ?? 0, y.unit.compute.p95Pct ?? 0);
  const wouldBe = priced('time-slicing', { ...joint, p95Pct: larger });
  const saving = typeof wouldBe === 'string' ? 0 : dollars(monthlyCents(alone) - monthlyCents(wouldBe.aloneHourlyUsd));
  return {
    reason: `${overText}, ${mpsText}`,
    ...(saving > 0 ? { contention: { joint, monthlySavingsUsd: saving } } : {}),
  };
}

/**
 * Greedy pairing: the largest memory first, each with the first admitted partner that saves,
 * among the next PARTNERS_TRIED not yet paired (a fleet of thousands is paired in near-linear time).
 */
export function pairForSharing(input: PairingInput): PairingOutcome {
  const pools = new Map<string, MovingDemand[]>();
  for (const moving of new Set(input.moving.values())) {
    if (!candidate(moving) || input.seriesOf(moving.demand) == null) continue;
    const key = `${moving.scope}\u0000${moving.demand.unit.modelKey}`;
    pools.set(key, [...(pools.get(key) ?? []), moving]);
  }
  const outcome: PairingOutcome = { pairs: [], alternatives: [], findings: [] };
  for (const members of pools.values()) {
    members.sort((p, q) => q.demand.vramPerGpuMiB! - p.demand.vramPerGpuMiB! || p.demand.unit.id.localeCompare(q.demand.unit.id));
    const paired = new Set<MovingDemand>();
    for (const [index, a] of members.entries()) {
      if (paired.has(a)) continue;
      let best: SharedPair | undefined;
      let tried = 0;
      let listed = 0;
      let generic: string | undefined;
      for (const b of members.slice(index + 1)) {
        if (paired.has(b)) continue;
        if (tried >= PARTNERS_TRIED) break;
        tried += 1;
        const verdict = judge(a, b, input);
        if (verdict.pair !== undefined) {
          best = verdict.pair;
          break;
        }
        // The first partners ruled out carry their reason; the rest are counted (a fleet has thousands).
        if (verdict.generic === true) generic ??= verdict.reason;
        else if (listed < REJECTIONS_LISTED) {
          listed += 1;
          outcome.alternatives.push({ workload: a.demand.unit.id, option: `share one GPU with ${b.demand.unit.id}`, monthlyUsd: null, reason: verdict.reason! });
        }
        if (verdict.contention !== undefined) outcome.findings.push(contentionFinding(a.demand, b.demand, verdict.contention, verdict.reason!));
      }
      if (best === undefined) {
        if (generic !== undefined) outcome.alternatives.push({ workload: a.demand.unit.id, option: 'share one GPU with another workload of its GPU model', monthlyUsd: null, reason: generic });
        continue;
      }
      outcome.pairs.push(best);
      for (const member of best.members) paired.add(input.moving.get(member.unit.id)!);
    }
  }
  return outcome;
}

function contentionFinding(a: PlanDemand, b: PlanDemand, contention: NonNullable<Verdict['contention']>, reason: string): Finding {
  const { joint } = contention;
  return {
    id: `sharing-contention:${a.unit.id}+${b.unit.id}`,
    code: 'sharing-contention',
    severity: 'info',
    target: a.unit.id,
    message: `${a.unit.label} and ${b.unit.label} would share one GPU for ${money(contention.monthlySavingsUsd)}/month less, but ${reason}. Staggering their bursts, a MIG split or a larger GPU would make it work.`,
    evidence: {
      with: b.unit.id,
      bucketSeconds: joint.bucketSeconds,
      buckets: joint.buckets,
      jointP95Pct: Math.round(joint.p95Pct * 10) / 10,
      jointP99Pct: Math.round(joint.p99Pct * 10) / 10,
      overOneGpuShare: Math.round(joint.overShare * 10_000) / 10_000,
      slowdownWhileOver: Math.round(joint.slowdown * 100) / 100,
      monthlySavingsIfSharedUsd: contention.monthlySavingsUsd,
    },
  };
}
