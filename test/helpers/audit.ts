/**
 * Audits as tests run them: the options a test states only where it changes them, and the demo
 * fleet's telemetry as the renderer tests read it.
 */
import path from 'node:path';
import { runAudit, type AuditOptions, type AuditResult } from '../../src/engine/index.js';
import { repoRoot } from './corpus.js';

/** UTC, idle below 5 %, on-demand prices, stop at the first broken input. */
export const AUDIT_DEFAULTS = { timeZone: 'UTC', idleThresholdPct: 5, keepGoing: false, pricing: 'on-demand' } as const satisfies Partial<AuditOptions>;

/** AuditOptions with AUDIT_DEFAULTS for whatever `options` leaves out. */
export function auditOptions(options: Partial<AuditOptions> & Pick<AuditOptions, 'inputs'>): AuditOptions {
  return { ...AUDIT_DEFAULTS, ...options };
}

/** The demo fleet's four logs without its gpu-audit.yaml (no workloads), priced in aws us-east-1, on 2026-12-01. */
export function auditDemoTelemetry(): Promise<AuditResult> {
  return runAudit(auditOptions({
    inputs: [path.join(repoRoot, 'fixtures/demo')],
    provider: 'aws',
    region: 'us-east-1',
    now: () => new Date('2026-12-01T00:00:00Z'),
  }));
}
