/**
 * `check --baseline`: what got worse (and better) since a saved report. GPUs are matched by
 * `id`, findings by `id`, threshold results by name and target. A regression is a figure
 * worse by more than the tolerance, a limit breached now that held (or had no data) then,
 * or a new finding whose code the check treats as an error. A limit breached in both
 * reports is a note, not a regression: the gate is about change.
 */
import type { GpuEntry, Report } from '../model/index.js';
import { evaluateThresholds, gateFindings } from './evaluate.js';
import type { Thresholds } from '../model/index.js';
import type { BaselineChange, BaselineComparison, Direction, FigureChange, GatedFinding, ThresholdResult } from '../model/index.js';

/** Percentage points a percentage figure may worsen, and percent a money figure may grow, before it is a regression. */
export const DEFAULT_BASELINE_TOLERANCE = 5;

interface ComparedFigure<Source> {
  figure: string;
  unit: string;
  direction: Direction;
  /** `points`: compare the difference; `%`: compare the change relative to the baseline value. */
  toleranceUnit: 'points' | '%';
  read: (source: Source) => number | null;
}

const FLEET_FIGURES: readonly ComparedFigure<Report>[] = [
  { figure: 'wastePct', unit: '%', direction: 'lower-is-better', toleranceUnit: 'points', read: (report) => report.summary.wastePct },
  { figure: 'meanUtilization', unit: '%', direction: 'higher-is-better', toleranceUnit: 'points', read: (report) => report.summary.meanUtilization },
  { figure: 'monthlyWasteUsd', unit: 'USD/month', direction: 'lower-is-better', toleranceUnit: '%', read: (report) => report.summary.monthlyWasteUsd },
];

const GPU_FIGURES: readonly ComparedFigure<GpuEntry>[] = [
  { figure: 'idlePct', unit: '%', direction: 'lower-is-better', toleranceUnit: 'points', read: (gpu) => (gpu.idleFraction === null ? null : gpu.idleFraction * 100) },
  { figure: 'utilizationMean', unit: '%', direction: 'higher-is-better', toleranceUnit: 'points', read: (gpu) => gpu.utilization?.mean ?? null },
];

export interface BaselineOptions {
  /** The baseline file as the user named it. */
  ref: string;
  tolerance: number;
  thresholds: Thresholds;
}

type Movement = 'worse' | 'better' | 'same';

/** How far the figure moved in the bad direction, in its tolerance unit (negative: it got better). */
function worsening(baseline: number, current: number, direction: Direction, toleranceUnit: 'points' | '%'): number {
  const towardsWorse = direction === 'lower-is-better' ? current - baseline : baseline - current;
  if (toleranceUnit === 'points') return towardsWorse;
  if (baseline === 0) return towardsWorse === 0 ? 0 : Math.sign(towardsWorse) * Number.POSITIVE_INFINITY;
  return (towardsWorse / Math.abs(baseline)) * 100;
}

function movement(change: FigureChange): Movement {
  const amount = worsening(change.baseline, change.current, change.direction, change.toleranceUnit);
  if (amount > change.tolerance) return 'worse';
  // Better by more than the tolerance too: noise of the same size is not an improvement either.
  if (-amount > change.tolerance) return 'better';
  return 'same';
}

const round = (value: number): string => (Math.round(value * 10) / 10).toFixed(1);

function describeFigure(change: FigureChange, label: string): string {
  const sign = change.delta >= 0 ? '+' : '';
  const delta = change.unit === '%' ? `${sign}${round(change.delta)} points` : `${sign}${round(change.delta)} ${change.unit}`;
  const unit = change.unit === '%' ? '%' : ` ${change.unit}`;
  return `${change.figure} of ${label}: ${round(change.baseline)}${unit} -> ${round(change.current)}${unit} (${delta}; tolerance ${change.tolerance} ${change.toleranceUnit})`;
}

function compareFigures<Source>(
  figures: readonly ComparedFigure<Source>[],
  baseline: Source,
  current: Source,
  target: string,
  label: string,
  tolerance: number,
  into: BaselineComparison,
): void {
  for (const figure of figures) {
    const before = figure.read(baseline);
    const now = figure.read(current);
    if (before === null || now === null) continue;
    const change: FigureChange = {
      figure: figure.figure,
      target,
      unit: figure.unit,
      direction: figure.direction,
      baseline: before,
      current: now,
      delta: now - before,
      tolerance,
      toleranceUnit: figure.toleranceUnit,
    };
    const moved = movement(change);
    if (moved === 'worse') into.regressions.push({ kind: 'figure-worsened', target, figure: change, summary: describeFigure(change, label) });
    if (moved === 'better') into.improvements.push({ kind: 'figure-improved', target, figure: change, summary: describeFigure(change, label) });
  }
}

function gpuLabel(gpu: GpuEntry): string {
  return `${gpu.host} ${gpu.id}`;
}

function thresholdKey(result: ThresholdResult): string {
  return `${result.name}@${result.target}`;
}

function describeThreshold(result: ThresholdResult): string {
  const where = result.target === 'fleet' ? 'fleet' : `${result.host ?? ''} ${result.target}`.trim();
  const actual = result.actual === null ? 'no data' : `${round(result.actual)} ${result.unit}`;
  return `${result.name} on ${where}: ${actual} against a limit of ${result.limit} ${result.unit}`;
}

function compareThresholds(current: readonly ThresholdResult[], baseline: readonly ThresholdResult[], into: BaselineComparison): void {
  const before = new Map(baseline.map((result) => [thresholdKey(result), result]));
  for (const result of current) {
    const then = before.get(thresholdKey(result));
    const threshold = result.name;
    if (result.status === 'fail') {
      if (then?.status === 'fail') into.notes.push({ kind: 'threshold-still-breached', target: result.target, threshold, summary: `still breached: ${describeThreshold(result)}` });
      else into.regressions.push({ kind: 'threshold-newly-breached', target: result.target, threshold, summary: `newly breached: ${describeThreshold(result)}` });
    } else if (result.status === 'pass' && then?.status === 'fail') {
      into.improvements.push({ kind: 'threshold-now-holds', target: result.target, threshold, summary: `now holds: ${describeThreshold(result)}` });
    }
  }
}

function findingChange(kind: 'new-finding' | 'resolved-finding', finding: GatedFinding, verb: string): BaselineChange {
  return {
    kind,
    target: finding.target,
    finding: { id: finding.id, code: finding.code, level: finding.level, severity: finding.severity },
    summary: `${verb} ${finding.level}-level finding ${finding.code} on ${finding.target}: ${finding.message}`,
  };
}

function compareFindings(current: readonly GatedFinding[], baseline: readonly GatedFinding[], into: BaselineComparison): void {
  const beforeIds = new Set(baseline.map((finding) => finding.id));
  const currentIds = new Set(current.map((finding) => finding.id));
  for (const finding of current) {
    if (beforeIds.has(finding.id)) continue;
    (finding.level === 'error' ? into.regressions : into.notes).push(findingChange('new-finding', finding, 'new'));
  }
  for (const finding of baseline) {
    if (!currentIds.has(finding.id)) into.improvements.push(findingChange('resolved-finding', finding, 'resolved'));
  }
}

/**
 * What the comparison reads of a saved report: all of it but the GPUs' time lines, hour-of-week
 * profiles, process lists and statistics other than utilization, the workloads and the
 * recommendations, which no threshold, figure or finding gate reads (the tests hold the
 * comparison to the same result with and without them). `check` keeps this through the audit
 * rather than the whole baseline (read-streamed.ts reads it an entry at a time): of a
 * 10,000-GPU report, the part left out is most of its objects.
 */
export function comparedPart(baseline: Report): Report {
  return { ...baseline, gpus: baseline.gpus.map(comparedGpu), workloads: [], recommendations: [] };
}

/** What the comparison reads of one GPU entry (see comparedPart). */
export function comparedGpu(gpu: GpuEntry): GpuEntry {
  return { ...gpu, smActive: null, tensorActive: null, grEngineActive: null, memoryUsedMiB: null, timeline: null, hourOfWeekComputePct: null, processes: [] };
}

/**
 * Compares `current` with `baseline` under the same thresholds and finding levels.
 * Pure: the caller reads and validates the baseline file.
 */
export function compareWithBaseline(current: Report, baseline: Report, options: BaselineOptions): BaselineComparison {
  const comparison: BaselineComparison = {
    ref: options.ref,
    baselineGeneratedAt: baseline.generatedAt,
    tolerance: options.tolerance,
    regressions: [],
    improvements: [],
    notes: [],
  };
  compareThresholds(evaluateThresholds(current, options.thresholds), evaluateThresholds(baseline, options.thresholds), comparison);
  compareFigures(FLEET_FIGURES, baseline, current, 'fleet', 'the fleet', options.tolerance, comparison);

  const baselineGpus = new Map(baseline.gpus.map((gpu) => [gpu.id, gpu]));
  const currentIds = new Set(current.gpus.map((gpu) => gpu.id));
  for (const gpu of current.gpus) {
    const before = baselineGpus.get(gpu.id);
    if (before === undefined) {
      comparison.notes.push({ kind: 'new-gpu', target: gpu.id, summary: `new GPU ${gpuLabel(gpu)} (not in the baseline)` });
      continue;
    }
    compareFigures(GPU_FIGURES, before, gpu, gpu.id, gpuLabel(gpu), options.tolerance, comparison);
  }
  for (const gpu of baseline.gpus) {
    if (!currentIds.has(gpu.id)) comparison.notes.push({ kind: 'removed-gpu', target: gpu.id, summary: `GPU ${gpuLabel(gpu)} is in the baseline only` });
  }
  compareFindings(gateFindings(current, options.thresholds), gateFindings(baseline, options.thresholds), comparison);
  return comparison;
}
