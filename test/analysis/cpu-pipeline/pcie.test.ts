/**
 * PCIe traffic per GPU: carried from the samples into the report entry (time-weighted like
 * every figure, KiB/s in, MiB/s out), with the link's bandwidth from its generation and
 * width (worked out in test/analysis/pcie-link.test.ts), and used by the workload verdict.
 */
import { describe, expect, it } from 'vitest';
import { workloadCpuPipeline } from '../../../src/analysis/cpu-pipeline/workload.js';
import { runAudit } from '../../../src/engine/run-audit.js';
import { analyze, gpu0, only, samplesAt } from '../events.js';
import { corpusPath } from '../../helpers/corpus.js';
import { AUDIT_DEFAULTS } from '../../helpers/audit.js';

const MIB = 2 ** 20;

describe('per-GPU PCIe figures', () => {
  it('time-weights the receive rate like every figure: a capped gap counts twice the median interval', () => {
    // Samples at 0, 10, 20, 60 s: intervals 10, 10, 40; median 10, so the 40 s gap is capped
    // at 20 s and the last sample stands for the median 10 s. Receive 1, 1, 4, 1 MiB/s
    // (1024, 1024, 4096, 1024 KiB/s): mean = (1x10 + 1x10 + 4x20 + 1x10) / 50 = 110 / 50 = 2.2;
    // weight at 1 MiB/s is 30 of 50 = 60% < 95%, so p95 = 4; max = 4.
    // Transmit 0.5 MiB/s throughout.
    const profile = analyze([{
      source: 'a',
      samples: samplesAt(gpu0, [0, 10, 20, 60], [1024, 1024, 4096, 1024].map((rx) => ({ utilizationPct: 30, pcieRxKiBps: rx, pcieTxKiBps: 512 }))),
      run: (sink) => sink.device({ ref: gpu0, pcieLinkMaxGeneration: 4, pcieLinkMaxWidth: 16 }),
    }]);
    const gpu = only(profile.gpus);
    expect(gpu.pcieRxMiBps!.mean).toBeCloseTo(2.2, 12);
    expect(gpu.pcieRxMiBps).toMatchObject({ p95: 4, max: 4 });
    expect(gpu.pcieTxMiBps).toEqual({ mean: 0.5, p95: 0.5, max: 0.5 });
    expect(gpu.pcieLink).toEqual({ generation: 4, width: 16, bandwidthMiBps: (16e9 * (128 / 130) * 16) / 8 / MIB });
  });

  it('is null where no source reports PCIe', () => {
    const gpu = only(analyze([{ source: 'a', samples: samplesAt(gpu0, [0, 10], [{ utilizationPct: 30 }]) }]).gpus);
    expect(gpu).toMatchObject({ pcieRxMiBps: null, pcieTxMiBps: null, pcieLink: null });
  });

  it('reads the corpus RTX 3080 document end to end: 14742333 KB/s received on a Gen4 x16 link', async () => {
    // telegraf-rtx-3080-v13.xml: rx_util 14742333 KB/s, tx_util 1066699 KB/s, max_link_gen 4,
    // max_link_width 16x. One document is one point value: mean = p95 = max.
    // 14742333 / 1024 = 14396.8096 MiB/s; 1066699 / 1024 = 1041.6982 MiB/s.
    const { report } = await runAudit({
      inputs: [corpusPath('nvidia-smi-xml', 'telegraf-rtx-3080-v13.xml')], ...AUDIT_DEFAULTS,
    });
    const gpu = only(report.gpus);
    expect(gpu.pcieRxMiBps).toEqual({ mean: 14_742_333 / 1024, p95: 14_742_333 / 1024, max: 14_742_333 / 1024 });
    expect(gpu.pcieTxMiBps).toEqual({ mean: 1_066_699 / 1024, p95: 1_066_699 / 1024, max: 1_066_699 / 1024 });
    expect(gpu.pcieLink).toEqual({ generation: 4, width: 16, bandwidthMiBps: (16e9 * (128 / 130) * 16) / 8 / MIB });
  });
});

describe('workload verdict from its GPUs\' PCIe', () => {
  const GEN3_X16 = { generation: 3, width: 16, bandwidthMiBps: (8e9 * (128 / 130) * 16) / 8 / MIB };
  const stats = (mean: number) => ({ mean, p95: mean, max: mean });

  it('judges by the GPU nearest its threshold, each against its own link', () => {
    // GPU a: 9000 MiB/s on Gen3 x16, threshold 0.5 x 15024.04 = 7512.02 -> 1.198 of it.
    // GPU b: 4500 MiB/s, link unknown, threshold 4096 -> 1.099 of it. GPU c: none reported.
    // a is nearest (furthest past) its threshold: input-bound with a's figures.
    const judgement = workloadCpuPipeline({
      devices: [
        { id: 'GPU-b', host: 'h', pcieRxMiBps: stats(4500), pcieLink: null },
        { id: 'GPU-a', host: 'h', pcieRxMiBps: stats(9000), pcieLink: GEN3_X16 },
        { id: 'GPU-c', host: 'h' },
      ],
      pods: [],
      compute: { mean: 30, basis: 'sm-active' },
      hourlyUsd: null,
    }, {});
    expect(judgement.verdict).toBe('input-bound');
    // 9000 / 15024.04 = 59.90%.
    expect(judgement.evidence).toContain('PCIe receive of GPU-a averaged 9000.0 MiB/s (59.9% of its Gen3 x16 link\'s 15024 MiB/s)');
  });
});

describe('PCIe of MIG devices', () => {
  it('gives a MIG device its board\'s link but no traffic of its own (PCIe counters are per board)', async () => {
    // netdata-a100-sxm4-mig.xml: max_link_gen 4, max_link_width 16x, rx_util 0 KB/s, two MIG devices.
    const { report } = await runAudit({
      inputs: [corpusPath('nvidia-smi-xml', 'netdata-a100-sxm4-mig.xml')], ...AUDIT_DEFAULTS,
    });
    const [board, ...instances] = report.gpus;
    const gen4x16 = { generation: 4, width: 16, bandwidthMiBps: (16e9 * (128 / 130) * 16) / 8 / MIB };
    expect(board).toMatchObject({ parentId: null, pcieLink: gen4x16, pcieRxMiBps: { mean: 0, p95: 0, max: 0 } });
    expect(instances).toHaveLength(2);
    for (const instance of instances) expect(instance).toMatchObject({ parentId: board!.id, pcieLink: gen4x16, pcieRxMiBps: null });
  });
});
