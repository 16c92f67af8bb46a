/** The results as Markdown: printed by `npm run bench` and written to bench/RESULTS.md. */
import type { BenchResults, InputResult } from './results.js';
import type { Spread } from './stats.js';

function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: readonly string[]): string => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  return [line(header), `| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`, ...rows.map(line)].join('\n');
}

const fixed = (value: number, digits = 1): string => value.toFixed(digits);
const range = (spread: Spread, digits = 1): string => `${fixed(spread.min, digits)}-${fixed(spread.max, digits)} (IQR ${fixed(spread.q1, digits)}-${fixed(spread.q3, digits)})`;
const megabytes = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

function inputRows(input: InputResult): string[][] {
  return input.contenders.map((contender) => {
    const failed = contender.failedRuns > 0 ? ` (${contender.failedRuns} failed)` : '';
    if (contender.mbPerSecond === null || contender.wallSeconds === null || contender.peakRssMiB === null) {
      return [`${contender.label}${failed}`, 'failed', contender.lastFailure ?? '', '', '', ''];
    }
    return [
      `${contender.label}${failed}`,
      fixed(contender.mbPerSecond.median),
      range(contender.mbPerSecond),
      fixed(contender.wallSeconds.median, 2),
      fixed(contender.peakRssMiB, 0),
      contender.gpuAuditRatio === null ? '' : `${contender.gpuAuditRatio.toFixed(2)}x`,
    ];
  });
}

export function renderMarkdown(results: BenchResults): string {
  const { machine } = results;
  const parts: string[] = [
    '# gpu-audit benchmark results',
    '',
    `Written by \`npm run bench\` (\`${results.commandLine}\`) on ${results.generatedAt}; do not edit by hand.`,
    `Scale ${results.scale} of the issue's sizes${results.scale === 1 ? '' : ` (full size: \`npm run bench\` with no --scale)`}; the run took ${Math.round(results.durationSeconds)} s.`,
    '',
    '## Machine',
    '',
    table(['', ''], [
      ['CPU', `${machine.cpuModel}, ${machine.logicalCores} logical cores`],
      ['memory', `${machine.memoryGiB} GiB`],
      ['OS', machine.os],
      ['node', machine.node],
      ['python', machine.python],
      ['promtool', machine.promtool],
      ['load average (1 min) at start', String(machine.loadAverage1m)],
      ['commit (dist/ built at)', `${machine.commit} (${machine.distBuiltAt})`],
    ]),
    '',
    '## Throughput',
    '',
    'MB/s = file size (10^6 bytes) / wall time from spawn to exit, startup included. The commands of an input ran',
    'alternately (A B C A B C ...) on the same file, warm in the page cache; "gpu-audit ÷" is gpu-audit\'s median',
    'MB/s over that command\'s median MB/s (above 1: gpu-audit is faster). Peak RSS is the highest over the runs.',
  ];
  for (const input of results.inputs) {
    parts.push(
      '',
      `### ${input.title}`,
      '',
      `\`${input.fileName}\`, ${megabytes(input.bytes)}, ${input.repetitions} runs each.`,
      '',
      table(['command', 'MB/s median', 'MB/s min-max (IQR)', 'wall s median', 'peak RSS MiB', 'gpu-audit ÷'], inputRows(input)),
    );
  }
  if (results.startup !== null) {
    const { startup } = results;
    parts.push(
      '',
      '### Start-up',
      '',
      `Audit of one nvidia-smi -q -x document (${megabytes(startup.fileBytes)}, 8 GPUs) against an empty node process, ${startup.repetitions} runs each.`,
      '',
      table(['command', 'wall ms median', 'wall ms min-max (IQR)'], [
        ['gpu-audit audit one.xml --format json', fixed(startup.gpuAuditSeconds.median * 1000, 0), range(scaleSpread(startup.gpuAuditSeconds, 1000), 0)],
        ['node -e 0', fixed(startup.nodeSeconds.median * 1000, 0), range(scaleSpread(startup.nodeSeconds, 1000), 0)],
      ]),
      '',
      `Ratio: ${startup.ratio.toFixed(2)}x.`,
    );
  }
  if (results.planning !== null) {
    const { planning } = results;
    parts.push(
      '',
      '### Planning',
      '',
      `planFleet over a synthetic fleet (bench/generate/plan-fleet.ts) of ${planning.gpus.toLocaleString('en-US')} GPUs and ${planning.workloads.toLocaleString('en-US')} workloads: ${planning.placements.toLocaleString('en-US')} placements, ${planning.steps.toLocaleString('en-US')} steps; ${planning.repetitions} runs in the bench process, parsing and rendering left out.`,
      '',
      table(['planFleet', 's median', 's min-max (IQR)'], [[`${planning.gpus.toLocaleString('en-US')} GPUs, ${planning.workloads.toLocaleString('en-US')} workloads`, fixed(planning.seconds.median, 2), range(planning.seconds, 2)]]),
    );
  }
  parts.push(
    '',
    '## Targets',
    '',
    table(['target', 'measured', 'met', 'short by'], results.verdicts.map((verdict) => [verdict.target, verdict.measured, verdict.met ? 'yes' : 'NO', verdict.shortBy])),
    '',
  );
  return parts.join('\n');
}

function scaleSpread(spread: Spread, factor: number): Spread {
  return { ...spread, median: spread.median * factor, min: spread.min * factor, max: spread.max * factor, q1: spread.q1 * factor, q3: spread.q3 * factor };
}
