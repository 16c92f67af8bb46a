/**
 * Servers that reserve most of a GPU's memory at start-up whatever the load (DESIGN.md section
 * 5): their measured memory is an upper bound of the need, not the need. Detected from the
 * process name or command line the driver lists; a workload's `preallocates:` in the config
 * overrides the detection either way (JAX, for one, rarely shows in a command line).
 */

export interface PreallocatingServer {
  server: string;
  pattern: RegExp;
  /** Why it holds memory, for the report's evidence. */
  reason: string;
}

export const PREALLOCATING_SERVERS: readonly PreallocatingServer[] = [
  { server: 'vLLM', pattern: /\bvllm\b/i, reason: 'reserves gpu_memory_utilization of the GPU for weights and KV cache' },
  { server: 'TGI', pattern: /text-generation-(launcher|server|router)/i, reason: 'reserves memory for the KV cache of max batch total tokens' },
  { server: 'TensorRT-LLM / Triton', pattern: /tritonserver|trtllm|tensorrt[_-]llm/i, reason: 'reserves kv_cache_free_gpu_mem_fraction of the free memory' },
  { server: 'SGLang', pattern: /\bsglang\b/i, reason: 'reserves mem_fraction_static of the GPU' },
  { server: 'JAX/XLA', pattern: /\bjax(lib)?\b|\bxla\b/i, reason: 'preallocates 75% of the GPU unless XLA_PYTHON_CLIENT_PREALLOCATE=false' },
];

export interface PreallocationVerdict {
  preallocating: boolean;
  /** The server recognised, `config` when the config said so, null when not preallocating. */
  server: string | null;
  /** The process name that gave it away; null when the config decided. */
  process: string | null;
}

export function detectPreallocation(processNames: readonly string[], declared?: boolean): PreallocationVerdict {
  if (declared !== undefined) return { preallocating: declared, server: declared ? 'config' : null, process: null };
  for (const name of processNames) {
    const found = PREALLOCATING_SERVERS.find((server) => server.pattern.test(name));
    if (found !== undefined) return { preallocating: true, server: found.server, process: name };
  }
  return { preallocating: false, server: null, process: null };
}
