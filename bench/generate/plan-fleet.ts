/**
 * A synthetic fleet for the planner's bench row: hosts of 8 GPUs each, bought as the bundled
 * catalog's AWS types (p5.48xlarge H100, p4d.24xlarge A100 40GB, g6.48xlarge L4), with training
 * jobs on whole hosts, single-GPU services, and the rest of the GPUs held by no workload (each
 * its own demand unit, as without gpu-audit.yaml). Seeded: every run plans the same fleet.
 */
import type { PlanInput } from '../../src/recommend/index.js';
import { board, workload } from '../../test/recommend/plan/fleet.js';

interface HostKind {
  instanceType: string;
  modelKey: string;
  hourlyUsdPerGpu: number;
}

const HOST_KINDS: readonly HostKind[] = [
  { instanceType: 'p5.48xlarge', modelKey: 'h100-sxm-80gb', hourlyUsdPerGpu: 6.88 },
  { instanceType: 'p4d.24xlarge', modelKey: 'a100-sxm4-40gb', hourlyUsdPerGpu: 2.745 },
  { instanceType: 'g6.48xlarge', modelKey: 'l4', hourlyUsdPerGpu: 1.6733 },
];

const GPUS_PER_HOST = 8;

/** Park-Miller: small, seeded, and the same on every machine. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 48271) % 2147483647;
    return state / 2147483647;
  };
}

/** `gpus` GPUs (a multiple of 8) and `workloads` workloads: a quarter training jobs on whole hosts, the rest single-GPU services. */
export function planningFleet(gpus: number, workloads: number): PlanInput {
  const next = random(20261201);
  const hosts = Math.ceil(gpus / GPUS_PER_HOST);
  const jobs = Math.floor(workloads / 4);
  const services = workloads - jobs;
  const boards: PlanInput['gpus'][number][] = [];
  const profiles: PlanInput['workloads'][number][] = [];
  let host = 0;
  const hostBoards = (kind: HostKind, facts: { peakGiB: number; p95Pct: number; idleFraction: number }) => {
    const name = `node-${String(host).padStart(5, '0')}`;
    host += 1;
    const made = Array.from({ length: GPUS_PER_HOST }, (_, index) => board(name, index, { modelKey: kind.modelKey, instanceType: kind.instanceType, hourlyUsd: kind.hourlyUsdPerGpu, ...facts }));
    boards.push(...made);
    return made;
  };
  for (let job = 0; job < jobs && host < hosts; job += 1) {
    const kind = HOST_KINDS[job % 2]!;
    const peakGiB = kind.modelKey === 'l4' ? 18 : 30;
    const made = hostBoards(kind, { peakGiB, p95Pct: 90, idleFraction: 0.3 });
    profiles.push(workload(`train-${job}`, made, { kind: 'training', peakGiB, p95Pct: 90, busyFraction: 0.7 }));
  }
  let service = 0;
  while (service < services && host < hosts) {
    const kind = HOST_KINDS[host % HOST_KINDS.length]!;
    const made = hostBoards(kind, { peakGiB: 12, p95Pct: 30, idleFraction: 0.5 });
    for (const gpu of made) {
      if (service >= services) break;
      const peakGiB = Math.round(4 + next() * (kind.modelKey === 'l4' ? 14 : 30));
      profiles.push(workload(`svc-${service}`, [gpu], { kind: 'inference', peakGiB, p95Pct: Math.round(5 + next() * 60), busyFraction: 0.5 }));
      service += 1;
    }
  }
  while (host < hosts) {
    const idle = next() < 0.3;
    hostBoards(HOST_KINDS[host % HOST_KINDS.length]!, { peakGiB: idle ? 1 : 10, p95Pct: idle ? 0 : 25, idleFraction: idle ? 1 : 0.6 });
  }
  return { gpus: boards, workloads: profiles, definitions: [] };
}
