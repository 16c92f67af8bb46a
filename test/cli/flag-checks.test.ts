/** Flags that would be read quietly otherwise end the run before it starts: one line, exit 2, nothing on stdout. */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/program.js';
import { formatFlagCount } from '../../src/cli/flag-checks.js';
import { runBuiltCli } from '../helpers/cli.js';

describe('formatFlagCount', () => {
  it.each<[string[], number]>([
    [['audit', '-f', 'json'], 1],
    [['audit', '-f', 'sarif', '-f', 'junit'], 2],
    [['check', '--format=json', '-fjunit'], 2],
    [['audit', '--format', 'json', '--', '-f'], 1],
    [['audit', '--force', 'x'], 0],
  ])('%j: %i', (argv, count) => {
    expect(formatFlagCount(argv)).toBe(count);
  });
});

describe('refused before the run', () => {
  it('refuses a second -f instead of writing the last format', () => {
    const run = runBuiltCli(['check', '--demo', '-f', 'sarif', '-f', 'junit']);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('gpu-audit: -f/--format given more than once (the last would win): for several formats in one run, give -o once per file, each named by its extension (-o report.json -o report.sarif)\n');
  });

  it('refuses Prometheus window flags on file inputs, which are audited over the window they hold', () => {
    const run = runBuiltCli(['audit', '--demo', '--since', '2h', '--until', '1h']);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('gpu-audit: --since, --until apply only with --prometheus: file inputs are audited over the whole window they hold\n');
    expect(runBuiltCli(['audit', '--demo', '--selector', '{namespace="ml"}']).stderr).toContain('--selector applies only with --prometheus');
  });
});

describe('HTML to a terminal', () => {
  async function inTerminal(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const io: CliIo = { stdout: (text) => { stdout += text; }, stderr: (text) => { stderr += text; }, stdoutIsTty: true, stderrIsTty: true, env: { CI: '1', NO_COLOR: '1' }, stdin: Readable.from([]) };
    const code = await runCli(argv, io);
    return { code, stdout, stderr };
  }

  it('is refused without -o or --force, in one line', async () => {
    const run = await inTerminal(['audit', '--demo', '--format', 'html']);
    expect(run).toEqual({ code: 2, stdout: '', stderr: 'gpu-audit: --format html to a terminal: write it with -o report.html (or add --force to print it here)\n' });
  });

  it('prints with --force', async () => {
    const run = await inTerminal(['audit', '--demo', '--format', 'html', '--force']);
    expect(run.code).toBe(0);
    expect(run.stdout.startsWith('<!DOCTYPE html>')).toBe(true);
  }, 60_000);
});
