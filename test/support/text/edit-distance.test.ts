import { describe, expect, it } from 'vitest';
import { editDistance } from '../../../src/support/text/edit-distance.js';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['', 'abc', 3], // three insertions
    ['abc', '', 3], // three deletions
    ['p4d.24xlarge', 'p4d.24xlarge', 0],
    ['p4d.24xlage', 'p4d.24xlarge', 1], // one insertion: r
    ['workloads', 'workload', 1], // one deletion: s
    ['g6.xlarge', 'g5.xlarge', 1], // one substitution: 6 -> 5
    ['kitten', 'sitting', 3], // k->s, e->i, +g
    ['thresholds', 'treshold', 2], // -h, -s
  ])('%j to %j is %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance); // symmetric
  });
});
