import { describe, expect, it } from 'vitest';
import { clearOutOfDomain, judgeValue, MEMORY_MAX_MIB, type GpuSample } from '../../src/model/index.js';

const ref = { host: 'h', index: 0 };

function cleared(sample: GpuSample): { sample: GpuSample; messages: string[] } {
  const messages: string[] = [];
  clearOutOfDomain(sample, (message) => messages.push(message));
  return { sample, messages };
}

describe('sample domains', () => {
  it('takes a percentage from 0 to 100 (half a point of rounding allowed), nothing negative', () => {
    expect([0, 100, 100.5].map((value) => judgeValue('utilizationPct', value))).toEqual(['in', 'in', 'in']);
    expect([-0.1, 100.6, 150, Infinity].map((value) => judgeValue('utilizationPct', value))).toEqual(['out', 'out', 'out', 'out']);
  });

  it('reads NaN and NVML\'s "not supported" (0xFFFFFFFF, 0xFFFFFFFE) as no value, not as a value outside', () => {
    expect([Number.NaN, 4_294_967_295, 4_294_967_294].map((value) => judgeValue('utilizationPct', value))).toEqual(['none', 'none', 'none']);
    expect(judgeValue('utilizationPct', 4_294_967_293)).toBe('out');
  });

  it('judges memory used against the sample\'s own total, or 2^31 MiB where the total is unknown or itself outside', () => {
    expect(cleared({ ref, memoryUsedMiB: 81_560, memoryTotalMiB: 81_559 }).messages).toEqual(['memory used 81560 is outside 0-81559 MiB, the memory total; value left out']);
    expect(cleared({ ref, memoryUsedMiB: 81_559, memoryTotalMiB: 81_559 }).messages).toEqual([]);
    expect(cleared({ ref, memoryUsedMiB: 999_999 }).messages).toEqual([]);
    const both = cleared({ ref, memoryUsedMiB: 999_999, memoryTotalMiB: MEMORY_MAX_MIB * 2 });
    expect(both.sample).toEqual({ ref, memoryUsedMiB: 999_999, memoryTotalMiB: undefined });
    expect(both.messages).toEqual([`memory total ${MEMORY_MAX_MIB * 2} is outside 0-${MEMORY_MAX_MIB} MiB; value left out`]);
  });

  it('clears only what lies outside and keeps the rest of the sample', () => {
    const { sample, messages } = cleared({ ref, time: 1, utilizationPct: 150, smActivePct: 40, memoryUtilizationPct: 4_294_967_295, pcieRxKiBps: -1, powerW: 700 });
    expect(sample).toEqual({ ref, time: 1, utilizationPct: undefined, smActivePct: 40, memoryUtilizationPct: undefined, pcieRxKiBps: undefined, powerW: 700 });
    expect(messages).toEqual([
      'GPU utilization 150 is outside 0-100 %; value left out',
      'PCIe receive -1 is outside 0-268435456 KiB/s; value left out',
    ]);
  });
});
