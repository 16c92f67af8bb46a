import { describe, expect, it } from 'vitest';
import { runCheck } from '../../src/check/index.js';
import type { CheckReport } from '../../src/model/check-report.js';
import {
  MAX_ANNOTATIONS,
  annotationLines,
  stepSummaryText,
  checkAnnotations,
  escapeData,
  escapeProperty,
  formatAnnotation,
  isGitHubActions,
} from '../../src/render/github.js';
import { FINDINGS_AND_RECOMMENDATIONS } from '../fixtures/reports/findings-and-recommendations.js';
import { SMALL_FLEET } from '../fixtures/reports/small-fleet.js';

const failing: CheckReport = {
  report: SMALL_FLEET,
  check: runCheck(SMALL_FLEET, { thresholds: { limits: { maxWastePct: 10, minUtilization: 20 }, findingLevels: {} } }),
};

describe('GitHub Actions workflow commands', () => {
  it('escapes data (% CR LF) and properties (also : and ,) the way the runner unescapes them', () => {
    expect(escapeData('100% idle\r\nnext')).toBe('100%25 idle%0D%0Anext');
    expect(escapeProperty('a: b, c%')).toBe('a%3A b%2C c%25');
    expect(formatAnnotation({ kind: 'error', title: 'gpu-audit check: max-waste-pct', message: 'waste 41.7 %, limit 10 %\nsecond line' })).toBe(
      '::error title=gpu-audit check%3A max-waste-pct::waste 41.7 %25, limit 10 %25%0Asecond line',
    );
  });

  it('runs only when GITHUB_ACTIONS is exactly true', () => {
    expect(isGitHubActions({ GITHUB_ACTIONS: 'true' })).toBe(true);
    expect(isGitHubActions({ GITHUB_ACTIONS: 'false' })).toBe(false);
    expect(isGitHubActions({})).toBe(false);
  });

  it('annotates a breached limit as an error naming the limit, its actual value and the limit', () => {
    // Waste 41.67 % against <= 10 %: breached. Mean utilization 32.85 % against >= 20 %: holds, no annotation.
    expect(checkAnnotations(failing)).toEqual([{ kind: 'error', title: 'gpu-audit check: max-waste-pct', message: 'max-waste-pct on fleet: 41.7 %, limit <= 10 %' }]);
  });

  it('annotates findings by their effect: error when they fail the check, else warning, info as notice; errors first', () => {
    const check = runCheck(FINDINGS_AND_RECOMMENDATIONS, { thresholds: { limits: {}, findingLevels: { 'cpu-bound-pipeline': 'error' } } });
    const annotations = checkAnnotations({ report: FINDINGS_AND_RECOMMENDATIONS, check });
    expect(annotations.map((annotation) => [annotation.kind, annotation.title])).toEqual([
      ['error', 'gpu-audit cpu-bound-pipeline'],
      ['warning', 'gpu-audit idle-gpu'],
      ['warning', 'gpu-audit allocated-unused'],
      ['notice', 'gpu-audit low-compute'],
      ['notice', 'gpu-audit vram-overprovisioned'],
    ]);
    // --quiet: errors only.
    expect(annotationLines(annotations, { errorsOnly: true })).toHaveLength(1);
  });

  it('prints at most MAX_ANNOTATIONS, and says how many it left out', () => {
    const many = Array.from({ length: MAX_ANNOTATIONS + 7 }, (_, index) => ({ kind: 'warning' as const, title: 't', message: `m${index}` }));
    const lines = annotationLines(many, { errorsOnly: false });
    expect(lines).toHaveLength(MAX_ANNOTATIONS + 1);
    expect(lines.at(-1)).toBe('::notice title=gpu-audit check::7 more annotations left out; see the step summary or --format markdown');
  });
});

describe('the step summary', () => {
  it('is the verdict as Markdown, ending in a newline so that appended verdicts stay apart (e2e/check: appended run after run)', () => {
    const passing: CheckReport = { report: SMALL_FLEET, check: runCheck(SMALL_FLEET, { thresholds: { limits: { maxWastePct: 99 }, findingLevels: {} } }) };
    const failed = stepSummaryText(failing);
    expect(failed).toContain('## gpu-audit check FAILED: 1 limit(s) breached, 0 error-level finding(s)');
    expect(failed).toContain('| FAIL | max-waste-pct | fleet | 41.7 % | ≤ 10 % |');
    // The money after the verdict: 25.586 $/h x 730 h = $18,678; idle 30 of 72 GPU-hours costing $4,007.
    expect(failed).toContain('| GPU cost | \\$18,678/month for the GPUs seen |');
    expect(failed).toContain('| waste | 41.7% of GPU-hours idle (30.0 h of 72.0 h), \\$4,007/month |');
    expect(failed.endsWith('\n')).toBe(true);
    expect(stepSummaryText(passing)).toContain('## gpu-audit check PASSED: 0 limit(s) breached, 0 error-level finding(s)');
  });
});
