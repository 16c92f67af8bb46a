import { describe, expect, it } from 'vitest';
import { detached } from '../../../src/support/text/detached.js';

describe('detached (the copy kept of a slice of an input chunk)', () => {
  it('gives the same text, whatever characters it holds', () => {
    for (const text of ['', 'GPU-6d5c0ac5', 'a"b\\c\n', 'naïve ✓ 𝄞', '\ud800 lone surrogate']) expect(detached(text)).toBe(text);
  });
});
