import path from 'node:path';
import { packageRoot } from '../support/index.js';

/** The bundled demo fleet: one nvidia-smi -l log per host (fixtures/demo), shipped in the package. */
export const demoFleetFiles = [
  ...['train-h100-01', 'infer-h200-01', 'mig-a100-01', 'notebook-a10g-01'].map((host) => `${host}.xml.gz`),
  // Prometheus' saved scrapes of infer-h200-01's vLLM servers.
  'infer-h200-01-vllm.prom.gz',
].map((file) => path.join(packageRoot(), 'fixtures/demo', file));

/** The demo's files as its reports name them: `demo/<file>`, not the path of this install. */
export const demoFleetRefs: Readonly<Record<string, string>> = Object.fromEntries(demoFleetFiles.map((file) => [file, `demo/${path.basename(file)}`]));

/** The demo fleet's gpu-audit.yaml: its workloads; `audit --demo` reads it unless --config names another. */
export const demoConfigFile = path.join(packageRoot(), 'fixtures/demo/gpu-audit.yaml');
