/** The performance targets, as data, and how a run's results are judged against them. */

export interface ThroughputTarget {
  kind: 'throughput';
  inputId: string;
  /** The peer: the fastest of these contenders on that input (two ElementTree variants count as one script). */
  peerIds: readonly string[];
  peerLabel: string;
  /** gpu-audit's MB/s divided by the peer's must be at least this. */
  atLeast: number;
}

export interface PeakRssTarget {
  kind: 'peak-rss';
  /** gpu-audit's peak RSS on every input must stay under this many MiB. */
  belowMiB: number;
}

export interface StartupTarget {
  kind: 'startup';
  /** Wall time of an audit of a one-document XML over that of `node -e 0`: at most this. */
  atMost: number;
}

export interface PlanningTarget {
  kind: 'planning';
  /** Median seconds planFleet takes for the bench fleet: at most this. */
  atMostSeconds: number;
}

export type Target = ThroughputTarget | PeakRssTarget | StartupTarget | PlanningTarget;

export const TARGETS: readonly Target[] = [
  { kind: 'throughput', inputId: 'xml-log', peerIds: ['python-etree', 'python-etree-pull'], peerLabel: 'Python ElementTree (faster variant)', atLeast: 3 },
  { kind: 'throughput', inputId: 'dcgm-scrape', peerIds: ['promtool'], peerLabel: 'promtool check metrics', atLeast: 6 },
  { kind: 'throughput', inputId: 'dcgm-scrape', peerIds: ['python-prometheus-client'], peerLabel: 'Python prometheus_client', atLeast: 6 },
  { kind: 'throughput', inputId: 'dcgm-scrapes', peerIds: ['python-prometheus-client'], peerLabel: 'Python prometheus_client', atLeast: 6 },
  { kind: 'throughput', inputId: 'csv-log', peerIds: ['python-csv'], peerLabel: 'Python csv', atLeast: 3 },
  { kind: 'peak-rss', belowMiB: 300 },
  { kind: 'startup', atMost: 3 },
  { kind: 'planning', atMostSeconds: 10 },
];

export interface Verdict {
  target: string;
  measured: string;
  met: boolean;
  /** How far from the target, in words (`2.1x short of 3x`); empty when met. */
  shortBy: string;
}

/** Median MB/s per contender id of one input, and gpu-audit's peak RSS there. */
export interface InputFigures {
  inputId: string;
  title: string;
  medianMBps: ReadonlyMap<string, number>;
  /** Null when every gpu-audit run failed. */
  gpuAuditPeakRssMiB: number | null;
}

const times = (value: number): string => `${value.toFixed(2)}x`;

export function judge(targets: readonly Target[], inputs: readonly InputFigures[], startupRatio: number | undefined, planning?: { gpus: number; workloads: number; seconds: number }): Verdict[] {
  const verdicts: Verdict[] = [];
  for (const target of targets) {
    if (target.kind === 'throughput') {
      const input = inputs.find((entry) => entry.inputId === target.inputId);
      const ours = input?.medianMBps.get('gpu-audit');
      const peers = target.peerIds.map((id) => input?.medianMBps.get(id)).filter((value): value is number => value !== undefined);
      if (input === undefined || ours === undefined || peers.length === 0) continue;
      const ratio = ours / Math.max(...peers);
      const met = ratio >= target.atLeast;
      verdicts.push({
        target: `${input.title}: >= ${target.atLeast}x ${target.peerLabel}`,
        measured: times(ratio),
        met,
        shortBy: met ? '' : `reaches ${((ratio / target.atLeast) * 100).toFixed(0)} % of the target (needs ${times(target.atLeast / ratio)} its current speed)`,
      });
    } else if (target.kind === 'peak-rss') {
      for (const input of inputs) {
        if (input.gpuAuditPeakRssMiB === null) continue;
        const met = input.gpuAuditPeakRssMiB < target.belowMiB;
        verdicts.push({
          target: `${input.title}: gpu-audit peak RSS < ${target.belowMiB} MiB`,
          measured: `${input.gpuAuditPeakRssMiB.toFixed(0)} MiB`,
          met,
          shortBy: met ? '' : `${(input.gpuAuditPeakRssMiB - target.belowMiB).toFixed(0)} MiB over`,
        });
      }
    } else if (target.kind === 'planning') {
      if (planning === undefined) continue;
      const met = planning.seconds <= target.atMostSeconds;
      verdicts.push({
        target: `planning ${planning.gpus.toLocaleString('en-US')} GPUs with ${planning.workloads.toLocaleString('en-US')} workloads: <= ${target.atMostSeconds} s`,
        measured: `${planning.seconds.toFixed(2)} s`,
        met,
        shortBy: met ? '' : `${(planning.seconds - target.atMostSeconds).toFixed(2)} s over`,
      });
    } else if (startupRatio !== undefined) {
      const met = startupRatio <= target.atMost;
      verdicts.push({
        target: `audit of a one-document XML: wall time <= ${target.atMost}x node -e 0`,
        measured: times(startupRatio),
        met,
        shortBy: met ? '' : `${times(startupRatio / target.atMost)} too slow`,
      });
    }
  }
  return verdicts;
}
