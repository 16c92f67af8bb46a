/**
 * Findings the GPU figures alone support: idle-gpu, low-compute, vram-overprovisioned per
 * device (MIG devices included: an idle instance is as wasteful as an idle board) and
 * short-window for the fleet. Thresholds come from ./thresholds.ts.
 */
import type { Finding, GpuEntry } from '../model/index.js';
import { findingMessage } from './finding-messages.js';
import type { AnalysisOptions } from './options.js';
import { type AnalysisFindingCode, FINDING_RULES } from './finding-rules.js';

const SECONDS_PER_HOUR = 3600;

function finding(code: AnalysisFindingCode, severity: Finding['severity'], target: string, evidence: Finding['evidence']): Finding {
  return { id: `${code}:${target}`, code, severity, target, message: findingMessage(code, evidence), evidence };
}

function shortWindow(gpus: readonly GpuEntry[], windowSeconds: number): Finding | null {
  const rule = FINDING_RULES['short-window'];
  if (gpus.length === 0) return null;
  const pointValuesOnly = gpus.every((gpu) => gpu.gpuHours === 0);
  const windowHours = windowSeconds / SECONDS_PER_HOUR;
  if (!pointValuesOnly && windowHours >= rule.minWindowHours) return null;
  return finding('short-window', rule.severity, 'fleet', { windowSeconds, windowHours, minWindowHours: rule.minWindowHours, pointValuesOnly });
}

function idleGpu(gpu: GpuEntry, options: AnalysisOptions, migBoard: boolean): Finding | null {
  const rule = FINDING_RULES['idle-gpu'];
  if (gpu.idleFraction === null || gpu.gpuHours < rule.minObservedHours || gpu.idleFraction < rule.minIdleFraction) return null;
  const severity = gpu.idleFraction >= rule.errorIdleFraction ? rule.errorSeverity : rule.severity;
  return finding('idle-gpu', severity, gpu.id, {
    idleFraction: gpu.idleFraction,
    idleHours: gpu.idleHours,
    gpuHours: gpu.gpuHours,
    computeBasis: gpu.computeBasis,
    idleThresholdPct: options.idleThresholdPct,
    ...(migBoard ? { migSliceWeighted: true } : {}),
  });
}

function lowCompute(gpu: GpuEntry): Finding | null {
  const rule = FINDING_RULES['low-compute'];
  if (gpu.utilization === null || gpu.gpuHours < rule.minObservedHours || gpu.utilization.mean >= rule.maxMeanUtilizationPct) return null;
  return finding('low-compute', rule.severity, gpu.id, {
    meanUtilizationPct: gpu.utilization.mean,
    p95UtilizationPct: gpu.utilization.p95,
    gpuHours: gpu.gpuHours,
    maxMeanUtilizationPct: rule.maxMeanUtilizationPct,
  });
}

function vramOverprovisioned(gpu: GpuEntry): Finding | null {
  const rule = FINDING_RULES['vram-overprovisioned'];
  const total = gpu.memoryTotalMiB;
  if (gpu.memoryUsedMiB === null || total === null || total <= 0 || gpu.gpuHours < rule.minObservedHours) return null;
  const peakShareOfTotal = gpu.memoryUsedMiB.max / total;
  if (peakShareOfTotal >= rule.maxPeakShareOfTotal) return null;
  return finding('vram-overprovisioned', rule.severity, gpu.id, {
    peakMiB: gpu.memoryUsedMiB.max,
    memoryTotalMiB: total,
    peakShareOfTotal,
    vramHeadroomMiB: gpu.vramHeadroomMiB,
    gpuHours: gpu.gpuHours,
  });
}

/** The fleet finding first, then each device's in report order: idle-gpu or low-compute, then vram-overprovisioned. */
export function gpuFindings(gpus: readonly GpuEntry[], windowSeconds: number, options: AnalysisOptions): Finding[] {
  const findings: (Finding | null)[] = [shortWindow(gpus, windowSeconds)];
  const migBoards = new Set(gpus.flatMap((gpu) => (gpu.parentId === null ? [] : [gpu.parentId])));
  for (const gpu of gpus) {
    const idle = idleGpu(gpu, options, migBoards.has(gpu.id));
    findings.push(idle ?? lowCompute(gpu), vramOverprovisioned(gpu));
  }
  return findings.filter((entry) => entry !== null);
}
