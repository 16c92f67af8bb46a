/**
 * The built CLI parses large files in a worker thread (dist/bundle/parse-worker.cjs beside the
 * CLI's bundle). GPU_AUDIT_WORKERS=always sends every file through one, so that the corpus,
 * which has no large file, shows that the JSON report is the same as from one thread, and that
 * a bad input ends the same way: one line on stderr, exit code 2.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/report.js';
import { runBuiltCli, type CliRun } from '../helpers/cli.js';
import { corpusPath } from '../helpers/corpus.js';

const IN_WORKERS = { GPU_AUDIT_WORKERS: 'always' };
const IN_ONE_THREAD = { GPU_AUDIT_WORKERS: '0' };

/** The report without the one figure that differs from run to run. */
function reportOf(run: CliRun): Omit<Report, 'generatedAt'> {
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  const { generatedAt: _generatedAt, ...rest } = JSON.parse(run.stdout) as Report;
  return rest;
}

describe('gpu-audit audit with the parse in worker threads', () => {
  it('gives the same JSON report on corpus folders of XML, CSV and DCGM inputs and on the demo fleet', () => {
    for (const args of [
      [corpusPath('nvidia-smi-xml')],
      [corpusPath('nvidia-smi-csv')],
      [corpusPath('dcgm-exporter')],
      ['--demo'],
    ]) {
      const command = ['audit', ...args, '--format', 'json', '--timezone', 'UTC'];
      const inWorkers = runBuiltCli(command, { env: IN_WORKERS });
      expect(reportOf(inWorkers), args.join(' ')).toEqual(reportOf(runBuiltCli(command, { env: IN_ONE_THREAD })));
    }
  });

  describe('a bad input', () => {
    let directory: string;
    beforeAll(() => {
      directory = mkdtempSync(path.join(tmpdir(), 'gpu-audit-e2e-worker-'));
    });
    afterAll(() => rmSync(directory, { recursive: true, force: true }));

    it('prints the same one line with file and location, and exits 2', () => {
      const broken = path.join(directory, 'broken.xml');
      writeFileSync(broken, '<?xml version="1.0" ?>\n<nvidia_smi_log>\n<gpu id="00000000:01:00.0">\n<product_name>Tesla T4</product_name>\n</nvidia_smi_log>\n');
      const inWorkers = runBuiltCli(['audit', broken, '--format', 'json'], { env: IN_WORKERS });
      const inOneThread = runBuiltCli(['audit', broken, '--format', 'json'], { env: IN_ONE_THREAD });
      expect(inOneThread.status).toBe(2);
      expect(inOneThread.stderr).toMatch(new RegExp(`^gpu-audit: ${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: document 1`));
      expect(inOneThread.stderr.trim().split('\n')).toHaveLength(1);
      expect(inWorkers).toEqual(inOneThread);
    });
  });
});
