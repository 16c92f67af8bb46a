/**
 * `audit -o FILE` stopped by SIGTERM or SIGINT at any moment leaves FILE either as it was or
 * as the complete new report, and no temporary file beside it (src/cli/output.ts,
 * src/support/atomic-write.ts). The built CLI is stopped at several delays, and once at the
 * moment its temporary file appears (mid-write, the case a fixed delay rarely hits).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/corpus.js';

const OLD = 'the previous report\n';

function freshTarget(): { dir: string; file: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-interrupt-'));
  const file = path.join(dir, 'report.html');
  writeFileSync(file, OLD);
  return { dir, file };
}

/** Starts `audit --demo --format html -o FILE`; `stopWhen` decides when to send the signal. */
function runAndStop(file: string, signal: NodeJS.Signals, stopWhen: (stop: () => void) => void): Promise<number | null> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/gpu-audit.js'), 'audit', '--demo', '--format', 'html', '-o', file, '--quiet'], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: 'ignore',
  });
  stopWhen(() => child.kill(signal));
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}

/** The file is the old one or a whole HTML report; nothing else is left in the directory. */
function expectOldOrComplete(dir: string, file: string): 'old' | 'new' {
  const text = readFileSync(file, 'utf8');
  expect(readdirSync(dir)).toEqual(['report.html']);
  if (text === OLD) return 'old';
  expect(text.startsWith('<!DOCTYPE html>')).toBe(true);
  expect(text.trimEnd().endsWith('</html>')).toBe(true);
  return 'new';
}

describe('audit -o FILE stopped by a signal', () => {
  it.each([
    ['SIGTERM', 0], ['SIGTERM', 300], ['SIGINT', 800], ['SIGTERM', 1500], ['SIGTERM', 4000],
  ] as const)('%s after %i ms leaves the old file or the complete new one', async (signal, delayMs) => {
    const { dir, file } = freshTarget();
    await runAndStop(file, signal, (stop) => setTimeout(stop, delayMs));
    expectOldOrComplete(dir, file);
  }, 60_000);

  it('SIGTERM as the temporary file appears: the old file stays, the temporary file is removed', async () => {
    const { dir, file } = freshTarget();
    let watcher: ReturnType<typeof watch> | undefined;
    const code = await runAndStop(file, 'SIGTERM', (stop) => {
      watcher = watch(dir, (_event, name) => {
        if (name !== null && name.endsWith('.tmp')) {
          watcher?.close();
          stop();
        }
      });
    });
    watcher?.close();
    // Stopped mid-write the CLI exits 143 (128 + 15) after removing its temporary file; a
    // write that won the race ends normally (0) with the new file in place.
    expect([0, 143]).toContain(code);
    const state = expectOldOrComplete(dir, file);
    if (code === 143) expect(state).toBe('old');
  }, 60_000);
});
