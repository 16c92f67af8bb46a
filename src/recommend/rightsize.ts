/**
 * Right-sizing: for each unit on a whole GPU, the cheapest GPU (or tensor-parallel group of
 * GPUs) whose VRAM covers the required VRAM and whose throughput covers the measured need.
 *
 * Needs: vram.requiredMiB, compute.p95Pct (unless idle the whole window), compute.bound,
 * modelKey (the current GPU's specs scale the need), hourlyUsdPerGpu.
 *
 * Compute need = p95 percent x the current GPU's capacity x its GPUs: BF16 dense TFLOPS when compute-bound,
 * memory bandwidth when memory-bound, both when the bound is unknown (the conservative reading).
 * A unit idle for the whole window is proposed for release rather than a smaller GPU.
 */
import { HOURS_PER_MONTH } from '../model/index.js';
import { gpuSpecByKey } from '../catalog/index.js';
import type { Recommendation } from '../model/index.js';
import { gpuName, gpuOptions, scopeFor, type GpuOption } from './candidates.js';
import { confidenceOf, weaknessesOf } from './confidence.js';
import { type DemandUnit, type RecommendOptions, type StrategyResult } from './types.js';
import { money, round2 } from './units.js';

/** Tensor-parallel degrees tried when the model does not fit one GPU. */
const TENSOR_PARALLEL_DEGREES = [1, 2, 4, 8] as const;

export interface ComputeNeed {
  tflops: number | null;
  bandwidthGBps: number | null;
}

/** The absolute need of a unit, scaled from the percent it used of its current GPU. */
export function computeNeedOf(unit: DemandUnit): ComputeNeed | undefined {
  const spec = gpuSpecByKey(unit.modelKey);
  const p95 = unit.compute.p95Pct;
  if (spec === undefined || p95 === null) return undefined;
  // p95 is per GPU: a unit on several GPUs needs that share of each of them.
  const share = (p95 / 100) * unit.gpuCount;
  const tflops = spec.bf16DenseTflops?.value ?? null;
  const bandwidth = spec.memoryBandwidthGBps?.value ?? null;
  const need = { tflops: unit.compute.bound === 'memory' || tflops === null ? null : share * tflops, bandwidthGBps: unit.compute.bound === 'compute' || bandwidth === null ? null : share * bandwidth };
  if (need.tflops === null && need.bandwidthGBps === null) return undefined;
  return need;
}

/** Whether `degree` GPUs of an option cover a need; an unknown figure of the option never covers. */
export function covers(option: GpuOption, degree: number, need: ComputeNeed): boolean {
  if (need.tflops !== null && (option.bf16Tflops === null || option.bf16Tflops * degree < need.tflops)) return false;
  if (need.bandwidthGBps !== null && (option.bandwidthGBps === null || option.bandwidthGBps * degree < need.bandwidthGBps)) return false;
  return true;
}

export interface SizedOption {
  option: GpuOption;
  degree: number;
  usdPerHour: number;
}

/** The cheapest option x degree covering VRAM and compute; ties go to fewer GPUs. */
export function cheapestFit(options: readonly GpuOption[], requiredMiB: number, need: ComputeNeed): SizedOption | undefined {
  let best: SizedOption | undefined;
  for (const option of options) {
    for (const degree of TENSOR_PARALLEL_DEGREES) {
      if (degree > option.instance.gpuCount) break;
      if (option.vramMiB * degree < requiredMiB || !covers(option, degree, need)) continue;
      const usdPerHour = option.usdPerGpuHour * degree;
      if (best === undefined || usdPerHour < best.usdPerHour || (usdPerHour === best.usdPerHour && degree < best.degree)) best = { option, degree, usdPerHour };
      break;
    }
  }
  return best;
}

function releaseRecommendation(unit: DemandUnit, options: RecommendOptions): Recommendation {
  const hourly = unit.hourlyUsdPerGpu! * unit.gpuCount;
  const reasons = weaknessesOf([unit], options, { vram: false, compute: true });
  const interactive = unit.kind === 'interactive';
  return {
    id: `rightsize:${unit.id}`,
    kind: 'rightsize',
    targets: [unit.id],
    current: `${unit.gpuCount} x ${gpuName(unit.modelKey)} (${money(hourly)}/h)`,
    proposed: unit.gpuCount === 1 ? 'release the GPU' : `release the ${unit.gpuCount} GPUs`,
    monthlySavingsUsd: round2(hourly * HOURS_PER_MONTH),
    confidence: confidenceOf(reasons),
    confidenceReasons: reasons,
    risks: [
      interactive
        ? 'the notebook kernels holding these GPUs lose them: cull idle kernels (JupyterHub idle culler) or give notebooks a shared or fractional GPU'
        : 'a job that runs less often than the window (weekly, monthly) would find no GPU: check schedules before releasing',
    ],
    rationale: `${unit.label} was idle for the whole ${unit.window.hours.toFixed(1)} h window (compute below ${options.idleThresholdPct}%)${unit.processNames.length > 0 ? ' while a process held memory: allocated but unused' : ''}.`,
    evidence: {
      busyFraction: unit.compute.busyFraction,
      windowHours: round2(unit.window.hours),
      peakVramMiB: unit.vram.peakMiB,
      currentUsdPerHour: round2(hourly),
      instanceType: unit.instanceType,
      kindSource: 'process-name',
      kind: unit.kind,
    },
  };
}

function latencyRisk(unit: DemandUnit, sized: SizedOption): string | undefined {
  const current = gpuSpecByKey(unit.modelKey);
  const ratios: string[] = [];
  const tflops = current?.bf16DenseTflops?.value;
  const bandwidth = current?.memoryBandwidthGBps?.value;
  if (tflops !== undefined && sized.option.bf16Tflops !== null && sized.option.bf16Tflops < tflops) ratios.push(`${Math.round((sized.option.bf16Tflops / tflops) * 100)}% of the BF16 throughput`);
  if (bandwidth !== undefined && sized.option.bandwidthGBps !== null && sized.option.bandwidthGBps < bandwidth) ratios.push(`${Math.round((sized.option.bandwidthGBps / bandwidth) * 100)}% of the memory bandwidth`);
  if (ratios.length === 0 || unit.kind === 'training' || unit.kind === 'batch') return undefined;
  const slo = unit.serving?.latencySloMs;
  return `${sized.degree > 1 ? 'each' : 'the'} ${gpuName(sized.option.modelKey)} has ${ratios.join(' and ')} of the ${gpuName(unit.modelKey)}: per-request latency rises${slo === null || slo === undefined ? '; check it against the latency target before moving' : `; verify the ${slo} ms latency SLO under peak load`}`;
}

export function rightsize(units: readonly DemandUnit[], options: RecommendOptions): StrategyResult {
  const result: StrategyResult = { recommendations: [], notEnoughData: [] };
  const skip = (unit: DemandUnit, reason: string): void => {
    result.notEnoughData.push({ strategy: 'rightsize', targets: [unit.id], reason });
  };
  // The candidates depend on the unit only through its instance type (its provider and region):
  // searched once per instance type, not once per GPU of a fleet.
  const candidatesByInstanceType = new Map<string | null, GpuOption[]>();
  const candidatesFor = (instanceType: string | null): GpuOption[] => {
    let candidates = candidatesByInstanceType.get(instanceType);
    if (candidates === undefined) {
      candidates = gpuOptions(options.catalog, scopeFor(options.catalog, instanceType, { providers: options.providers, region: options.region, pricing: options.pricing }));
      candidatesByInstanceType.set(instanceType, candidates);
    }
    return candidates;
  };
  for (const unit of units) {
    if (unit.migProfile !== null) continue; // MIG devices are repacked by ./sharing/mig.ts
    if (unit.hourlyUsdPerGpu === null) {
      skip(unit, 'no price: the instance type is unknown or has no price at this pricing model');
      continue;
    }
    if (unit.compute.busyFraction === 0 && unit.window.hours > 0) {
      result.recommendations.push(releaseRecommendation(unit, options));
      continue;
    }
    if (unit.vram.requiredMiB === null) {
      skip(unit, 'no memory readings: required VRAM unknown');
      continue;
    }
    const need = computeNeedOf(unit);
    if (need === undefined) {
      skip(unit, unit.compute.p95Pct === null ? `no compute figure (basis ${unit.compute.basis})` : `the GPU table has no throughput figures for ${unit.modelKey}`);
      continue;
    }
    // requiredMiB is per GPU held: the unit needs it on each of them.
    const requiredTotalMiB = unit.vram.requiredMiB * unit.gpuCount;
    const sized = cheapestFit(candidatesFor(unit.instanceType), requiredTotalMiB, need);
    const currentHourly = unit.hourlyUsdPerGpu * unit.gpuCount;
    if (sized === undefined || sized.usdPerHour >= currentHourly - 1e-9) continue; // already the cheapest fit
    const reasons = weaknessesOf([unit], options, { vram: true, compute: true });
    const latency = latencyRisk(unit, sized);
    const proposedName = `${sized.degree > 1 ? `${sized.degree} x ` : ''}${gpuName(sized.option.modelKey)}`;
    result.recommendations.push({
      id: `rightsize:${unit.id}`,
      kind: 'rightsize',
      targets: [unit.id],
      current: `${unit.gpuCount} x ${gpuName(unit.modelKey)} (${money(currentHourly)}/h)`,
      proposed: `${proposedName} on ${sized.option.instance.name} (${money(sized.usdPerHour)}/h)`,
      monthlySavingsUsd: round2((currentHourly - sized.usdPerHour) * HOURS_PER_MONTH),
      confidence: confidenceOf(reasons),
      confidenceReasons: reasons,
      risks: [
        sized.option.vramMiB * sized.degree >= (unit.vram.peakMiB ?? 0) * unit.gpuCount
          ? `never below the measured peak: ${sized.option.vramMiB * sized.degree} MiB covers the ${requiredTotalMiB} MiB required (peak ${unit.vram.peakMiB} MiB per GPU)`
          : `below the measured ${unit.vram.peakMiB} MiB, which is what the preallocating server was told to reserve: lower its allocation to fit the ${sized.option.vramMiB * sized.degree} MiB, or it fails to start`,
        ...(sized.degree !== unit.gpuCount ? [`the workload must be re-sharded from ${unit.gpuCount} to ${sized.degree} GPU${sized.degree === 1 ? '' : 's'}${sized.degree > 1 ? ' (tensor parallel; interconnect bandwidth matters)' : ''}`] : []),
        ...(latency === undefined ? [] : [latency]),
        'savings are per GPU-hour: they are realised when the workload moves to the new instance type and the old GPU is released',
      ],
      rationale: `${unit.label} needs ${Math.round(unit.vram.requiredMiB / 1024)} GiB (${unit.vram.basis}) and at p95 ${unit.compute.p95Pct}% of a ${gpuName(unit.modelKey)}; the ${proposedName} covers both for less.`,
      evidence: {
        requiredVramMiB: unit.vram.requiredMiB,
        peakVramMiB: unit.vram.peakMiB,
        vramBasis: unit.vram.basis,
        computeBasis: unit.compute.basis,
        computeBound: unit.compute.bound,
        computeP95Pct: unit.compute.p95Pct,
        needBf16Tflops: need.tflops === null ? null : round2(need.tflops),
        needBandwidthGBps: need.bandwidthGBps === null ? null : round2(need.bandwidthGBps),
        requiredVramMiBTotal: requiredTotalMiB,
        proposedVramMiB: sized.option.vramMiB * sized.degree,
        proposedGpus: sized.degree,
        proposedInstanceType: sized.option.instance.name,
        provider: sized.option.instance.provider,
        region: sized.option.instance.region,
        currentUsdPerHour: round2(currentHourly),
        proposedUsdPerHour: round2(sized.usdPerHour),
      },
    });
  }
  return result;
}
