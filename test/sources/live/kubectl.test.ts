/**
 * `--kubectl` against fake kubectl programs: small executables written to a temp dir that
 * print a fixture, fail the way kubectl fails, hang, or flood. No shell is involved anywhere:
 * the arguments a fake receives are exactly the array gpu-audit passed.
 */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError, UpstreamError } from '../../../src/support/errors.js';
import { kubectlArguments, readKubernetesFromKubectl } from '../../../src/sources/kubernetes.js';
import { repoRoot } from '../../helpers/corpus.js';

const CLUSTER = path.join(repoRoot, 'test/fixtures/kubernetes/cluster.json');

/** Writes an executable Node script named `kubectl` in a fresh directory and returns its path. */
function fakeKubectl(body: string): { executable: string; dir: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-kubectl-'));
  const executable = path.join(dir, 'kubectl');
  writeFileSync(executable, `#!${process.execPath}\n${body}\n`);
  chmodSync(executable, 0o755);
  return { executable, dir };
}

/** A kubectl that records its arguments and prints the cluster fixture. */
function recordingKubectl(): { executable: string; argsFile: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-kubectl-args-'));
  const argsFile = path.join(dir, 'args.json');
  const { executable } = fakeKubectl(`
const fs = require('node:fs');
fs.writeFileSync(${JSON.stringify(argsFile)}, JSON.stringify(process.argv.slice(2)));
process.stderr.write('Warning: v1 ComponentStatus is deprecated in v1.19+\\n');
process.stdout.write(fs.readFileSync(${JSON.stringify(CLUSTER)}, 'utf8'));`);
  return { executable, argsFile };
}

function failing(stderr: string, status = 1): string {
  return fakeKubectl(`process.stderr.write(${JSON.stringify(stderr)}); process.exit(${status});`).executable;
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('kubectl arguments', () => {
  it('asks for pods and nodes of all namespaces as JSON, with a server-side deadline', () => {
    expect(kubectlArguments()).toEqual(['get', 'pods,nodes', '--all-namespaces', '--output', 'json', '--request-timeout=60s']);
    expect(kubectlArguments({ context: 'prod', timeoutMs: 15_500 })).toEqual([
      '--context', 'prod', 'get', 'pods,nodes', '--all-namespaces', '--output', 'json', '--request-timeout=16s',
    ]);
  });
});

describe('readKubernetesFromKubectl with a fake kubectl', () => {
  it('passes a context with shell metacharacters through as one argument, untouched', async () => {
    const { executable, argsFile } = recordingKubectl();
    const context = 'prod; touch /tmp/pwned $(id)';
    const read = await readKubernetesFromKubectl({ executable, context });
    expect(JSON.parse(readFileSync(argsFile, 'utf8'))).toEqual(kubectlArguments({ context }));
    expect(read.ref).toBe(`kubectl --context ${context}`);
    // The fixture: six pods and three nodes (stderr warnings beside a good answer are ignored).
    expect([read.pods.length, read.nodes.length, read.records]).toEqual([6, 3, 9]);
  });

  it('says how to go on without kubectl when it is not installed (input error, exit 2)', async () => {
    const error = await caught(readKubernetesFromKubectl({ executable: path.join(tmpdir(), 'no-such-dir', 'kubectl') }));
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toMatch(/not installed or not on PATH.*--k8s FILE/);
  });

  it('treats an unknown context as the user\'s to fix (input error)', async () => {
    const error = await caught(readKubernetesFromKubectl({ executable: failing('error: context "nope" does not exist\n'), context: 'nope' }));
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toBe('--kubectl: error: context "nope" does not exist');
  });

  it('treats an unreachable or refusing cluster as upstream (exit 3), quoting kubectl', async () => {
    const stderr = 'E1120 09:14:03.112233   4242 memcache.go:265] couldn\'t get current server API group list\nUnable to connect to the server: dial tcp 10.0.0.1:443: i/o timeout\nextra\nlines\n';
    const error = await caught(readKubernetesFromKubectl({ executable: failing(stderr) }));
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).endpoint).toBe('kubectl');
    expect((error as UpstreamError).message).toBe(
      'kubectl exited with status 1: E1120 09:14:03.112233   4242 memcache.go:265] couldn\'t get current server API group list / Unable to connect to the server: dial tcp 10.0.0.1:443: i/o timeout / extra',
    );
  });

  it('gives up on a kubectl that hangs', async () => {
    const { executable } = fakeKubectl('setTimeout(() => {}, 60_000);');
    const error = await caught(readKubernetesFromKubectl({ executable, timeoutMs: 300 }));
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).message).toBe('timed out after 0.3 s');
  });

  it('reads an answer as it streams out, item by item', async () => {
    // 20,000 pods, some 1.7 MB, written in many pieces.
    const { executable } = fakeKubectl(`
process.stdout.write('{"apiVersion": "v1", "items": [');
for (let i = 0; i < 20000; i += 1) process.stdout.write((i === 0 ? '' : ',') + JSON.stringify({ kind: 'Pod', metadata: { name: 'p' + i, namespace: 'ml' }, spec: { nodeName: 'n' + (i % 100) } }));
process.stdout.write('], "kind": "List"}');`);
    const read = await readKubernetesFromKubectl({ executable });
    expect([read.pods.length, read.records, read.pods[19_999]!.name]).toEqual([20_000, 20_000, 'p19999']);
  });

  it('stops a kubectl whose answer is not JSON at its first character, however long it would go on', async () => {
    const { executable } = fakeKubectl(`const line = 'x'.repeat(65536); setInterval(() => process.stdout.write(line), 1);`);
    const error = await caught(readKubernetesFromKubectl({ executable, timeoutMs: 30_000 }));
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toMatch(/^not JSON/);
    expect((error as InputError).location).toBe('line 1, column 1');
  });

  it('refuses an answer that is not JSON from a kubectl that says it succeeded', async () => {
    const { executable } = fakeKubectl(`process.stdout.write('<html>Unauthorized</html>');`);
    const error = await caught(readKubernetesFromKubectl({ executable }));
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toMatch(/^not JSON/);
  });

  it('reports a kubectl that fails halfway through its answer as the failure, not as a cut document', async () => {
    const { executable } = fakeKubectl(`process.stdout.write('{"kind": "List", "items": [{"kind": "Pod"},'); process.stderr.write('error: stream error: stream ID 3; INTERNAL_ERROR\\n'); process.exitCode = 1;`);
    const error = await caught(readKubernetesFromKubectl({ executable }));
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).message).toBe('kubectl exited with status 1: error: stream error: stream ID 3; INTERNAL_ERROR');
  });
});
