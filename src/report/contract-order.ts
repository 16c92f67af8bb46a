/**
 * The order of every key of the Report contract, checked against the TypeScript
 * interfaces at compile time. The JSON renderer writes keys in this order whatever
 * order the producer built them in, so saved reports diff cleanly; the schema test
 * checks that schema/report.schema.json lists the same keys, in the same order,
 * with `required` = keys minus the optional ones.
 */
import type {
  Finding,
  FleetSummary,
  GpuEntry,
  KubernetesContainerEntry,
  KubernetesNodeEntry,
  KubernetesPodEntry,
  KubernetesSection,
  GpuTimeline,
  MemoryStats,
  PcieLink,
  PercentStats,
  ProcessSummary,
  SidecarOverhead,
  Recommendation,
  Report,
  ReportSettings,
  ReportWindow,
  SourceSummary,
  ThroughputStats,
  VramEstimateEntry,
  VramProfile,
  WorkloadEntry,
  WorkloadSignals,
} from '../model/report.js';

/** Keys declared `key?:` (may be absent), as opposed to keys always present, possibly null. */
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];

/** An array's element type, or the type itself. */
type Element<T> = T extends readonly (infer Item)[] ? Item : T;

/** One contract object: its `$defs` name, its keys in order, and its nested contract objects. */
export interface ContractNode {
  /** Name of the matching definition in the schema's `$defs` (`Report` is the schema root). */
  definition: string;
  keys: readonly string[];
  /** Keys declared `key?:` in the interface: absent rather than null when unknown. */
  optional: readonly string[];
  /** Keys whose value (or whose array items) is itself a contract object. */
  nested: Readonly<Record<string, ContractNode | undefined>>;
}

/** A ContractNode checked against T at compile time (the phantom member keeps T invariant). */
interface ObjectOrder<T> extends ContractNode {
  readonly contractType?: (value: T) => T;
}

type NestedOrders<T> = { readonly [K in keyof T]?: ObjectOrder<Element<NonNullable<T[K]>>> };

type Missing<All, Listed> = [Exclude<All, Listed>] extends [never] ? unknown : { missing: Exclude<All, Listed> };

/**
 * Declares the key order of T. Compilation fails when a key of T is missing from
 * `keys`, or when `optional` does not list exactly the optional keys of T.
 */
function objectOrder<T>() {
  return <const Keys extends readonly (keyof T & string)[], const Optional extends readonly (OptionalKeys<T> & string)[]>(order: {
    definition: string;
    keys: Keys & Missing<keyof T, Keys[number]>;
    optional: Optional & Missing<OptionalKeys<T>, Optional[number]>;
    nested?: NestedOrders<T>;
  }): ObjectOrder<T> => ({ definition: order.definition, keys: order.keys, optional: order.optional, nested: order.nested ?? {} });
}

const percentStats = objectOrder<PercentStats>()({ definition: 'PercentStats', keys: ['mean', 'p50', 'p95', 'max'], optional: [] });
const memoryStats = objectOrder<MemoryStats>()({ definition: 'MemoryStats', keys: ['mean', 'p95', 'max'], optional: [] });
const throughputStats = objectOrder<ThroughputStats>()({ definition: 'ThroughputStats', keys: ['mean', 'p95', 'max'], optional: [] });
const pcieLink = objectOrder<PcieLink>()({ definition: 'PcieLink', keys: ['generation', 'width', 'bandwidthMiBps'], optional: [] });

const processSummary = objectOrder<ProcessSummary>()({
  definition: 'ProcessSummary',
  keys: ['pid', 'name', 'type', 'maxMemoryMiB', 'samples'],
  optional: [],
});

const gpuTimeline = objectOrder<GpuTimeline>()({
  definition: 'GpuTimeline',
  keys: ['start', 'bucketSeconds', 'computeMeanPct', 'memoryUsedMaxMiB'],
  optional: [],
});

const gpuEntry = objectOrder<GpuEntry>()({
  definition: 'GpuEntry',
  keys: [
    'id', 'host', 'index', 'uuid', 'pciBusId', 'model', 'modelKey', 'memoryTotalMiB', 'migMode', 'parentId', 'migProfile',
    'instanceType', 'instanceTypeBasis', 'utilization', 'smActive', 'tensorActive', 'grEngineActive', 'computeBasis',
    'memoryUsedMiB', 'vramHeadroomMiB', 'vramHeadroomPct', 'idleFraction', 'idleHours', 'gpuHours', 'samples',
    'firstSeen', 'lastSeen', 'processes', 'hourlyCostUsd', 'timeline', 'hourOfWeekComputePct',
    'pcieRxMiBps', 'pcieTxMiBps', 'pcieLink',
  ],
  optional: ['pcieRxMiBps', 'pcieTxMiBps', 'pcieLink'],
  nested: {
    utilization: percentStats,
    smActive: percentStats,
    tensorActive: percentStats,
    grEngineActive: percentStats,
    memoryUsedMiB: memoryStats,
    processes: processSummary,
    timeline: gpuTimeline,
    pcieRxMiBps: throughputStats,
    pcieTxMiBps: throughputStats,
    pcieLink,
  },
});

const vramEstimate = objectOrder<VramEstimateEntry>()({
  definition: 'VramEstimate',
  keys: ['totalMiB', 'terms', 'missing'],
  optional: [],
  nested: { terms: objectOrder<VramEstimateEntry['terms'][number]>()({ definition: 'VramEstimateTerm', keys: ['term', 'mib', 'formula'], optional: [] }) },
});

const vramProfile = objectOrder<VramProfile>()({
  definition: 'VramProfile',
  keys: ['peakMiB', 'p95MiB', 'requiredMiB', 'basis', 'preallocating', 'preallocatingServer', 'declaredMiB', 'estimate', 'headroomPct'],
  optional: ['preallocating', 'preallocatingServer', 'declaredMiB', 'estimate', 'headroomPct'],
  nested: { estimate: vramEstimate },
});

const workloadEntry = objectOrder<WorkloadEntry>()({
  definition: 'WorkloadEntry',
  keys: ['name', 'kind', 'version', 'tenant', 'gpus', 'sharedGpus', 'gpuHours', 'vram', 'compute', 'cpuPipeline', 'sidecars', 'cost'],
  optional: ['version', 'tenant', 'sharedGpus', 'gpuHours'],
  nested: {
    vram: vramProfile,
    compute: objectOrder<WorkloadEntry['compute']>()({
      definition: 'WorkloadCompute',
      keys: ['basis', 'mean', 'p95', 'busyFraction', 'idleFraction', 'signals', 'hourOfWeekPct'],
      optional: ['idleFraction', 'signals', 'hourOfWeekPct'],
      nested: {
        signals: objectOrder<WorkloadSignals>()({
          definition: 'WorkloadSignals',
          keys: ['smActivePct', 'tensorActivePct', 'grEngineActivePct', 'utilizationPct'],
          optional: [],
        }),
      },
    }),
    cpuPipeline: objectOrder<WorkloadEntry['cpuPipeline']>()({ definition: 'CpuPipeline', keys: ['verdict', 'evidence'], optional: [] }),
    sidecars: objectOrder<WorkloadEntry['sidecars']>()({ definition: 'Sidecars', keys: ['cpuCores', 'memoryMiB', 'overheadPct', 'monthlyCostUsd', 'cpuUsedCores'], optional: ['monthlyCostUsd', 'cpuUsedCores'] }),
    cost: objectOrder<WorkloadEntry['cost']>()({
      definition: 'WorkloadCost',
      keys: ['hourlyUsd', 'wasteHourlyUsd', 'monthlyUsd', 'monthlyWasteUsd', 'wasteBreakdown'],
      optional: ['monthlyUsd', 'monthlyWasteUsd', 'wasteBreakdown'],
      nested: {
        wasteBreakdown: objectOrder<NonNullable<WorkloadEntry['cost']['wasteBreakdown']>>()({
          definition: 'WasteBreakdown',
          keys: ['idleMonthlyUsd', 'vramOverprovisionMonthlyUsd'],
          optional: [],
        }),
      },
    }),
  },
});

const finding = objectOrder<Finding>()({
  definition: 'Finding',
  keys: ['id', 'code', 'severity', 'target', 'message', 'evidence'],
  optional: [],
});

const recommendation = objectOrder<Recommendation>()({
  definition: 'Recommendation',
  keys: [
    'id', 'kind', 'targets', 'current', 'proposed', 'monthlySavingsUsd', 'confidence', 'confidenceReasons', 'risks',
    'rationale', 'evidence', 'config', 'counted', 'alternativeTo',
  ],
  optional: ['config', 'counted', 'alternativeTo'],
  nested: {
    config: objectOrder<NonNullable<Recommendation['config']>>()({ definition: 'RecommendationConfig', keys: ['format', 'text'], optional: [] }),
  },
});

const fleetSummary = objectOrder<FleetSummary>()({
  definition: 'FleetSummary',
  keys: [
    'gpuCount', 'migDeviceCount', 'hostCount', 'gpuHours', 'idleGpuHours', 'meanUtilization', 'meanComputePct', 'computeBasis', 'wastePct',
    'monthlyCostUsd', 'monthlyWasteUsd', 'potentialMonthlySavingsUsd',
  ],
  optional: [],
});

const kubernetesSection = objectOrder<KubernetesSection>()({
  definition: 'KubernetesSection',
  keys: ['pods', 'nodes'],
  optional: [],
  nested: {
    pods: objectOrder<KubernetesPodEntry>()({
      definition: 'KubernetesPodEntry',
      keys: [
        'namespace', 'name', 'phase', 'node', 'workloadKind', 'workloadName', 'labels', 'gpuResources', 'gpusRequested', 'gpus',
        'gpuMatch', 'containers', 'sidecars',
      ],
      optional: [],
      nested: {
        containers: objectOrder<KubernetesContainerEntry>()({
          definition: 'KubernetesContainerEntry',
          keys: ['name', 'role', 'gpus', 'cpuRequestCores', 'cpuLimitCores', 'memoryRequestMiB', 'memoryLimitMiB'],
          optional: [],
        }),
        sidecars: objectOrder<SidecarOverhead>()({
          definition: 'SidecarOverhead',
          keys: [
            'containers', 'cpuRequestCores', 'cpuLimitCores', 'memoryRequestMiB', 'memoryLimitMiB', 'cpuPctOfPod', 'memoryPctOfPod',
            'cpuPctOfNode', 'memoryPctOfNode',
          ],
          optional: [],
        }),
      },
    }),
    nodes: objectOrder<KubernetesNodeEntry>()({
      definition: 'KubernetesNodeEntry',
      keys: [
        'name', 'host', 'instanceType', 'gpuProduct', 'modelKey', 'gpuCount', 'gpuMemoryMiB', 'migStrategy', 'gpuCapacity',
        'gpuAllocatable', 'cpuAllocatableCores', 'memoryAllocatableMiB',
      ],
      optional: [],
    }),
  },
});

/** The whole contract, from the top. */
export const REPORT_ORDER: ContractNode = objectOrder<Report>()({
  definition: 'Report',
  keys: [
    'schemaVersion', 'generatedAt', 'tool', 'window', 'settings', 'sources', 'catalog', 'gpus', 'workloads', 'findings',
    'recommendations', 'summary', 'kubernetes',
  ],
  optional: ['kubernetes'],
  nested: {
    tool: objectOrder<Report['tool']>()({ definition: 'Tool', keys: ['name', 'version'], optional: [] }),
    window: objectOrder<ReportWindow>()({ definition: 'ReportWindow', keys: ['start', 'end', 'seconds', 'timezone'], optional: [] }),
    settings: objectOrder<ReportSettings>()({
      definition: 'ReportSettings',
      keys: ['idleThresholdPct', 'pricing', 'provider', 'region'],
      optional: [],
    }),
    sources: objectOrder<SourceSummary>()({ definition: 'SourceSummary', keys: ['ref', 'format', 'records', 'warnings'], optional: [] }),
    catalog: objectOrder<Report['catalog']>()({ definition: 'Catalog', keys: ['name', 'asOf', 'source', 'ageDays'], optional: [] }),
    gpus: gpuEntry,
    workloads: workloadEntry,
    findings: finding,
    recommendations: recommendation,
    summary: fleetSummary,
    kubernetes: kubernetesSection,
  },
});

/**
 * A copy of `value` with the keys of every contract object in contract order.
 * Keys the contract does not know (a newer producer) keep their relative order after
 * the known ones; free-form records (evidence) keep the producer's order.
 */
export function inContractOrder(value: unknown, order: ContractNode): unknown {
  if (Array.isArray(value)) return value.map((item: unknown) => inContractOrder(item, order));
  if (value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const ordered: Record<string, unknown> = {};
  let knownCount = 0;
  for (const key of order.keys) {
    if (!Object.hasOwn(source, key)) continue;
    const child = order.nested[key];
    ordered[key] = child === undefined ? source[key] : inContractOrder(source[key], child);
    knownCount += 1;
  }
  // Unknown keys after the known ones. A contract object of a report has none, so the usual
  // case is one count of its keys, against the known keys copied (`order.keys` lists each key
  // once); a report holds hundreds of thousands of these objects.
  const sourceKeys = Object.keys(source);
  if (sourceKeys.length !== knownCount) {
    const known = knownKeys(order);
    for (const key of sourceKeys) if (!known.has(key)) ordered[key] = source[key];
  }
  return ordered;
}

const KNOWN_KEYS = new WeakMap<ContractNode, ReadonlySet<string>>();

function knownKeys(order: ContractNode): ReadonlySet<string> {
  let known = KNOWN_KEYS.get(order);
  if (known === undefined) {
    known = new Set(order.keys);
    KNOWN_KEYS.set(order, known);
  }
  return known;
}
