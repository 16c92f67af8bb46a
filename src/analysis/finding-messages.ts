/**
 * Wording of the analysis findings, apart from the rules that raise them: a finding is its
 * code and evidence; this turns the two into a sentence for people.
 */
import type { Finding } from '../model/index.js';
import type { AnalysisFindingCode } from './finding-rules.js';

type Evidence = Finding['evidence'];

const percent = (fraction: unknown): string => `${Math.round(Number(fraction) * 1000) / 10}%`;
const hours = (value: unknown): string => `${Math.round(Number(value) * 10) / 10} h`;
const mib = (value: unknown): string => `${Math.round(Number(value))} MiB`;

/** What counted as idle: a signal below the threshold, or (MIG, no utilization) no compute process. */
const idleRule = (e: Evidence): string =>
  e.migSliceWeighted === true
    ? 'its MIG instances\' idle time by compute slices, unpartitioned slices idle'
    : e.computeBasis === 'processes' ? 'no compute process running' : `${String(e.computeBasis)} below ${String(e.idleThresholdPct)}%`;

const MESSAGES: Record<AnalysisFindingCode, (evidence: Evidence) => string> = {
  'idle-gpu': (e) => `Idle ${percent(e.idleFraction)} of ${hours(e.gpuHours)} observed (${hours(e.idleHours)} idle: ${idleRule(e)}).`,
  'short-window': (e) =>
    e.pointValuesOnly === true
      ? 'Only snapshots without duration were given: figures are point values, not time-weighted use.'
      : `The data covers ${hours(e.windowHours)}, less than ${e.minWindowHours} h: daily cycles may be missed.`,
  'vram-overprovisioned': (e) =>
    `Peak memory use ${mib(e.peakMiB)} is ${percent(e.peakShareOfTotal)} of ${mib(e.memoryTotalMiB)} over ${hours(e.gpuHours)}.`,
  'low-compute': (e) =>
    `Mean utilization ${Math.round(Number(e.meanUtilizationPct) * 10) / 10}% (p95 ${e.p95UtilizationPct}%) over ${hours(e.gpuHours)}.`,
};

export function findingMessage(code: AnalysisFindingCode, evidence: Evidence): string {
  return MESSAGES[code](evidence);
}
