/**
 * Who runs on each input: gpu-audit's full audit, the I/O floor (`cat`), and the peers
 * (Python scripts of our own that compute the same per-GPU figures with the standard
 * parsers, and promtool on a single scrape). Each input's contenders run alternately.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchInput } from './generate/inputs.js';
import type { Command } from './measure.js';

export const repoRoot = fileURLToPath(new URL('../', import.meta.url));
/** Debian's interpreter, where python3-prometheus-client installs (a pyenv/venv python would not see it). */
export const PYTHON = process.env.BENCH_PYTHON ?? '/usr/bin/python3';
export const PROMTOOL = process.env.BENCH_PROMTOOL ?? 'promtool';
const CLI = path.join(repoRoot, 'bin/gpu-audit.js');
const PEERS = path.join(repoRoot, 'bench/peers');
/** promtool check metrics exits 3 when it only found lint problems (DCGM names break its naming rules). */
const PROMTOOL_LINT_EXIT = 3;

export type Role = 'gpu-audit' | 'floor' | 'peer';

export interface Contender {
  id: string;
  label: string;
  role: Role;
  command(file: string): Command;
}

export const gpuAudit: Contender = {
  id: 'gpu-audit',
  label: 'gpu-audit audit --format json',
  role: 'gpu-audit',
  command: (file) => ({ argv: [process.execPath, CLI, 'audit', file, '--format', 'json'] }),
};

/**
 * The Kubernetes list is read beside telemetry (an audit needs some): the small dcgm-exporter
 * fixture the tests use, so that the time and memory are the list's.
 */
const TELEMETRY_BESIDE_LIST = path.join(repoRoot, 'test/fixtures/kubernetes/scrapes.prom');
const gpuAuditWithList: Contender = {
  id: 'gpu-audit',
  label: 'gpu-audit audit scrapes.prom --k8s FILE --format json',
  role: 'gpu-audit',
  command: (file) => ({ argv: [process.execPath, CLI, 'audit', TELEMETRY_BESIDE_LIST, '--k8s', file, '--format', 'json'] }),
};

const floor: Contender = {
  id: 'cat',
  label: 'cat (I/O floor)',
  role: 'floor',
  command: (file) => ({ argv: ['cat', file] }),
};

function pythonPeer(id: string, label: string, script: string, ...options: string[]): Contender {
  return { id, label, role: 'peer', command: (file) => ({ argv: [PYTHON, path.join(PEERS, script), ...options, file] }) };
}

const etreeDocument = pythonPeer('python-etree', 'Python ElementTree, per document', 'xml_etree.py', '--mode', 'document');
const etreePull = pythonPeer('python-etree-pull', 'Python ElementTree, XMLPullParser', 'xml_etree.py', '--mode', 'pull');
const pythonCsv = pythonPeer('python-csv', 'Python csv', 'csv_stats.py');
const pythonPrometheus = pythonPeer('python-prometheus-client', 'Python prometheus_client.parser', 'prom_client.py');
const pythonJson = pythonPeer('python-json', 'Python json.load', 'k8s_json.py');
const pythonJsonAnswer = pythonPeer('python-json-answer', 'Python json.load', 'prom_json.py');
const promtool: Contender = {
  id: 'promtool',
  label: 'promtool check metrics',
  role: 'peer',
  command: (file) => ({ argv: [PROMTOOL, 'check', 'metrics'], stdinFile: file, okExitCodes: [0, PROMTOOL_LINT_EXIT] }),
};

/** The contenders of an input, gpu-audit first. */
export function contendersFor(input: BenchInput): Contender[] {
  switch (input.format) {
    case 'nvidia-smi-xml':
      return [gpuAudit, floor, etreeDocument, etreePull];
    case 'query-gpu-csv':
      return [gpuAudit, floor, pythonCsv];
    case 'kubernetes-list':
      return [gpuAuditWithList, floor, pythonJson];
    case 'prometheus-answer':
      return [gpuAudit, floor, pythonJsonAnswer];
    case 'dcgm-exposition':
      // promtool checks one page; on concatenated scrapes it reports duplicate series and stops.
      return input.id === 'dcgm-scrape' ? [gpuAudit, floor, pythonPrometheus, promtool] : [gpuAudit, floor, pythonPrometheus];
  }
}
