/**
 * The pull-request comment: found again by its marker, the verdict first, then the money,
 * then the largest steps; never longer than GitHub takes.
 */
import { describe, expect, it } from 'vitest';
import { runCheck } from '../../src/check/index.js';
import type { CheckReport } from '../../src/model/check-report.js';
import type { Finding, Report } from '../../src/model/report.js';
import { PR_COMMENT_MARKER, PR_COMMENT_MAX_CHARS, renderPrComment } from '../../src/render/pr-comment.js';
import { FINDINGS_AND_RECOMMENDATIONS } from '../fixtures/reports/findings-and-recommendations.js';
import { SMALL_FLEET } from '../fixtures/reports/small-fleet.js';

const checked = (report: Report, findingLevels: Record<string, 'error'> = {}): CheckReport => ({
  report,
  check: runCheck(report, { thresholds: { limits: { maxWastePct: 10 }, findingLevels } }),
});

describe('renderPrComment', () => {
  it('starts with the marker, then the verdict, then the fleet\'s money', () => {
    const lines = renderPrComment(checked(SMALL_FLEET)).split('\n');
    expect(lines[0]).toBe(PR_COMMENT_MARKER);
    expect(lines[1]).toBe('## gpu-audit check FAILED: 1 limit(s) breached, 0 error-level finding(s)');
    const money = lines.indexOf('| figure | value |');
    expect(money).toBeGreaterThan(lines.indexOf('| FAIL | max-waste-pct | fleet | 41.7 % | ≤ 10 % |'));
    // No plan in this report: the savings of its recommendations (none) stand in.
    expect(lines.slice(money + 2, money + 5)).toEqual([
      '| GPU cost | \\$18,678/month for the GPUs seen |',
      '| waste | 41.7% of GPU-hours idle (30.0 h of 72.0 h), \\$4,007/month |',
      '| savings | \\$0/month potential, from 0 recommendations |',
    ]);
  });

  it('is cut at a line below GitHub\'s 65,536 characters, saying so', () => {
    const finding = FINDINGS_AND_RECOMMENDATIONS.findings[0]!;
    const many: Finding[] = Array.from({ length: 2000 }, (_, index) => ({ ...finding, id: `${finding.id}-${index}`, message: `${finding.message} (${index})` }));
    const text = renderPrComment(checked({ ...FINDINGS_AND_RECOMMENDATIONS, findings: many }, { [finding.code]: 'error' }));
    expect(text.length).toBeLessThan(PR_COMMENT_MAX_CHARS + 100);
    expect(text.endsWith('\n… cut to fit a GitHub comment: the full verdict is in the report.\n')).toBe(true);
    expect(text.startsWith(PR_COMMENT_MARKER)).toBe(true);
  });
});
