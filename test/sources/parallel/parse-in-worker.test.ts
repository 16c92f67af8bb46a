/**
 * Parsing in a worker thread gives the report that parsing in the main thread gives, byte for
 * byte: on every corpus file of every format (with workers forced on, so that small files go
 * through one too), on a synthetic log of many batches, and when the input turns out to be bad.
 */
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAudit, type AuditOptions } from '../../../src/engine/run-audit.js';
import { InputError } from '../../../src/support/errors.js';
import type { GpuSample, ObservationSink } from '../../../src/model/observations.js';
import { parseInWorker } from '../../../src/sources/parallel/parse-in-worker.js';
import { PARSE_WORKER_MIN_BYTES } from '../../../src/sources/parallel/policy.js';
import { BATCH_MAX_TEXT, BATCH_MIN_NUMBERS, MAX_BATCHES_AHEAD, type ParseJob } from '../../../src/sources/parallel/protocol.js';
import { corpusFiles, repoRoot } from '../../helpers/corpus.js';
import { RecordingSink } from '../../helpers/sink.js';

const BASE: Omit<AuditOptions, 'inputs'> = {
  timeZone: 'UTC',
  idleThresholdPct: 5,
  keepGoing: true,
  pricing: 'on-demand',
  now: () => new Date('2026-06-01T00:00:00Z'),
};

/** The audit's outcome as text: the JSON report, or the error it ended with. */
async function outcome(inputs: string[], parseWorkers: 'never' | 'always', more: Partial<AuditOptions> & { parseBlockBytes?: number } = {}): Promise<string> {
  try {
    const { parseBlockBytes, ...rest } = more;
    const { report, failures } = await runAudit({ ...BASE, inputs, performance: { parseWorkers, parseBlockBytes }, ...rest });
    return JSON.stringify({ report, failures: failures.map((failure) => failure.describe()) }, null, 1);
  } catch (error) {
    return error instanceof InputError ? `InputError: ${error.describe()}` : `${String(error)}`;
  }
}

const CORPUS_FOLDERS = ['nvidia-smi-xml', 'nvidia-smi-csv', 'nvidia-smi-dmon', 'dcgm-exporter', 'dcgmi', 'prometheus-api'];

describe('the same report from a worker as from the main thread', () => {
  for (const folder of CORPUS_FOLDERS) {
    it(`on every file of corpus/${folder}, one audit per file`, async () => {
      const files = corpusFiles(folder);
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        const inThread = await outcome([file], 'never');
        expect(await outcome([file], 'always'), path.basename(file)).toBe(inThread);
      }
    });
  }

  it('on corpus --query-gpu CSV and XML read in blocks of 300 bytes to 8 KiB (sources/parallel/parse-in-blocks.ts)', async () => {
    const files = [
      ...corpusFiles('nvidia-smi-csv').filter((file) => /query-gpu-load|testdata-query|tesla-p100/.test(file)),
      ...corpusFiles('nvidia-smi-xml').filter((file) => /telegraf-(tesla-t4|dual_a5000-v13)|netdata-a100/.test(file)),
    ];
    expect(files.length).toBeGreaterThan(8);
    for (const file of files) {
      const inThread = await outcome([file], 'never');
      for (const parseBlockBytes of [300, 8_192]) expect(await outcome([file], 'always', { parseBlockBytes }), path.basename(file)).toBe(inThread);
    }
  });

  it('on the gzipped demo fleet, node_exporter and cAdvisor counters and DCGM scrapes with pod labels', async () => {
    const demo = readdirSync(path.join(repoRoot, 'fixtures/demo')).filter((name) => name.endsWith('.xml.gz')).map((name) => path.join(repoRoot, 'fixtures/demo', name));
    const inputs = [
      ...demo,
      path.join(repoRoot, 'test/fixtures/node-metrics/node-exporter-federate.prom'),
      path.join(repoRoot, 'test/fixtures/node-metrics/cadvisor-federate.prom'),
      path.join(repoRoot, 'test/fixtures/kubernetes/scrapes.prom'),
    ];
    const inThread = await outcome(inputs, 'never');
    expect(inThread).toContain('"gpus"');
    expect(await outcome(inputs, 'always')).toBe(inThread);
  });
});

describe('a log of many batches', () => {
  let directory: string;
  let csv: string;
  /**
   * 8 GPUs x 12,000 rows of about 145 bytes: some 14 MB, over two hundred pieces of text. A row
   * is a sample of 8 numbers (kind, ref, mask, time and 4 fields): 768,000 numbers, six batches.
   */
  const ROWS_PER_GPU = 12_000;
  beforeAll(() => {
    directory = mkdtempSync(path.join(tmpdir(), 'gpu-audit-worker-'));
    csv = path.join(directory, 'node-3.csv');
    writeFileSync(csv, syntheticQueryCsv(ROWS_PER_GPU));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('gives the same report, in batches of many pieces of text each', async () => {
    const inThread = await outcome([csv], 'never');
    expect(JSON.parse(inThread).report.gpus).toHaveLength(8);
    expect(await outcome([csv], 'always')).toBe(inThread);
  });

  it('never runs more than MAX_BATCHES_AHEAD batches ahead of a slow main thread', async () => {
    // The sink stalls 2 ms every 100 samples, some 330 ms a batch: the parser, which reads a
    // batch's 2.4 MB in a few tens of milliseconds, outruns it and must wait for acks.
    let samples = 0;
    const sink = new RecordingSink();
    const slow: ObservationSink = {
      ...sinkMethods(sink),
      sample: (sample: GpuSample) => {
        sink.sample(sample);
        samples += 1;
        if (samples % 100 === 0) stall(2);
      },
    };
    const result = await parseInWorker(job(csv, 'nvidia-smi-csv'), slow);
    expect(samples).toBe(8 * ROWS_PER_GPU);
    expect(result.records).toBe(8 * ROWS_PER_GPU);
    // A batch is posted at the first piece boundary once it holds BATCH_MIN_NUMBERS (131,072)
    // numbers, so it holds that many and at most one 64 KiB piece more (some 450 rows, 3,600
    // numbers): 16,384 to 16,834 rows, 2.4 MB of text, under BATCH_MAX_TEXT. 96,000 rows x 8 =
    // 768,000 numbers: five full batches take 655,360 to 673,360 of them, and the other 94,640
    // to 112,640 go in a sixth, posted at the end.
    expect(BATCH_MIN_NUMBERS).toBe(131_072);
    expect(result.batches).toBe(6);
    expect(result.mostBatchesAhead).toBe(MAX_BATCHES_AHEAD);
  });

  it('posts a batch every BATCH_MAX_TEXT of text however few numbers it holds, so that parse and analysis overlap', async () => {
    // Rows of about 1,000 bytes (a long serial column, not read) give 8 numbers per 1,000 bytes:
    // 8 x 1,250 rows make about 10 MB and 80,000 numbers, under BATCH_MIN_NUMBERS. Pieces of
    // 64 KiB add up to BATCH_MAX_TEXT (4 MiB) after 64 of them: batches after 4 MiB and 8 MiB of
    // text, and the rest at the end, three in all.
    const sparse = path.join(directory, 'node-5.csv');
    writeFileSync(sparse, syntheticQueryCsv(1_250, 'x'.repeat(850)));
    const size = statSync(sparse).size;
    expect(size).toBeGreaterThan(2 * BATCH_MAX_TEXT);
    expect(size).toBeLessThan(3 * BATCH_MAX_TEXT);
    const sink = new RecordingSink();
    const result = await parseInWorker(job(sparse, 'nvidia-smi-csv'), sinkMethods(sink));
    expect(result.records).toBe(8 * 1_250);
    expect(sink.samples).toHaveLength(8 * 1_250);
    expect(result.batches).toBe(3);
  });

  it('stops at the first error of the main thread: no call reaches the sink after it', async () => {
    let samples = 0;
    const failing: ObservationSink = {
      ...sinkMethods(new RecordingSink()),
      sample: () => {
        samples += 1;
        if (samples === 5_000) throw new Error('analysis failed');
      },
    };
    await expect(parseInWorker(job(csv, 'nvidia-smi-csv'), failing)).rejects.toThrow('analysis failed');
    expect(samples).toBe(5_000);
  });

  it('a truncated gzip: the rows before the damage count, then the same InputError', async () => {
    const truncatedGzip = path.join(directory, 'node-4.csv.gz');
    const whole = gzipSync(syntheticQueryCsv(2_000));
    writeFileSync(truncatedGzip, whole.subarray(0, Math.floor(whole.length * 0.6)));
    const good = corpusFiles('nvidia-smi-xml')[0]!;
    // keepGoing: the failure is listed and what was read of the file before it stays in the analysis.
    const inThread = await outcome([good, truncatedGzip], 'never');
    expect(inThread).toContain('corrupt or truncated gzip data');
    expect(await outcome([good, truncatedGzip], 'always')).toBe(inThread);
  });
});

describe('a Prometheus range answer, whose samples are all sent after the document is read', () => {
  it('goes out in batches as they fill, as the parser pauses between devices, not as one batch of every sample', async () => {
    // 40 GPUs x 3,000 steps of utilization and memory used: 120,000 samples of 6 numbers (kind,
    // ref, mask, time and the two fields), 720,000 numbers: at least five batches of
    // BATCH_MIN_NUMBERS (131,072) and a device's 18,000 more. Without the pauses: one batch.
    const directory = mkdtempSync(path.join(tmpdir(), 'gpu-audit-answer-'));
    try {
      const answer = path.join(directory, 'range.json');
      const series: string[] = [];
      for (const metric of ['DCGM_FI_DEV_GPU_UTIL', 'DCGM_FI_DEV_FB_USED']) {
        for (let gpu = 0; gpu < 40; gpu += 1) {
          const labels = `"__name__":"${metric}","Hostname":"node-${gpu >> 3}","UUID":"GPU-${String(gpu).padStart(8, '0')}-0000-0000-0000-000000000000","gpu":"${gpu & 7}"`;
          const values = Array.from({ length: 3_000 }, (_, step) => `[${1_780_000_000 + step * 30},"${(gpu * 7 + step) % 101}"]`).join(',');
          series.push(`{"metric":{${labels}},"values":[${values}]}`);
        }
      }
      writeFileSync(answer, `{"status":"success","data":{"resultType":"matrix","result":[${series.join(',')}]}}`);
      const sink = new RecordingSink();
      const result = await parseInWorker(job(answer, 'prometheus-json'), sinkMethods(sink));
      expect(sink.samples).toHaveLength(40 * 3_000);
      expect(result.batches).toBeGreaterThanOrEqual(5);
      expect(result.mostBatchesAhead).toBeLessThanOrEqual(MAX_BATCHES_AHEAD);
      expect(await outcome([answer], 'always')).toBe(await outcome([answer], 'never'));
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('a large input', () => {
  it('is announced before it is read (AuditOptions.onLargeInput), whether or not a worker parses it', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'gpu-audit-large-'));
    try {
      // Rows of about 4 KB (a long serial column, not read): 8 x 1,100 rows make some 35 MB,
      // over PARSE_WORKER_MIN_BYTES (32 MiB = 33.5 MB), in few rows.
      const large = path.join(directory, 'node-7.csv');
      writeFileSync(large, syntheticQueryCsv(1_100, 'x'.repeat(3_900)));
      expect(statSync(large).size).toBeGreaterThanOrEqual(PARSE_WORKER_MIN_BYTES);
      const small = path.join(directory, 'node-8.csv');
      writeFileSync(small, syntheticQueryCsv(10));
      for (const parseWorkers of ['never', 'always'] as const) {
        const announced: string[] = [];
        const { report } = await runAudit({ ...BASE, inputs: [small, large], performance: { parseWorkers, onLargeInput: (ref) => announced.push(ref) } });
        expect(report.gpus).toHaveLength(16);
        expect(announced).toEqual([large]);
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('errors inside the worker', () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(path.join(tmpdir(), 'gpu-audit-worker-errors-'));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('an InputError comes back as the same InputError: message, file and location', async () => {
    const broken = path.join(directory, 'broken.xml');
    writeFileSync(broken, '<?xml version="1.0" ?>\n<nvidia_smi_log>\n<gpu id="00000000:01:00.0">\n<product_name>Tesla T4</product_name>\n</nvidia_smi_log>\n');
    const errors: InputError[] = [];
    for (const parseWorkers of ['never', 'always'] as const) {
      const error = await runAudit({ ...BASE, keepGoing: false, inputs: [broken], performance: { parseWorkers } }).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(InputError);
      errors.push(error as InputError);
    }
    const [inThread, inWorker] = errors as [InputError, InputError];
    expect(inThread.location).toBeDefined();
    expect({ message: inWorker.message, file: inWorker.file, location: inWorker.location, line: inWorker.describe() }).toEqual({
      message: inThread.message,
      file: inThread.file,
      location: inThread.location,
      line: inThread.describe(),
    });
  });

  it('any other error keeps its message and the worker stack', async () => {
    const file = path.join(directory, 'one.csv');
    writeFileSync(file, syntheticQueryCsv(1));
    const error = await parseInWorker(job(file, 'no-such-format'), new RecordingSink()).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(InputError);
    expect((error as Error).message).toBe('parse worker: no parser of format no-such-format');
    expect((error as Error).stack).toContain('runParseJob');
  });
});

function job(file: string, format: string): ParseJob {
  return { input: { ref: file, path: file, discovered: false }, format, context: { ref: file, host: 'node-3', timeZone: 'UTC' } };
}

function sinkMethods(sink: RecordingSink): ObservationSink {
  return { device: (info) => sink.device(info), sample: (sample) => sink.sample(sample), process: (process) => sink.process(process), warn: (warning) => sink.warn(warning) };
}

function stall(milliseconds: number): void {
  const until = performance.now() + milliseconds;
  while (performance.now() < until);
}

/**
 * A `--query-gpu` log of 8 GPUs sampled every 5 s, with utilization and power that vary by
 * row, so that the report's figures depend on every sample.
 */
function syntheticQueryCsv(rowsPerGpu: number, serial?: string): string {
  const lines = [`timestamp, index, uuid, pci.bus_id, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W]${serial === undefined ? '' : ', serial'}`];
  const start = Date.UTC(2026, 4, 1);
  for (let row = 0; row < rowsPerGpu; row += 1) {
    const stamp = new Date(start + row * 5_000).toISOString().replace('T', ' ').replace('Z', '').replaceAll('-', '/');
    for (let gpu = 0; gpu < 8; gpu += 1) {
      const utilization = (row * 7 + gpu * 13) % 101;
      lines.push(`${stamp}, ${gpu}, GPU-0000000${gpu}-1111-2222-3333-444444444444, 00000000:${(gpu + 16).toString(16).toUpperCase()}:00.0, NVIDIA H100 80GB HBM3, ${utilization} %, ${(row % 800) * 100} MiB, 81559 MiB, ${(100 + utilization * 5.5).toFixed(2)} W${serial === undefined ? '' : `, ${serial}`}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
