/**
 * Time-slicing: units whose hour-of-week profiles rarely overlap (nightly training and
 * business-hours inference) and whose VRAM fits one GPU together take turns on one GPU.
 *
 * Needs: hourOfWeekPct of every member (an hour is busy when its mean compute is at or above
 * the idle threshold), vram.requiredMiB, memoryTotalMiB, tenant, hourlyUsdPerGpu.
 * Overlap share = hours in which two or more members are busy / hours all members were observed;
 * a group is admitted while that share is at most `timeSliceMaxOverlapShare`. Memory is not
 * time-sliced: every member's memory stays resident, so the sum must fit.
 */
import { HOURS_PER_MONTH } from '../../model/index.js';
import { stringify } from 'yaml';
import type { Recommendation } from '../../model/index.js';
import { gpuName } from '../candidates.js';
import { confidenceOf, weaknessesOf } from '../confidence.js';
import { type DemandUnit, type RecommendOptions, type StrategyResult } from '../types.js';
import { money, percent, round2 } from '../units.js';
import { groupUnits, hostsRisk, ISOLATION_RISK, shareable, tenantBlockedPairs, tenantsOf, UNKNOWN_TENANT_RISK, type Admission, type Closed } from './grouping.js';

export interface Overlap {
  observedHours: number;
  overlapHours: number;
}

/** Hours of the week in which two or more members are busy, out of the hours all were observed. */
export function overlapOf(members: readonly DemandUnit[], idleThresholdPct: number): Overlap {
  return overlapOfWeeks(members.map((unit) => weekOf(unit, idleThresholdPct)));
}

/** An hour of a unit's week: busy (1) counts towards an overlap, idle (0) does not, unobserved (2) drops the hour. */
const IDLE = 0;
const UNOBSERVED = 2;

/** The unit's 168 hours: unobserved where it has no value, else busy at or above the idle threshold. */
function hourStatesOf(unit: DemandUnit, idleThresholdPct: number): Uint8Array {
  const states = new Uint8Array(168);
  for (let hour = 0; hour < 168; hour += 1) {
    const value = unit.hourOfWeekPct?.[hour] ?? null;
    states[hour] = value === null ? UNOBSERVED : value >= idleThresholdPct ? 1 : IDLE;
  }
  return states;
}

/** 168 hours as bits, in six 32-bit words. */
const WEEK_WORDS = 6;

/** A unit's hours as overlapOfWeeks reads them: states, and where every hour was observed, its busy hours as bits. */
interface Week {
  states: Uint8Array;
  busyBits: Uint32Array | null;
}

function weekOf(unit: DemandUnit, idleThresholdPct: number): Week {
  const states = hourStatesOf(unit, idleThresholdPct);
  if (states.includes(UNOBSERVED)) return { states, busyBits: null };
  const busyBits = new Uint32Array(WEEK_WORDS);
  for (let hour = 0; hour < 168; hour += 1) if (states[hour] !== IDLE) busyBits[hour >>> 5]! |= 1 << (hour & 31);
  return { states, busyBits };
}

function bitCount(word: number): number {
  let value = word - ((word >>> 1) & 0x55555555);
  value = (value & 0x33333333) + ((value >>> 2) & 0x33333333);
  return (((value + (value >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * Hours in which two or more of the weeks are busy, when every one was observed in every hour
 * (then all 168 hours count as observed): per word, the bits busy in at least one week so far
 * and those busy in at least two.
 */
function overlapHoursOfFullWeeks(weeks: readonly Week[]): number {
  let hours = 0;
  for (let word = 0; word < WEEK_WORDS; word += 1) {
    let once = 0;
    let twice = 0;
    for (const week of weeks) {
      const busy = week.busyBits![word]!;
      twice |= once & busy;
      once |= busy;
    }
    hours += bitCount(twice);
  }
  return hours;
}

/**
 * overlapOf on weeks read already. The admission asks it of every open group for every unit of
 * a pool (first-fit), so it counts bits where every week was observed in every hour (the usual
 * case) and else adds up small integers, rather than build arrays for each of the 168 hours.
 */
function overlapOfWeeks(weeks: readonly Week[]): Overlap {
  if (weeks.every((week) => week.busyBits !== null)) return { observedHours: 168, overlapHours: overlapHoursOfFullWeeks(weeks) };
  const all = weeks.map((week) => week.states);
  let observedHours = 0;
  let overlapHours = 0;
  for (let hour = 0; hour < 168; hour += 1) {
    let busy = 0;
    let observed = true;
    for (const states of all) {
      const state = states[hour]!;
      if (state === UNOBSERVED) {
        observed = false;
        break;
      }
      busy += state;
    }
    if (!observed) continue;
    observedHours += 1;
    if (busy >= 2) overlapHours += 1;
  }
  return { observedHours, overlapHours };
}

/** The rule of the header: the members' summed VRAM fits, and their overlap share is small enough. Each unit's hours are read once. */
function admission(options: RecommendOptions): Admission {
  const weeksByUnit = new WeakMap<DemandUnit, Week>();
  const weekOfUnit = (unit: DemandUnit): Week => {
    let week = weeksByUnit.get(unit);
    if (week === undefined) {
      week = weekOf(unit, options.idleThresholdPct);
      weeksByUnit.set(unit, week);
    }
    return week;
  };
  return (members, candidate) => {
    const total = candidate.memoryTotalMiB;
    if (total === null) return false;
    let requiredMiB = 0;
    for (const member of members) requiredMiB += member.vram.requiredMiB!;
    requiredMiB += candidate.vram.requiredMiB!;
    if (requiredMiB > total) return false;
    const overlap = overlapOfWeeks([...members.map(weekOfUnit), weekOfUnit(candidate)]);
    return overlap.observedHours > 0 && overlap.overlapHours / overlap.observedHours <= options.timeSliceMaxOverlapShare;
  };
}

/**
 * A group whose summed required VRAM exceeds every GPU of the pool takes no further unit: the
 * memory rule is checked first, and required VRAM is never negative.
 */
function closedGroups(pool: readonly DemandUnit[]): Closed {
  if (!pool.every((unit) => unit.vram.requiredMiB !== null && unit.vram.requiredMiB >= 0)) return () => false;
  const largestTotal = pool.reduce((largest, unit) => Math.max(largest, unit.memoryTotalMiB ?? -Infinity), -Infinity);
  return (members) => members.reduce((sum, unit) => sum + unit.vram.requiredMiB!, 0) > largestTotal;
}

export function timeSlicingConfig(replicas: number): string {
  const plugin = { version: 'v1', sharing: { timeSlicing: { resources: [{ name: 'nvidia.com/gpu', replicas }] } } };
  return `# NVIDIA k8s-device-plugin config: one GPU advertised as ${replicas} time-sliced replicas\n${stringify(plugin)}`;
}

export function timeSlicing(units: readonly DemandUnit[], options: RecommendOptions): StrategyResult {
  const result: StrategyResult = { recommendations: [], notEnoughData: [] };
  const candidates = units.filter(shareable);
  const withProfile = candidates.filter((unit) => unit.hourOfWeekPct !== null);
  for (const unit of candidates.filter((candidate) => candidate.hourOfWeekPct === null)) {
    result.notEnoughData.push({ strategy: 'time-slicing', targets: [unit.id], reason: 'no hour-of-week profile: cannot tell when it is busy' });
  }
  const admit = admission(options);
  if (!options.allowCrossTenantSharing) {
    for (const [left, right] of tenantBlockedPairs(withProfile, admit)) {
      result.notEnoughData.push({
        strategy: 'time-slicing',
        targets: [left.id, right.id],
        declined: true,
        reason: `tenants ${left.tenant} and ${right.tenant} differ: time-slicing gives no memory or fault isolation, so they are not put on one GPU (MIG would isolate them)`,
      });
    }
  }
  for (const group of groupUnits(withProfile, admit, options.allowCrossTenantSharing, closedGroups(withProfile))) {
    result.recommendations.push(recommendationFor(group.members, options));
  }
  return result;
}

function recommendationFor(members: readonly DemandUnit[], options: RecommendOptions): Recommendation {
  const first = members[0]!;
  const perGpu = first.hourlyUsdPerGpu!;
  const freed = members.length - 1;
  const overlap = overlapOf(members, options.idleThresholdPct);
  const vramSum = members.reduce((sum, unit) => sum + unit.vram.requiredMiB!, 0);
  const reasons = weaknessesOf(members, options, { vram: true, compute: true });
  if (overlap.observedHours < 168) reasons.push(`${overlap.observedHours} of the 168 hours of the week observed: the other hours may overlap`);
  const unknownTenant = members.some((unit) => unit.tenant === null);
  return {
    id: `time-slicing:${members.map((unit) => unit.id).join('+')}`,
    kind: 'time-slicing',
    targets: members.map((unit) => unit.id),
    current: `${members.length} x ${gpuName(first.modelKey)}, one workload each (${money(perGpu * members.length)}/h)`,
    proposed: `1 x ${gpuName(first.modelKey)} time-sliced ${members.length} ways (${money(perGpu)}/h)`,
    monthlySavingsUsd: round2(freed * perGpu * HOURS_PER_MONTH),
    confidence: confidenceOf(reasons),
    confidenceReasons: reasons,
    risks: [
      ISOLATION_RISK,
      'memory is not sliced: all members stay resident and together must fit the GPU',
      ...hostsRisk(members),
      `in ${overlap.overlapHours} of ${overlap.observedHours} observed hours two members were busy at once: those hours run at a fraction of the speed`,
      ...(unknownTenant ? [UNKNOWN_TENANT_RISK] : [`tenants: ${tenantsOf(members)}`]),
    ],
    rationale: `Their busy hours rarely coincide (${percent(overlap.observedHours === 0 ? 0 : overlap.overlapHours / overlap.observedHours, 1)} of observed hours overlap) and together they need ${Math.round(vramSum / 1024)} GiB: one GPU can take turns serving them.`,
    evidence: {
      members: members.length,
      overlapHours: overlap.overlapHours,
      observedHours: overlap.observedHours,
      maxOverlapShare: options.timeSliceMaxOverlapShare,
      requiredVramMiBSum: vramSum,
      gpuVramMiB: first.memoryTotalMiB,
      gpusFreed: freed,
      tenants: tenantsOf(members),
    },
    config: { format: 'yaml', text: timeSlicingConfig(members.length) },
  };
}
