/**
 * The words gpu-audit.yaml chooses from, apart from its zod schema (./document/schema.ts) so
 * that code which needs them at run time does not load zod.
 */
export const WORKLOAD_KINDS = ['training', 'inference', 'batch', 'interactive'] as const;
export const THROUGHPUT_UNITS = ['requests/s', 'tokens/s'] as const;
/** Which demand the fleet plan serves (docs/planner.md). */
export const PLAN_BASES = ['observed', 'declared'] as const;
/** Data types of weights and KV cache the VRAM estimate knows the size of (analysis/workloads/vram-estimate.ts). */
export const MODEL_DTYPES = ['fp32', 'tf32', 'bf16', 'fp16', 'fp8', 'int8', 'int4', 'fp4'] as const;
/** A name printed in reports and used as a finding target. `unassigned` is the name of what matches nothing. */
export const UNASSIGNED_WORKLOAD = 'unassigned';
