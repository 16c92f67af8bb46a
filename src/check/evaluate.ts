/**
 * Pure evaluation of a Report against Thresholds: no I/O, no wording beyond names, so the
 * verdict can be tested figure by figure and rendered in any format.
 */
import type { GpuEntry, Report } from '../model/index.js';
import { THRESHOLD_DEFINITIONS, type ThresholdDefinition, type Thresholds } from '../model/index.js';
import { findingLevel, withinLimit } from './thresholds.js';
import type { GatedFinding, ThresholdResult } from '../model/index.js';

/**
 * The devices a per-GPU threshold looks at: every GPU and MIG device, except a GPU in MIG
 * mode whose MIG devices are in the report. Its memory is split among them, and their own
 * headroom is what a workload feels; the board's total would count unassigned slices twice.
 */
export function checkedDevices(gpus: readonly GpuEntry[]): GpuEntry[] {
  const parentsWithDevices = new Set(gpus.flatMap((gpu) => (gpu.parentId === null ? [] : [gpu.parentId])));
  return gpus.filter((gpu) => !parentsWithDevices.has(gpu.id));
}

function result(definition: ThresholdDefinition, limit: number, actual: number | null, target: string, host: string | null, basis?: string): ThresholdResult {
  const status = actual === null ? 'no-data' : withinLimit(definition.comparison, actual, limit) ? 'pass' : 'fail';
  return {
    key: definition.key,
    name: definition.name,
    scope: definition.scope,
    target,
    host,
    comparison: definition.comparison,
    limit,
    actual,
    unit: definition.unit,
    figure: definition.figure,
    ...(basis === undefined ? {} : { basis }),
    status,
    failsCheck: status === 'fail',
  };
}

/**
 * One result per fleet threshold set and, for a per-GPU threshold, one per checked device
 * (a fleet with no device that reports the figure gets one `no-data` result, so a limit
 * that was set never silently disappears). Definition order, then report order.
 */
export function evaluateThresholds(report: Report, thresholds: Thresholds): ThresholdResult[] {
  const results: ThresholdResult[] = [];
  const devices = checkedDevices(report.gpus);
  for (const definition of THRESHOLD_DEFINITIONS) {
    const limit = thresholds.limits[definition.key];
    if (limit === undefined) continue;
    if (definition.scope === 'fleet') {
      results.push(result(definition, limit, definition.read(report.summary), 'fleet', null, definition.basis?.(report.summary)));
      continue;
    }
    const reporting = devices.filter((gpu) => definition.read(gpu) !== null);
    if (reporting.length === 0) results.push(result(definition, limit, null, 'fleet', null));
    for (const gpu of reporting) results.push(result(definition, limit, definition.read(gpu), gpu.id, gpu.host));
  }
  return results;
}

/** The report's findings with the level the check gives each code; `off` codes are dropped. Report order. */
export function gateFindings(report: Report, thresholds: Thresholds): GatedFinding[] {
  const gated: GatedFinding[] = [];
  for (const finding of report.findings) {
    const level = findingLevel(thresholds, finding.code);
    if (level === 'off') continue;
    gated.push({ id: finding.id, code: finding.code, level, severity: finding.severity, target: finding.target, message: finding.message, failsCheck: level === 'error' });
  }
  return gated;
}
