/**
 * The VRAM an LLM needs per GPU, from model facts (issue "Per-model profiling", item 2):
 *
 *   weights  = parameters x bytes per parameter
 *   KV cache = 2 (K and V) x layers x KV heads x head dim x bytes per value x tokens in flight,
 *              tokens in flight = context length x concurrency
 *   overhead = declared, else 1024 MiB (CUDA context, library workspaces) + 10% of the weights
 *              (activations, allocator fragmentation)
 *
 * Weights and KV cache are divided by the GPUs one replica is sharded over (tensor parallel
 * splits both); the overhead is per GPU. Every term is returned with its arithmetic so the
 * report can show it. Without the attention shape, context and concurrency the KV term is left
 * out and the estimate says which facts it lacks: it is then a lower bound.
 */
import type { ModelDtype, ModelFacts } from './types.js';

export const BYTES_PER_MIB = 1024 * 1024;

export const DTYPE_BYTES: Readonly<Record<ModelDtype, number>> = {
  fp32: 4,
  tf32: 4,
  bf16: 2,
  fp16: 2,
  fp8: 1,
  int8: 1,
  int4: 0.5,
  fp4: 0.5,
};

/** CUDA context and library workspaces of one process, MiB. */
export const RUNTIME_BASE_OVERHEAD_MIB = 1024;
/** Activations and allocator fragmentation, as a share of the weights. */
export const RUNTIME_OVERHEAD_WEIGHTS_SHARE = 0.1;

export type VramTermName = 'weights' | 'kv-cache' | 'runtime-overhead';

export interface VramTerm {
  term: VramTermName;
  mib: number;
  /** The arithmetic with the facts filled in. */
  formula: string;
}

export interface VramEstimate {
  /** Sum of the terms, MiB per GPU. */
  totalMiB: number;
  terms: VramTerm[];
  /** Facts the KV-cache term needs and the config did not give; empty when the estimate is complete. */
  missing: string[];
}

const KV_FACTS = ['layers', 'kvHeads', 'headDim', 'contextTokens', 'concurrency'] as const;

const number = (value: number): string => value.toLocaleString('en-US', { maximumFractionDigits: 2 });
const mib = (bytes: number): number => bytes / BYTES_PER_MIB;

/** A 4-bit weight format keeps a 16-bit KV cache (as vLLM's `auto` KV type does for AWQ/GPTQ). */
function kvCacheDtype(model: ModelFacts): ModelDtype {
  if (model.kvCacheDtype !== undefined) return model.kvCacheDtype;
  return DTYPE_BYTES[model.dtype] < 1 ? 'fp16' : model.dtype;
}

export function estimateVram(model: ModelFacts): VramEstimate {
  const gpus = model.gpusPerReplica ?? 1;
  const perGpu = gpus > 1 ? ` / ${gpus} GPUs` : '';
  const weightBytes = DTYPE_BYTES[model.dtype];
  const weightsMiB = mib(model.parameters * weightBytes) / gpus;
  const terms: VramTerm[] = [{
    term: 'weights',
    mib: weightsMiB,
    formula: `${number(model.parameters)} parameters x ${weightBytes} B (${model.dtype})${perGpu} = ${number(weightsMiB)} MiB`,
  }];

  const missing = KV_FACTS.filter((fact) => model[fact] === undefined);
  if (missing.length === 0) {
    const dtype = kvCacheDtype(model);
    const valueBytes = DTYPE_BYTES[dtype];
    const tokens = model.contextTokens! * model.concurrency!;
    const bytesPerToken = 2 * model.layers! * model.kvHeads! * model.headDim! * valueBytes;
    const kvMiB = mib(bytesPerToken * tokens) / gpus;
    terms.push({
      term: 'kv-cache',
      mib: kvMiB,
      formula: `2 x ${model.layers} layers x ${model.kvHeads} KV heads x ${model.headDim} head dim x ${valueBytes} B (${dtype}) x ${number(tokens)} tokens (${number(model.contextTokens!)} context x ${model.concurrency} concurrent)${perGpu} = ${number(kvMiB)} MiB`,
    });
  }

  const overheadMiB = model.overheadMiB ?? RUNTIME_BASE_OVERHEAD_MIB + RUNTIME_OVERHEAD_WEIGHTS_SHARE * weightsMiB;
  terms.push({
    term: 'runtime-overhead',
    mib: overheadMiB,
    formula: model.overheadMiB !== undefined
      ? `declared ${number(overheadMiB)} MiB`
      : `${RUNTIME_BASE_OVERHEAD_MIB} MiB + ${RUNTIME_OVERHEAD_WEIGHTS_SHARE * 100}% of weights = ${number(overheadMiB)} MiB`,
  });

  return { totalMiB: terms.reduce((total, term) => total + term.mib, 0), terms, missing };
}
