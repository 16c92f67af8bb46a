/**
 * The LLM VRAM estimate, term by term, against arithmetic done by hand.
 * 1 MiB = 1,048,576 bytes.
 */
import { describe, expect, it } from 'vitest';
import { estimateVram } from '../../../src/analysis/workloads/index.js';

// A 70B model in bf16 with a Llama-2/3-70B attention shape: 80 layers, 8 KV heads (GQA) of 128 dims.
const LLAMA_70B = { parameters: 70e9, dtype: 'bf16', layers: 80, kvHeads: 8, headDim: 128, contextTokens: 8192, concurrency: 4 } as const;

describe('estimateVram', () => {
  it('works out a 70B bf16 model serving 4 sequences of 8,192 tokens on one GPU', () => {
    const estimate = estimateVram(LLAMA_70B);
    // weights  = 70e9 x 2 B = 140,000,000,000 B / 1,048,576 = 133,514.404296875 MiB
    // KV cache = 2 x 80 x 8 x 128 x 2 B = 327,680 B per token; x (8,192 x 4 = 32,768 tokens)
    //          = 10,737,418,240 B = 10,240 MiB exactly
    // overhead = 1,024 + 10% x 133,514.404296875 = 14,375.4404296875 MiB
    // total    = 133,514.404296875 + 10,240 + 14,375.4404296875 = 158,129.8447265625 MiB (154.4 GiB)
    expect(estimate.terms.map((term) => term.term)).toEqual(['weights', 'kv-cache', 'runtime-overhead']);
    expect(estimate.terms[0]!.mib).toBeCloseTo(133_514.404296875, 6);
    expect(estimate.terms[1]!.mib).toBe(10_240);
    expect(estimate.terms[2]!.mib).toBeCloseTo(14_375.4404296875, 6);
    expect(estimate.totalMiB).toBeCloseTo(158_129.8447265625, 6);
    expect(estimate.missing).toEqual([]);
  });

  it('shows the arithmetic of every term', () => {
    const [weights, kv, overhead] = estimateVram(LLAMA_70B).terms;
    expect(weights!.formula).toBe('70,000,000,000 parameters x 2 B (bf16) = 133,514.4 MiB');
    expect(kv!.formula).toBe('2 x 80 layers x 8 KV heads x 128 head dim x 2 B (bf16) x 32,768 tokens (8,192 context x 4 concurrent) = 10,240 MiB');
    expect(overhead!.formula).toBe('1024 MiB + 10% of weights = 14,375.44 MiB');
  });

  it('divides weights and KV cache over a tensor-parallel replica, not the overhead', () => {
    const estimate = estimateVram({ ...LLAMA_70B, gpusPerReplica: 2 });
    // weights 133,514.404296875 / 2 = 66,757.2021484375; KV 10,240 / 2 = 5,120;
    // overhead 1,024 + 6,675.72021484375 = 7,699.72021484375; total 79,576.92236328125 MiB per GPU
    expect(estimate.totalMiB).toBeCloseTo(79_576.92236328125, 6);
    expect(estimate.terms[0]!.formula).toContain(' / 2 GPUs');
  });

  it('keeps a 16-bit KV cache for 4-bit weights unless told otherwise', () => {
    // 7e9 x 0.5 B = 3,500,000,000 B = 3,337.860107421875 MiB; KV 2 x 32 x 8 x 128 x 2 B x 4,096 = 536,870,912 B = 512 MiB
    const awq = estimateVram({ parameters: 7e9, dtype: 'int4', layers: 32, kvHeads: 8, headDim: 128, contextTokens: 4096, concurrency: 1 });
    expect(awq.terms[0]!.mib).toBeCloseTo(3337.860107421875, 9);
    expect(awq.terms[1]!.mib).toBe(512);
    expect(awq.terms[1]!.formula).toContain('2 B (fp16)');
    const fp8Cache = estimateVram({ parameters: 7e9, dtype: 'int4', layers: 32, kvHeads: 8, headDim: 128, contextTokens: 4096, concurrency: 1, kvCacheDtype: 'fp8' });
    expect(fp8Cache.terms[1]!.mib).toBe(256);
  });

  it('leaves the KV cache out and names the missing facts when the attention shape is not given', () => {
    const estimate = estimateVram({ parameters: 13e9, dtype: 'fp16', contextTokens: 4096 });
    expect(estimate.terms.map((term) => term.term)).toEqual(['weights', 'runtime-overhead']);
    expect(estimate.missing).toEqual(['layers', 'kvHeads', 'headDim', 'concurrency']);
  });

  it('takes a declared runtime overhead as it is', () => {
    // 1e9 x 4 B = 3,814.697265625 MiB + 2,000 MiB declared
    const estimate = estimateVram({ parameters: 1e9, dtype: 'fp32', overheadMiB: 2000 });
    expect(estimate.totalMiB).toBeCloseTo(5814.697265625, 9);
    expect(estimate.terms[1]!.formula).toBe('declared 2,000 MiB');
  });
});
