/**
 * `audit --prometheus` usage and upstream failures through the CLI's one error handler:
 * exit 2 for bad usage (before any request), exit 3 naming the URL for an unreachable server,
 * and never a credential in the output.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/program.js';
import { freePort } from '../helpers/prometheus-server.js';

const CANARY = 'canary-5b0d2e77-do-not-print';

async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ status: number; output: string }> {
  const chunks: string[] = [];
  const io: CliIo = {
    stdout: (text) => chunks.push(text),
    stderr: (text) => chunks.push(text),
    stdoutIsTty: false,
    stderrIsTty: false,
    env: { NO_COLOR: '1', ...env },
    stdin: Readable.from([]),
  };
  const status = await runCli(args, io);
  return { status, output: chunks.join('') };
}

describe('audit --prometheus on the command line', () => {
  it('exits 3 naming the URL, without credentials, when nothing answers', async () => {
    const port = await freePort();
    const run = await cli(
      ['audit', '--prometheus', `http://gpu:${CANARY}@127.0.0.1:${port}/`, '--since', '1h', '--debug'],
      { GPU_AUDIT_PROMETHEUS_TOKEN: CANARY, GPU_AUDIT_PROMETHEUS_HEADERS: `X-Api-Key: ${CANARY}` },
    );
    expect(run.status).toBe(3);
    expect(run.output).toContain(`gpu-audit: http://127.0.0.1:${port}/api/v1/label/__name__/values: no answer after 4 attempts: ECONNREFUSED`);
    expect(run.output).not.toContain(CANARY);
  }, 20_000);

  it.each([
    [['--selector', 'namespace="ml"'], /--selector "namespace=\\"ml\\"": not in braces/],
    [['--selector', '{namespace="ml"} or vector(1)'], /--selector/],
    [['--since', 'yesterday'], /--since "yesterday": expected a duration/],
    [['--step', '5 minutes'], /--step.*expected a duration/],
    [['--prometheus-concurrency', '0'], /expected a whole number of at least 1/],
    [['node.xml'], /--prometheus takes no sources and no --demo/],
    [['--demo'], /--prometheus takes no sources and no --demo/],
  ])('refuses %j with exit 2 before any request', async (extra, message) => {
    // Nothing listens on this port: a request would end in exit 3, not 2.
    const port = await freePort();
    const run = await cli(['audit', '--prometheus', `http://127.0.0.1:${port}`, ...extra]);
    expect(run.status).toBe(2);
    expect(run.output).toMatch(message);
  });

  it('refuses a URL that is not http(s)', async () => {
    const run = await cli(['audit', '--prometheus', 'prometheus:9090']);
    expect(run.status).toBe(2);
    expect(run.output).toContain('--prometheus: expected an http:// or https:// URL, not prometheus:');
  });
});
