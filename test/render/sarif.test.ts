import { describe, expect, it } from 'vitest';
import { runCheck } from '../../src/check/index.js';
import type { Thresholds } from '../../src/model/index.js';
import type { CheckReport } from '../../src/model/check-report.js';
import type { Report } from '../../src/model/report.js';
import { renderSarif } from '../../src/render/sarif.js';
import { sarifValidator } from './sarif-validator.js';
import { FINDINGS_AND_RECOMMENDATIONS, IDLE_L4_ID } from '../fixtures/reports/findings-and-recommendations.js';
import { A10G_ID, SMALL_FLEET } from '../fixtures/reports/small-fleet.js';
import { copyOf } from './helpers.js';

const validate = sarifValidator();

interface SarifLog {
  $schema: string;
  version: string;
  runs: {
    tool: { driver: { name: string; version: string; rules: { id: string; shortDescription: { text: string } }[] } };
    results: {
      ruleId: string;
      ruleIndex: number;
      level: string;
      message: { text: string };
      locations: { logicalLocations: { name: string; fullyQualifiedName: string }[]; physicalLocation?: { artifactLocation: { uri: string } } }[];
    }[];
  }[];
}

function checkOf(report: Report, thresholds: Thresholds, baseline?: Report): CheckReport {
  return { report, check: runCheck(report, { thresholds, ...(baseline === undefined ? {} : { baseline: { report: baseline, ref: 'b.json', tolerance: 5 } }) }) };
}

function sarif(check: CheckReport): SarifLog {
  const log = JSON.parse(renderSarif(check)) as SarifLog;
  expect(validate(log)).toBe(true);
  return log;
}

describe('SARIF 2.1.0 of a check', () => {
  it('validates against the OASIS schema, with or without results', () => {
    sarif(checkOf(SMALL_FLEET, { limits: {}, findingLevels: {} }));
    sarif(checkOf(FINDINGS_AND_RECOMMENDATIONS, { limits: { maxWastePct: 1, minVramHeadroomPct: 50 }, findingLevels: { 'idle-gpu': 'error' } }));
  });

  it('names the tool and declares each rule once, with a stable id: the finding code or threshold/<name>', () => {
    const log = sarif(checkOf(FINDINGS_AND_RECOMMENDATIONS, { limits: { maxWastePct: 1 }, findingLevels: {} }));
    expect(log.version).toBe('2.1.0');
    expect(log.$schema).toMatch(/sarif-schema-2\.1\.0\.json$/u);
    const [run] = log.runs;
    expect(run!.tool.driver).toMatchObject({ name: 'gpu-audit', version: '0.1.0' });
    expect(run!.tool.driver.rules.map((rule) => rule.id)).toEqual(['allocated-unused', 'cpu-bound-pipeline', 'idle-gpu', 'low-compute', 'threshold/max-waste-pct', 'vram-overprovisioned']);
    for (const result of run!.results) expect(run!.tool.driver.rules[result.ruleIndex]!.id).toBe(result.ruleId);
  });

  it('gives each result the level of its effect on the check: error fails it, warning and note do not', () => {
    const log = sarif(checkOf(FINDINGS_AND_RECOMMENDATIONS, { limits: {}, findingLevels: { 'idle-gpu': 'error' } }));
    const levels = Object.fromEntries(log.runs[0]!.results.map((result) => [result.ruleId, result.level]));
    // idle-gpu: set to error. allocated-unused: severity error in the report but warn in the check.
    // low-compute, vram-overprovisioned: info findings -> note.
    expect(levels).toEqual({ 'idle-gpu': 'error', 'allocated-unused': 'warning', 'cpu-bound-pipeline': 'warning', 'low-compute': 'note', 'vram-overprovisioned': 'note' });
  });

  it('locates a result on its GPU (host/id), a workload, or the fleet', () => {
    const log = sarif(checkOf(FINDINGS_AND_RECOMMENDATIONS, { limits: { maxWastePct: 1 }, findingLevels: {} }));
    const byRule = new Map(log.runs[0]!.results.map((result) => [result.ruleId, result.locations[0]!.logicalLocations[0]!]));
    expect(byRule.get('idle-gpu')).toMatchObject({ name: IDLE_L4_ID, fullyQualifiedName: `gke-prod-gpu-pool-1a2b3c4d-x7k9/${IDLE_L4_ID}` });
    expect(byRule.get('cpu-bound-pipeline')).toMatchObject({ name: 'trainer' });
    expect(byRule.get('threshold/max-waste-pct')).toMatchObject({ name: 'fleet' });
  });

  it('adds the input file as physical location only where the report has a single input, a file', () => {
    const location = (report: Report) => sarif(checkOf(report, { limits: { maxWastePct: 1 }, findingLevels: {} })).runs[0]!.results[0]!.locations[0]!.physicalLocation;
    // FINDINGS_AND_RECOMMENDATIONS: a Prometheus URL and pods.json; SMALL_FLEET: two files. Neither file certainly holds every result.
    expect(location(FINDINGS_AND_RECOMMENDATIONS)).toBeUndefined();
    expect(location(SMALL_FLEET)).toBeUndefined();
    const single = copyOf(SMALL_FLEET);
    single.sources = [{ ref: 'logs/node a#1.xml', format: 'nvidia-smi-xml', records: 1, warnings: [] }];
    // A relative path stays relative (to the directory the check ran in), percent-encoded as a URI reference.
    expect(location(single)).toEqual({ artifactLocation: { uri: 'logs/node%20a%231.xml' } });
    single.sources = [{ ref: '/data/gpu logs/node.xml', format: 'nvidia-smi-xml', records: 1, warnings: [] }];
    expect(location(single)).toEqual({ artifactLocation: { uri: 'file:///data/gpu%20logs/node.xml' } });
    single.sources = [{ ref: '-', format: 'nvidia-smi-xml', records: 1, warnings: [] }];
    expect(location(single)).toBeUndefined();
  });

  it('reports a figure that worsened since the baseline as an error result', () => {
    const better = copyOf(SMALL_FLEET);
    better.gpus.find((gpu) => gpu.id === A10G_ID)!.idleFraction = 0.25;
    const log = sarif(checkOf(SMALL_FLEET, { limits: {}, findingLevels: {} }, better));
    expect(log.runs[0]!.results).toMatchObject([{ ruleId: 'baseline/figure-worsened', level: 'error' }]);
    expect(log.runs[0]!.results[0]!.message.text).toContain('idlePct');
  });
});
