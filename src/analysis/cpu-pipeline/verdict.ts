/**
 * Is a workload's GPU starved by its CPU data pipeline? A pure rule table over plain figures
 * (the rules and why are in src/render/definitions.ts, "CPU pipeline verdict").
 *
 * GPU idleness is only ever judged from GPU signals: a saturated CPU next to an idle GPU is
 * `idle` (nothing to feed), never `input-bound`.
 */
import type { ComputeBasis } from '../../model/index.js';
import type { PcieLink } from '../../model/index.js';

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
  /**
   * Mean host-to-device PCIe traffic, as a share of the GPU's link bandwidth, from which a
   * lightly used GPU is waiting on transfers: half the link, averaged over the window, is
   * copying most of the time (a copy runs at about 80% of the link's ceiling).
   */
  pcieRxHighLinkShare: 0.5,
  /**
   * The same in MiB/s where the link is not reported (DCGM and dmon do not print it): 4 GiB/s,
   * half of a Gen3 x8 link, about a quarter of Gen3 x16 and an eighth of Gen4 x16. Only bulk
   * host-to-device copying sustains it; on a fast link it may speak early, so the evidence
   * says the link was unknown.
   */
  pcieRxHighMiBps: 4096,
} as const;

/** Mean PCIe receive from which a GPU on `link` counts as waiting on transfers, MiB/s. */
export function pcieRxHighMiBps(link: PcieLink | undefined): number {
  return link === undefined ? PIPELINE_THRESHOLDS.pcieRxHighMiBps : PIPELINE_THRESHOLDS.pcieRxHighLinkShare * link.bandwidthMiBps;
}

/** Host-to-device PCIe traffic of one of the workload's GPUs (the one nearest its threshold). */
export interface PcieRxFigure {
  /** The GPU's report id. */
  gpu: string;
  /** Time-weighted mean over the window, MiB/s. */
  meanMiBps: number;
  link?: PcieLink;
}

/** CPU used by one of the workload's GPU processes with its descendants (collect bundle processes.csv). */
export interface ProcessTreeFigure {
  pid: number;
  /** As nvidia-smi names the process, else the kernel's short name. */
  name: string;
  /** Descendant processes seen: data-loader workers and the like. */
  descendants: number;
  coresUsed: number;
}

/** At most this many process trees are named in the evidence, the busiest first. */
export const MAX_PROCESS_TREES_IN_EVIDENCE = 5;

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
  /** Host-to-device PCIe traffic of the workload's GPU nearest its threshold. */
  pcieRx?: PcieRxFigure;
  /** CPU of the workload's GPU process trees (evidence only: the host figures already count it). */
  processTrees?: readonly ProcessTreeFigure[];
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
  evidence.push(...processTreeEvidence(figures));
  if (figures.pcieRx !== undefined) evidence.push(pcieRxEvidence(figures.pcieRx));
  return evidence;
}

function pcieRxEvidence({ gpu, meanMiBps, link }: PcieRxFigure): string {
  const ofLink = link === undefined
    ? 'link not reported'
    : `${((meanMiBps / link.bandwidthMiBps) * 100).toFixed(1)}% of its Gen${link.generation} x${link.width} link's ${link.bandwidthMiBps.toFixed(0)} MiB/s`;
  return `PCIe receive of ${gpu} averaged ${meanMiBps.toFixed(1)} MiB/s (${ofLink})`;
}

function processTreeEvidence(figures: PipelineFigures): string[] {
  const trees = [...(figures.processTrees ?? [])].sort((a, b) => b.coresUsed - a.coresUsed);
  const ofCores = figures.hostCores === undefined ? 'cores' : `of ${figures.hostCores} cores`;
  const lines = trees.slice(0, MAX_PROCESS_TREES_IN_EVIDENCE).map((tree) => {
    const children = tree.descendants === 0 ? '' : ` and ${tree.descendants} child process${tree.descendants === 1 ? '' : 'es'}`;
    return `pid ${tree.pid} (${tree.name})${children} used ${tree.coresUsed.toFixed(2)} ${ofCores}`;
  });
  if (trees.length > MAX_PROCESS_TREES_IN_EVIDENCE) lines.push(`and ${trees.length - MAX_PROCESS_TREES_IN_EVIDENCE} more GPU processes`);
  return lines;
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
      f.gpuBusyPct! < T.inputBoundBelowPct && f.pcieRx !== undefined && f.pcieRx.meanMiBps >= pcieRxHighMiBps(f.pcieRx.link)
        ? `GPU below ${T.inputBoundBelowPct}% busy while PCIe receive averaged at least ${
          f.pcieRx.link === undefined ? `${T.pcieRxHighMiBps} MiB/s (link not reported)` : `${pct(T.pcieRxHighLinkShare)} of the link's bandwidth`
        }: waiting on host-to-device copies`
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
