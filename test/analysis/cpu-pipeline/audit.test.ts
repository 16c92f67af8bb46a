/**
 * The whole path: a dcgm-exporter scrape and a node_exporter file read by the audit, the
 * workload's verdict filled from both.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAudit, type AuditOptions } from '../../../src/engine/run-audit.js';
import { repoRoot } from '../../helpers/corpus.js';

const T0 = 1_700_000_000_000;

function dcgmScrapes(utilizationPct: number): string {
  return [0, 15_000, 30_000]
    .map((offset) => `DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-aaaa",pci_bus_id="00000000:37:00.0",modelName="NVIDIA A10G",Hostname="gpu-node-1"} ${utilizationPct} ${T0 + offset}`)
    .join('\n') + '\n';
}

async function audit(utilizationPct: number, withNodeMetrics: boolean) {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-pipeline-'));
  writeFileSync(path.join(dir, 'dcgm.prom'), dcgmScrapes(utilizationPct));
  if (withNodeMetrics) copyFileSync(path.join(repoRoot, 'test/fixtures/node-metrics/node-exporter-federate.prom'), path.join(dir, 'node.prom'));
  const options: AuditOptions = {
    inputs: [dir],
    timeZone: 'UTC',
    idleThresholdPct: 5,
    keepGoing: false,
    pricing: 'on-demand',
    workloads: [{ name: 'trainer', kind: 'training', match: { hosts: ['gpu-node-1'] } }],
  };
  try {
    return (await runAudit(options)).report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('audit with node_exporter data', () => {
  it('judges a GPU at 20% on a 93%-busy host input-bound', async () => {
    const report = await audit(20, true);
    expect(report.sources.map((source) => source.format).sort()).toEqual(['dcgm-exporter', 'node-metrics']);
    const [workload] = report.workloads;
    // Host busy = 56 / 60 (see test/fixtures/node-metrics/README.md) = 93%, 1.9 of 2 cores.
    expect(workload!.cpuPipeline.verdict).toBe('input-bound');
    expect(workload!.cpuPipeline.evidence).toContain('host CPU 93% busy (1.9 of 2 cores)');
  });

  it('says unknown without CPU metrics, and idle for an idle GPU whatever the CPU', async () => {
    expect((await audit(20, false)).workloads[0]!.cpuPipeline.verdict).toBe('unknown');
    expect((await audit(0, true)).workloads[0]!.cpuPipeline.verdict).toBe('idle');
  });
});
