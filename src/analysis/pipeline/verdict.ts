/**
 * Is a workload's GPU starved by its CPU data pipeline? A pure rule table over plain figures
 * (the rules and why are in src/report/definitions.ts, "CPU pipeline verdict").
 *
 * GPU idleness is only ever judged from GPU signals: a saturated CPU next to an idle GPU is
 * `idle` (nothing to feed), never `input-bound`.
 */
import type { ComputeBasis } from '../../model/observations.js';

export type PipelineVerdict = 'gpu-bound' | 'input-bound' | 'idle' | 'unknown';

export const PIPELINE_THRESHOLDS = {
  /** GPU compute at or above this is doing the work it can: `gpu-bound` whatever the CPU. */
  gpuBoundPct: 80,
  /** GPU compute below this with a saturated CPU (or high PCIe receive) is `input-bound`. */
  inputBoundBelowPct: 50,
  /** Host CPU busy share (of all its cores) from which the host counts as saturated. */
  hostSaturatedFraction: 0.9,
  /** Share of CFS periods throttled from which a container counts as CPU-starved. */
  throttledFraction: 0.25,
  /** Host-to-device PCIe traffic (KiB/s) from which a lightly used GPU is waiting on transfers: 4 GiB/s. */
  pcieRxHighKiBps: 4 * 1024 * 1024,
} as const;

export interface PipelineFigures {
  /** The workload's GPU compute mean on its basis, percent; null when unknown. */
  gpuBusyPct: number | null;
  gpuComputeBasis: ComputeBasis;
  /** The report's idle threshold, percent: below it the GPU is idle. */
  idleThresholdPct: number;
  /** Busy share of the workload's hosts' CPUs, 0-1 (the busiest host). */
  hostCpuBusyFraction?: number;
  hostCores?: number;
  /** Largest throttled share among the workload's containers, 0-1. */
  containerThrottledFraction?: number;
  /** Cores the workload's containers used (evidence only). */
  containerCoresUsed?: number;
  /** Mean host-to-device PCIe traffic of the workload's GPUs, KiB/s. */
  pcieRxKiBps?: number;
}

export interface PipelineJudgement {
  verdict: PipelineVerdict;
  evidence: string[];
}

const pct = (fraction: number): string => `${(fraction * 100).toFixed(0)}%`;

function evidenceOf(figures: PipelineFigures): string[] {
  const evidence: string[] = [];
  if (figures.gpuBusyPct !== null) evidence.push(`GPU ${figures.gpuBusyPct.toFixed(0)}% busy (${figures.gpuComputeBasis})`);
  if (figures.hostCpuBusyFraction !== undefined) {
    const cores = figures.hostCores === undefined ? '' : ` (${(figures.hostCpuBusyFraction * figures.hostCores).toFixed(1)} of ${figures.hostCores} cores)`;
    evidence.push(`host CPU ${pct(figures.hostCpuBusyFraction)} busy${cores}`);
  }
  if (figures.containerCoresUsed !== undefined) evidence.push(`containers used ${figures.containerCoresUsed.toFixed(2)} cores`);
  if (figures.containerThrottledFraction !== undefined) evidence.push(`container CPU throttled in ${pct(figures.containerThrottledFraction)} of CFS periods`);
  if (figures.pcieRxKiBps !== undefined) evidence.push(`PCIe receive ${(figures.pcieRxKiBps / 1024 / 1024).toFixed(2)} GiB/s`);
  return evidence;
}

interface Rule {
  verdict: PipelineVerdict;
  /** Why, for the evidence list; undefined when the rule does not apply. */
  applies(figures: PipelineFigures): string | undefined;
}

const T = PIPELINE_THRESHOLDS;
const cpuSaturated = (f: PipelineFigures): boolean =>
  (f.hostCpuBusyFraction ?? 0) >= T.hostSaturatedFraction || (f.containerThrottledFraction ?? 0) >= T.throttledFraction;
const hasCpuFigures = (f: PipelineFigures): boolean => f.hostCpuBusyFraction !== undefined || f.containerThrottledFraction !== undefined;

/**
 * First rule that applies wins. The GPU-only rules come first: idleness and a GPU at capacity
 * are judged from GPU signals, and CPU figures cannot change them.
 */
const RULES: readonly Rule[] = [
  {
    verdict: 'unknown',
    applies: (f) => (f.gpuBusyPct === null || f.gpuComputeBasis === 'unknown' ? 'no GPU compute figure: the pipeline is never judged from CPU alone' : undefined),
  },
  {
    verdict: 'idle',
    applies: (f) => (f.gpuBusyPct! < f.idleThresholdPct ? `GPU below the ${f.idleThresholdPct}% idle threshold: nothing is being fed` : undefined),
  },
  {
    verdict: 'gpu-bound',
    applies: (f) => (f.gpuBusyPct! >= T.gpuBoundPct ? `GPU at least ${T.gpuBoundPct}% busy` : undefined),
  },
  {
    verdict: 'input-bound',
    applies: (f) =>
      f.gpuBusyPct! < T.inputBoundBelowPct && cpuSaturated(f)
        ? `GPU below ${T.inputBoundBelowPct}% busy while the CPU is saturated (host at least ${pct(T.hostSaturatedFraction)} busy, or a container throttled in at least ${pct(T.throttledFraction)} of CFS periods)`
        : undefined,
  },
  {
    verdict: 'input-bound',
    applies: (f) =>
      f.gpuBusyPct! < T.inputBoundBelowPct && (f.pcieRxKiBps ?? 0) >= T.pcieRxHighKiBps
        ? `GPU below ${T.inputBoundBelowPct}% busy while PCIe receive is at least ${T.pcieRxHighKiBps / 1024 / 1024} GiB/s: waiting on host-to-device copies`
        : undefined,
  },
  {
    verdict: 'unknown',
    applies: (f) => (hasCpuFigures(f) ? undefined : 'no CPU metrics for the workload\'s hosts or containers'),
  },
  {
    verdict: 'gpu-bound',
    applies: (f) => (f.gpuBusyPct! >= T.inputBoundBelowPct && !cpuSaturated(f) ? `GPU at least ${T.inputBoundBelowPct}% busy and the CPU not saturated` : undefined),
  },
];

const FALLBACK = 'neither rule fits: GPU lightly used with an unsaturated CPU, or moderately used with a saturated one';

export function pipelineVerdict(figures: PipelineFigures): PipelineJudgement {
  for (const rule of RULES) {
    const reason = rule.applies(figures);
    if (reason !== undefined) return { verdict: rule.verdict, evidence: [reason, ...evidenceOf(figures)] };
  }
  return { verdict: 'unknown', evidence: [FALLBACK, ...evidenceOf(figures)] };
}
