/**
 * (d) What `kubectl get pods,nodes -A -o json` prints for the GPU fleet of the other inputs:
 * 8-GPU nodes (H100, as a GPU operator labels them) and some CPU nodes, each GPU node running
 * GPU pods (whole-node trainers, single-GPU inference replicas) beside the usual DaemonSets
 * (dcgm-exporter, device plugin, node exporter, CNI, kube-proxy, log shipper), the CPU nodes
 * running services. Objects carry what the API server returns: labels, annotations, owner
 * references, managed fields, container specs with env and mounts, and a status with
 * conditions; kubectl indents with four spaces. Not an issue's input: it is here because the
 * peak RSS target holds on every input, and a large cluster's list is one.
 */
import { SeededRandom } from './random.js';
import type { ChunkWriter } from './writer.js';

const GPUS_PER_NODE = 8;
/** CPU nodes per GPU node, and service pods per CPU node. */
const CPU_NODES_PER_GPU_NODE = 0.2;
const PODS_PER_CPU_NODE = 30;
const DAEMONSETS = [
  { namespace: 'gpu-operator', name: 'nvidia-dcgm-exporter', image: 'nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.0-ubuntu22.04', gpuNodesOnly: true },
  { namespace: 'gpu-operator', name: 'nvidia-device-plugin-daemonset', image: 'nvcr.io/nvidia/k8s-device-plugin:v0.15.0', gpuNodesOnly: true },
  { namespace: 'gpu-operator', name: 'gpu-feature-discovery', image: 'nvcr.io/nvidia/gpu-feature-discovery:v0.8.2', gpuNodesOnly: true },
  { namespace: 'monitoring', name: 'node-exporter', image: 'quay.io/prometheus/node-exporter:v1.8.1', gpuNodesOnly: false },
  { namespace: 'kube-system', name: 'kube-proxy', image: 'registry.k8s.io/kube-proxy:v1.29.4', gpuNodesOnly: false },
  { namespace: 'kube-system', name: 'aws-node', image: '602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.18.1', gpuNodesOnly: false },
  { namespace: 'logging', name: 'fluent-bit', image: 'cr.fluentbit.io/fluent/fluent-bit:3.0.4', gpuNodesOnly: false },
] as const;
const CREATED = '2026-11-01T08:00:00Z';

function indented(value: unknown): string {
  return JSON.stringify(value, null, 4).replace(/^/gmu, '        ');
}

function managedFields(manager: string): unknown[] {
  return [{ apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { 'f:containers': {} } }, manager, operation: 'Update', time: CREATED }];
}

interface PodShape {
  namespace: string;
  name: string;
  app: string;
  owner: { kind: string; name: string };
  image: string;
  nodeName: string;
  gpus: number;
  cpu: string;
  memory: string;
}

function pod(shape: PodShape, random: SeededRandom): unknown {
  const resources = {
    limits: { cpu: shape.cpu, memory: shape.memory, ...(shape.gpus > 0 ? { 'nvidia.com/gpu': String(shape.gpus) } : {}) },
    requests: { cpu: shape.cpu, memory: shape.memory, ...(shape.gpus > 0 ? { 'nvidia.com/gpu': String(shape.gpus) } : {}) },
  };
  const condition = (type: string) => ({ lastProbeTime: null, lastTransitionTime: CREATED, status: 'True', type });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      annotations: { 'kubectl.kubernetes.io/restartedAt': CREATED, 'prometheus.io/scrape': 'true' },
      creationTimestamp: CREATED,
      generateName: `${shape.owner.name}-`,
      labels: { app: shape.app, 'app.kubernetes.io/name': shape.app, 'pod-template-hash': random.hex(10) },
      managedFields: managedFields('kube-controller-manager'),
      name: shape.name,
      namespace: shape.namespace,
      ownerReferences: [{ apiVersion: 'apps/v1', blockOwnerDeletion: true, controller: true, kind: shape.owner.kind, name: shape.owner.name, uid: random.uuid() }],
      resourceVersion: String(random.int(1e6, 9e6)),
      uid: random.uuid(),
    },
    spec: {
      containers: [{
        env: [{ name: 'NODE_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } }, { name: 'LOG_LEVEL', value: 'info' }],
        image: shape.image,
        imagePullPolicy: 'IfNotPresent',
        name: shape.app,
        ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }],
        resources,
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        volumeMounts: [{ mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', name: `kube-api-access-${random.hex(5)}`, readOnly: true }],
      }],
      dnsPolicy: 'ClusterFirst',
      enableServiceLinks: true,
      nodeName: shape.nodeName,
      preemptionPolicy: 'PreemptLowerPriority',
      priority: 0,
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      serviceAccountName: 'default',
      terminationGracePeriodSeconds: 30,
      tolerations: [{ effect: 'NoExecute', key: 'node.kubernetes.io/not-ready', operator: 'Exists', tolerationSeconds: 300 }, { effect: 'NoSchedule', key: 'nvidia.com/gpu', operator: 'Exists' }],
      volumes: [{ name: 'kube-api-access', projected: { defaultMode: 420, sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }] } }],
    },
    status: {
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(condition),
      containerStatuses: [{
        containerID: `containerd://${random.hex(64)}`,
        image: shape.image,
        imageID: `${shape.image.split(':')[0]!}@sha256:${random.hex(64)}`,
        lastState: {},
        name: shape.app,
        ready: true,
        restartCount: 0,
        started: true,
        state: { running: { startedAt: CREATED } },
      }],
      hostIP: `10.20.${random.int(0, 255)}.${random.int(1, 254)}`,
      phase: 'Running',
      podIP: `10.21.${random.int(0, 255)}.${random.int(1, 254)}`,
      qosClass: 'Guaranteed',
      startTime: CREATED,
    },
  };
}

function node(name: string, gpuNode: boolean, random: SeededRandom): unknown {
  const gpuLabels = gpuNode
    ? { 'nvidia.com/gpu.count': String(GPUS_PER_NODE), 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3', 'nvidia.com/gpu.memory': '81559', 'nvidia.com/mig.strategy': 'single' }
    : {};
  const resources = { cpu: gpuNode ? '192' : '64', 'ephemeral-storage': '1992109360Ki', memory: gpuNode ? '2097152000Ki' : '262144000Ki', pods: '110', ...(gpuNode ? { 'nvidia.com/gpu': String(GPUS_PER_NODE) } : {}) };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
      creationTimestamp: CREATED,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'node.kubernetes.io/instance-type': gpuNode ? 'p5.48xlarge' : 'm7i.16xlarge',
        'topology.kubernetes.io/region': 'us-west-2',
        'topology.kubernetes.io/zone': `us-west-2${'abc'[random.int(0, 2)]!}`,
        ...gpuLabels,
      },
      managedFields: managedFields('kubelet'),
      name,
      resourceVersion: String(random.int(1e6, 9e6)),
      uid: random.uuid(),
    },
    spec: { providerID: `aws:///us-west-2a/i-${random.hex(17)}` },
    status: {
      addresses: [{ address: `10.20.${random.int(0, 255)}.${random.int(1, 254)}`, type: 'InternalIP' }, { address: name, type: 'Hostname' }],
      allocatable: resources,
      capacity: resources,
      conditions: ['MemoryPressure', 'DiskPressure', 'PIDPressure'].map((type) => ({ lastHeartbeatTime: CREATED, lastTransitionTime: CREATED, message: `kubelet has no ${type}`, reason: `KubeletHas${type === 'PIDPressure' ? 'SufficientPID' : `No${type}`}`, status: 'False', type }))
        .concat([{ lastHeartbeatTime: CREATED, lastTransitionTime: CREATED, message: 'kubelet is posting ready status', reason: 'KubeletReady', status: 'True', type: 'Ready' }]),
      images: DAEMONSETS.map((daemonset) => ({ names: [`${daemonset.image.split(':')[0]!}@sha256:${random.hex(64)}`, daemonset.image], sizeBytes: random.int(2e7, 9e8) })),
      nodeInfo: { architecture: 'amd64', containerRuntimeVersion: 'containerd://1.7.11', kernelVersion: '5.10.215-203.850.amzn2.x86_64', kubeProxyVersion: 'v1.29.4', kubeletVersion: 'v1.29.4', operatingSystem: 'linux', osImage: 'Amazon Linux 2' },
    },
  };
}

/** Writes the list of the nodes holding `gpuCount` GPUs (8 per node), their CPU nodes and every pod. */
export function writeKubernetesList(out: ChunkWriter, gpuCount: number): void {
  const random = new SeededRandom('kubernetes-list');
  const gpuNodes = Math.max(1, Math.round(gpuCount / GPUS_PER_NODE));
  const cpuNodes = Math.max(1, Math.round(gpuNodes * CPU_NODES_PER_GPU_NODE));
  const nodeName = (index: number): string => `ip-10-20-${Math.floor(index / 256)}-${index % 256}.us-west-2.compute.internal`;
  let written = 0;
  const add = (item: unknown): void => {
    out.write(`${written === 0 ? '' : ',\n'}${indented(item)}`);
    written += 1;
  };
  out.write('{\n    "apiVersion": "v1",\n    "items": [\n');
  for (let index = 0; index < gpuNodes + cpuNodes; index += 1) add(node(nodeName(index), index < gpuNodes, random));
  for (let index = 0; index < gpuNodes + cpuNodes; index += 1) {
    const gpuNode = index < gpuNodes;
    const host = nodeName(index);
    for (const daemonset of DAEMONSETS) {
      if (daemonset.gpuNodesOnly && !gpuNode) continue;
      add(pod({ namespace: daemonset.namespace, name: `${daemonset.name}-${random.hex(5)}`, app: daemonset.name, owner: { kind: 'DaemonSet', name: daemonset.name }, image: daemonset.image, nodeName: host, gpus: 0, cpu: '100m', memory: '128Mi' }, random));
    }
    if (gpuNode && index % 2 === 0) {
      // A whole-node trainer.
      add(pod({ namespace: 'ml-training', name: `llama3-70b-finetune-worker-${index}`, app: 'trainer', owner: { kind: 'StatefulSet', name: 'llama3-70b-finetune-worker' }, image: 'nvcr.io/nvidia/pytorch:24.05-py3', nodeName: host, gpus: GPUS_PER_NODE, cpu: '96', memory: '1000Gi' }, random));
    } else if (gpuNode) {
      // Single-GPU inference replicas.
      for (let replica = 0; replica < GPUS_PER_NODE; replica += 1) {
        add(pod({ namespace: 'inference', name: `vllm-chat-7d9f8c6b5d-${random.hex(5)}`, app: 'vllm-chat', owner: { kind: 'ReplicaSet', name: 'vllm-chat-7d9f8c6b5d' }, image: 'vllm/vllm-openai:v0.4.2', nodeName: host, gpus: 1, cpu: '8', memory: '64Gi' }, random));
      }
    } else {
      for (let service = 0; service < PODS_PER_CPU_NODE; service += 1) {
        add(pod({ namespace: 'services', name: `api-${service}-${random.hex(5)}`, app: `api-${service}`, owner: { kind: 'ReplicaSet', name: `api-${service}-5c9f` }, image: 'registry.example.com/api:1.42.0', nodeName: host, gpus: 0, cpu: '1', memory: '2Gi' }, random));
      }
    }
  }
  out.write('\n    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n');
}
