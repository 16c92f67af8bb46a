/**
 * Kubernetes inputs (`--k8s FILE`, `--kubectl`): the pods and nodes a cluster reports, read
 * into plain facts for analysis/kubernetes.ts to join with the GPU telemetry.
 */
import type { Readable } from 'node:stream';
import { InputError } from '../support/index.js';
import { openInput, resolveInputs } from './inputs.js';
import { kubectlRef, runKubectl, type KubectlOptions } from './live/kubectl.js';
import { KubernetesObjectReader } from './formats/kubernetes/objects.js';
import type { KubernetesInventory, KubernetesSourceRead } from '../model/index.js';

export type { ContainerInfo, KubernetesInventory, KubernetesSourceRead, NodeInfo, OwnerInfo, PodInfo, RequestAndLimit } from '../model/index.js';
export type { KubectlOptions } from './live/kubectl.js';
export { kubectlArguments, runKubectl, KUBECTL_TIMEOUT_MS } from './live/kubectl.js';
export { KubernetesObjectReader, readKubernetesObjects } from './formats/kubernetes/objects.js';
export { cpuCores, memoryMiB, parseQuantity } from './formats/kubernetes/quantity.js';
export { requestsGpus } from './formats/kubernetes/pods.js';

/**
 * Reads `--k8s` inputs (files, directories, globs, `-`; .gz transparently): one result per file,
 * each read as it streams in, one item at a time.
 * A file found by walking a directory that holds no Kubernetes objects is skipped and said so,
 * as for telemetry sources; a file named outright must be readable.
 */
export async function readKubernetesFiles(args: readonly string[], stdin?: Readable, signal?: AbortSignal): Promise<KubernetesSourceRead[]> {
  const results: KubernetesSourceRead[] = [];
  for (const input of await resolveInputs([...args])) {
    const opened = await openInput(input, stdin);
    try {
      const reader = new KubernetesObjectReader(input.ref);
      for await (const chunk of opened.chunks) {
        signal?.throwIfAborted();
        reader.write(chunk);
      }
      results.push(reader.end());
    } catch (error) {
      if (!input.discovered || !(error instanceof InputError)) throw error;
      results.push({ ref: input.ref, records: 0, pods: [], nodes: [], warnings: [`skipped: ${error.message}`] });
    } finally {
      opened.close();
    }
  }
  return results;
}

/** `--kubectl`: the cluster's pods and nodes, as kubectl prints them. */
export async function readKubernetesFromKubectl(options: KubectlOptions = {}): Promise<KubernetesSourceRead> {
  const reader = new KubernetesObjectReader(kubectlRef(options.context));
  await runKubectl(options, (chunk) => reader.write(chunk));
  return reader.end();
}

/** Every input's pods and nodes together; a pod or node given twice (same namespace/name) counts once, the first read. */
export function mergeInventories(reads: readonly KubernetesInventory[]): KubernetesInventory {
  const pods = new Map<string, KubernetesInventory['pods'][number]>();
  const nodes = new Map<string, KubernetesInventory['nodes'][number]>();
  for (const read of reads) {
    for (const pod of read.pods) if (!pods.has(`${pod.namespace}/${pod.name}`)) pods.set(`${pod.namespace}/${pod.name}`, pod);
    for (const node of read.nodes) if (!nodes.has(node.name)) nodes.set(node.name, node);
  }
  return { pods: [...pods.values()], nodes: [...nodes.values()] };
}

export interface KubernetesInputOptions {
  /** `--k8s` arguments. */
  files?: readonly string[];
  /** `--kubectl`, with its options. */
  kubectl?: KubectlOptions;
  stdin?: Readable;
  /** Stops the reading (and kubectl): the audit they were for has failed. */
  signal?: AbortSignal;
}

/** Every Kubernetes input of an audit, files first; none given: an empty list. */
export async function readKubernetesInputs(options: KubernetesInputOptions): Promise<KubernetesSourceRead[]> {
  const { files, kubectl, signal } = options;
  const reads = files === undefined || files.length === 0 ? [] : await readKubernetesFiles(files, options.stdin, signal);
  if (kubectl !== undefined) reads.push(await readKubernetesFromKubectl(signal === undefined ? kubectl : { ...kubectl, signal }));
  return reads;
}
