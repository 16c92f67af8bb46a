/** Servers that reserve GPU memory up front, told apart from ones that allocate as they go. */
import { describe, expect, it } from 'vitest';
import { detectPreallocation } from '../../../src/analysis/workloads/index.js';

describe('detectPreallocation', () => {
  it.each([
    ['/usr/bin/python3 -m vllm.entrypoints.openai.api_server', 'vLLM'],
    ['python3 -m vllm.entrypoints.api_server --model x', 'vLLM'],
    ['text-generation-launcher', 'TGI'],
    ['/opt/conda/bin/text-generation-server', 'TGI'],
    ['/opt/tritonserver/bin/tritonserver', 'TensorRT-LLM / Triton'],
    ['trtllm-serve', 'TensorRT-LLM / Triton'],
    ['python -m sglang.launch_server', 'SGLang'],
    ['python3 -m jax_train --xla', 'JAX/XLA'],
  ])('flags %s as %s', (name, server) => {
    expect(detectPreallocation([name])).toEqual({ preallocating: true, server, process: name });
  });

  it.each([
    'python3 /workspace/train.py',
    '/opt/conda/bin/python3 -m ipykernel_launcher -f kernel.json',
    'python3 /srv/jobs/embed_batch.py',
    'ollama',
  ])('does not flag %s', (name) => {
    expect(detectPreallocation([name]).preallocating).toBe(false);
  });

  it('lets the config decide either way', () => {
    expect(detectPreallocation(['python3 serve.py'], true)).toEqual({ preallocating: true, server: 'config', process: null });
    expect(detectPreallocation(['/usr/bin/python3 -m vllm.entrypoints.openai.api_server'], false)).toEqual({ preallocating: false, server: null, process: null });
  });
});
