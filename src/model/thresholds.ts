/**
 * What `gpu-audit check` can gate on, declared once: the CLI flags, the help text, the
 * evaluation and the CI outputs (JUnit, SARIF) all read THRESHOLD_DEFINITIONS, so adding a
 * threshold is one entry here.
 */
import type { FleetSummary, GpuEntry } from './report.js';

export type ThresholdKey = 'maxWastePct' | 'maxIdleGpuHours' | 'minUtilization' | 'maxMonthlyWasteUsd' | 'maxSavingsUsd' | 'minVramHeadroomPct' | 'maxVramHeadroomPct';

/** `at-most`: the figure must be <= the limit; `at-least`: >= the limit. */
export type Comparison = 'at-most' | 'at-least';

/** A percentage (0-100) or any non-negative number: how a flag's value is checked. */
export type LimitDomain = 'percent' | 'non-negative';

interface DefinitionBase {
  key: ThresholdKey;
  /** Kebab-case name: the flag without `--`, the JUnit test name, the SARIF rule suffix. */
  name: string;
  unit: '%' | 'h' | 'USD/month';
  comparison: Comparison;
  domain: LimitDomain;
  /** The Report figure it reads, as a JSON path (documentation and output). */
  figure: string;
  description: string;
}

/** A fleet threshold reads one figure of the summary. */
export interface FleetThresholdDefinition extends DefinitionBase {
  scope: 'fleet';
  read: (summary: FleetSummary) => number | null;
  /** The signal the figure was taken on, where it depends on the fleet (the compute basis); the verdict names it. */
  basis?: (summary: FleetSummary) => string;
}

/** A per-GPU threshold reads one figure of every GPU it applies to (one result per GPU). */
export interface GpuThresholdDefinition extends DefinitionBase {
  scope: 'gpu';
  read: (gpu: GpuEntry) => number | null;
}

export type ThresholdDefinition = FleetThresholdDefinition | GpuThresholdDefinition;

export const THRESHOLD_DEFINITIONS: readonly ThresholdDefinition[] = [
  {
    key: 'maxWastePct',
    name: 'max-waste-pct',
    scope: 'fleet',
    unit: '%',
    comparison: 'at-most',
    domain: 'percent',
    figure: 'summary.wastePct',
    description: 'fleet waste: idle GPU-hours / GPU-hours x 100 at most this',
    read: (summary) => summary.wastePct,
  },
  {
    key: 'maxIdleGpuHours',
    name: 'max-idle-gpu-hours',
    scope: 'fleet',
    unit: 'h',
    comparison: 'at-most',
    domain: 'non-negative',
    figure: 'summary.idleGpuHours',
    description: 'idle GPU-hours over the window at most this',
    read: (summary) => summary.idleGpuHours,
  },
  {
    key: 'minUtilization',
    name: 'min-utilization',
    scope: 'fleet',
    unit: '%',
    comparison: 'at-least',
    domain: 'percent',
    figure: 'summary.meanComputePct',
    description: 'fleet mean compute, by compute basis (GPU-hour weighted) at least this',
    read: (summary) => summary.meanComputePct,
    basis: (summary) => summary.computeBasis,
  },
  {
    key: 'maxMonthlyWasteUsd',
    name: 'max-monthly-waste-usd',
    scope: 'fleet',
    unit: 'USD/month',
    comparison: 'at-most',
    domain: 'non-negative',
    figure: 'summary.monthlyWasteUsd',
    description: 'cost of idle time per month (730 h) at most this',
    read: (summary) => summary.monthlyWasteUsd,
  },
  {
    key: 'maxSavingsUsd',
    name: 'max-savings-usd',
    scope: 'fleet',
    unit: 'USD/month',
    comparison: 'at-most',
    domain: 'non-negative',
    figure: 'plan.monthlySavingsUsd',
    description: 'the fleet plan\'s saving per month (current - target fleet) at most this: more is money left on the table',
    read: (summary) => summary.potentialMonthlySavingsUsd,
  },
  {
    key: 'minVramHeadroomPct',
    name: 'min-vram-headroom-pct',
    scope: 'gpu',
    unit: '%',
    comparison: 'at-least',
    domain: 'percent',
    figure: 'gpus[].vramHeadroomPct',
    description: 'every GPU keeps at least this share of its memory free at peak (OOM risk)',
    read: (gpu) => gpu.vramHeadroomPct,
  },
  {
    key: 'maxVramHeadroomPct',
    name: 'max-vram-headroom-pct',
    scope: 'gpu',
    unit: '%',
    comparison: 'at-most',
    domain: 'percent',
    figure: 'gpus[].vramHeadroomPct',
    description: 'no GPU leaves more than this share of its memory unused at peak (oversized GPU)',
    read: (gpu) => gpu.vramHeadroomPct,
  },
];

/**
 * How a finding code counts in a check: `error` fails it, `warn` reports it (annotation,
 * SARIF result) without failing, `off` ignores it.
 */
export const FINDING_LEVELS = ['error', 'warn', 'off'] as const;
export type FindingLevel = (typeof FINDING_LEVELS)[number];

/**
 * Findings are advice until a team opts a code into the gate: a code without a level is
 * `warn`, so a fleet's first check fails only on the limits it set.
 */
export const DEFAULT_FINDING_LEVEL: FindingLevel = 'warn';

export interface Thresholds {
  /** Limits set, by key; a key that is absent is not checked. */
  limits: Partial<Record<ThresholdKey, number>>;
  /** Level per finding code (idle-gpu, low-compute, ...); codes not named are DEFAULT_FINDING_LEVEL. */
  findingLevels: Record<string, FindingLevel>;
}

export const NO_THRESHOLDS: Thresholds = { limits: {}, findingLevels: {} };

