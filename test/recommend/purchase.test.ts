import { describe, expect, it } from 'vitest';
import { checkpointFindings, spotExpectedUsdPerHour } from '../../src/recommend/purchase.js';
import { unit } from './helpers.js';

describe('purchase plan: spot for checkpointed training', () => {
  it('adds lost work per interruption: half a checkpoint interval plus the restore time', () => {
    // 30 min interval, 5 min restore: 15 + 5 = 20 min = 1/3 h lost per interruption; 0.1 interruptions/h:
    // $3 x (1 + 0.1 x 1/3) = $3.10 per useful GPU-hour.
    expect(spotExpectedUsdPerHour(3, 0.1, { intervalSeconds: 1800, restoreSeconds: 300 })).toBeCloseTo(3.1, 9);
  });

  it('flags training that cannot use spot for want of checkpoints', () => {
    const findings = checkpointFindings([unit({ id: 'train', kind: 'training', checkpoint: 'none' }), unit({ id: 'serve', kind: 'inference' })]);
    expect(findings.map((finding) => [finding.code, finding.target])).toEqual([['no-checkpoint-on-spot-candidate', 'train']]);
    expect(findings[0]!.message).toMatch(/60-80%/);
  });
});
