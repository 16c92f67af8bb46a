/** The benchmark's results: what bench/results.json holds and RESULTS.md shows. */
import type { Role } from './contenders.js';
import type { Machine } from './machine.js';
import type { Spread } from './stats.js';
import type { Verdict } from './targets.js';

export interface ContenderResult {
  id: string;
  label: string;
  role: Role;
  /** Null when every run failed (see lastFailure). */
  mbPerSecond: Spread | null;
  wallSeconds: Spread | null;
  /** Highest peak RSS over the runs. */
  peakRssMiB: number | null;
  /** Runs that failed twice in a row (each failure is retried once) and were left out. */
  failedRuns: number;
  lastFailure: string | null;
  /** gpu-audit's median MB/s over this contender's (for gpu-audit itself: null). */
  gpuAuditRatio: number | null;
}

export interface InputResult {
  id: string;
  title: string;
  fileName: string;
  bytes: number;
  sha256: string;
  repetitions: number;
  contenders: ContenderResult[];
}

export interface StartupResult {
  fileBytes: number;
  repetitions: number;
  gpuAuditSeconds: Spread;
  nodeSeconds: Spread;
  /** Median audit wall time over median `node -e 0` wall time. */
  ratio: number;
}

export interface PlanningResult {
  gpus: number;
  workloads: number;
  /** Demand units the planner placed (workloads, and GPUs no workload holds). */
  placements: number;
  steps: number;
  repetitions: number;
  /** planFleet alone, in this process: no parsing, no rendering. */
  seconds: Spread;
}

export interface BenchResults {
  generatedAt: string;
  /** 1 = the full sizes. */
  scale: number;
  commandLine: string;
  durationSeconds: number;
  machine: Machine;
  inputs: InputResult[];
  startup: StartupResult | null;
  planning: PlanningResult | null;
  verdicts: Verdict[];
}
