/**
 * The caps on what one run reads that a user may need to move: labels per series, the length
 * of a label value, series per Prometheus answer, files per run. Each is a row of one table,
 * so that the option's help, its parser, the defaults and SECURITY.md's table say the same
 * thing. The caps that guard a format's shape (a line, an XML document, a number token) are
 * not here: no telemetry of ours comes near them, and past them the input is not that format.
 * The bytes of a live answer have their own option, --prometheus-max-answer-mib.
 */
import { InputError } from '../support/index.js';

export interface InputLimits {
  /** Labels one series may carry (Prometheus text, saved and live Prometheus answers). */
  labelsPerSeries: number;
  /** Characters of one label value. */
  labelValueChars: number;
  /** Series in one Prometheus answer, saved or live. */
  seriesPerAnswer: number;
  /** Input files of one run, directories and globs expanded. */
  filesPerRun: number;
}

export interface InputLimitRow {
  /** As given to --input-limit NAME=VALUE. */
  name: string;
  key: keyof InputLimits;
  default: number;
  /** What is counted, for help and messages. */
  counts: string;
  /** What happens to the input that passes it. */
  reached: string;
}

/**
 * dcgm-exporter prints some 20 labels a series, with pod labels a few more; label values are
 * names and versions (Kubernetes caps names at 253 characters). A live answer has a series per
 * GPU (the query planner shards by host long before this); a saved one of every DCGM metric
 * of 10,000 GPUs has some 200,000. Each file of a run costs a few KiB of report and state.
 */
export const INPUT_LIMIT_ROWS: readonly InputLimitRow[] = [
  { name: 'labels', key: 'labelsPerSeries', default: 256, counts: 'labels per series', reached: 'the series is skipped, with a warning' },
  { name: 'label-chars', key: 'labelValueChars', default: 4096, counts: 'characters per label value', reached: 'the series is skipped, with a warning' },
  { name: 'series', key: 'seriesPerAnswer', default: 500_000, counts: 'series per Prometheus answer', reached: 'a saved answer is refused (exit 2), a live one ends the audit (exit 3)' },
  { name: 'files', key: 'filesPerRun', default: 20_000, counts: 'input files per run (directories and globs expanded)', reached: 'the run is refused before any input is read (exit 2)' },
];

export const DEFAULT_INPUT_LIMITS: Readonly<InputLimits> = Object.fromEntries(INPUT_LIMIT_ROWS.map((row) => [row.key, row.default])) as unknown as InputLimits;

const rowOf = (key: keyof InputLimits): InputLimitRow => INPUT_LIMIT_ROWS.find((row) => row.key === key)!;

/** How a message names the cap it hit and how to move it: `--input-limit labels=N`. */
export function limitHint(key: keyof InputLimits): string {
  return `--input-limit ${rowOf(key).name}=N`;
}

/**
 * One `NAME=VALUE` of --input-limit (or the config), added to `previous`; a usage error names
 * the names there are. VALUE is a whole number of at least 1.
 */
export function parseInputLimit(text: string, previous: Partial<InputLimits> = {}): Partial<InputLimits> {
  const match = /^([a-z-]+)=(\d+)$/u.exec(text.trim());
  const row = match === null ? undefined : INPUT_LIMIT_ROWS.find((candidate) => candidate.name === match[1]);
  const value = match === null ? Number.NaN : Number(match[2]);
  if (row === undefined || !Number.isSafeInteger(value) || value < 1) {
    throw new InputError(`expected NAME=N with N a whole number of at least 1 and NAME one of ${INPUT_LIMIT_ROWS.map((candidate) => candidate.name).join(', ')}`);
  }
  return { ...previous, [row.key]: value };
}

/** The limits in force: the defaults with what was given over them. */
export function inputLimitsOf(given: Partial<InputLimits> | undefined): InputLimits {
  return { ...DEFAULT_INPUT_LIMITS, ...given };
}

export const tooManyLabels = (limits: Pick<InputLimits, 'labelsPerSeries'>): string =>
  `more than ${limits.labelsPerSeries} labels (${limitHint('labelsPerSeries')} reads more)`;

export const labelTooLong = (label: string, chars: number, limits: Pick<InputLimits, 'labelValueChars'>): string =>
  `label ${label.slice(0, 64)} has a value of ${chars} characters (at most ${limits.labelValueChars} are read; ${limitHint('labelValueChars')} reads more)`;

/** Which cap a series' labels pass, or undefined when they keep within both. */
export function labelsProblem(labels: Iterable<readonly [string, string]>, limits: Pick<InputLimits, 'labelsPerSeries' | 'labelValueChars'>): string | undefined {
  let count = 0;
  for (const [name, value] of labels) {
    count += 1;
    if (count > limits.labelsPerSeries) return tooManyLabels(limits);
    if (value.length > limits.labelValueChars) return labelTooLong(name, value.length, limits);
  }
  return undefined;
}
