/**
 * Ctrl-C in a real pseudo-terminal: the terminal turns the key into SIGINT only while it keeps
 * ISIG, which a spinner that puts stdin in raw mode takes away. `audit` reads a 250 MB log (a
 * few seconds of work) with its spinner showing and must stop within a second of the key;
 * `collect` must stop as well, finish its bundle and say the signal stopped it.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPath, repoRoot } from '../helpers/corpus.js';

/** Runs argv in a pty, presses Ctrl-C once `ready` shows (or after 3 s), and reports how long the exit took. */
const PTY_DRIVER = String.raw`
import fcntl, json, os, pty, select, signal, struct, sys, termios, time
argv = json.loads(sys.argv[1]); ready = sys.argv[2].encode()
pid, fd = pty.fork()
if pid == 0:
    # A terminal of 24 x 100, as a user's is: a pty starts at 0 columns.
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack('HHHH', 24, 100, 0, 0))
    os.execvp(argv[0], argv)
out = b''; start = time.time(); pressed = None; done = 0; status = 0
while True:
    if pressed is None and (ready in out or time.time() - start > 3):
        time.sleep(0.3); os.write(fd, b'\x03'); pressed = time.time()
    if pressed is not None and time.time() - pressed > 10:
        os.kill(pid, signal.SIGKILL)
    r, _, _ = select.select([fd], [], [], 0.05)
    if r:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b''
        if not chunk:
            break
        out += chunk
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
if not done:
    _, status = os.waitpid(pid, 0)
print(json.dumps({'seconds': None if pressed is None else time.time() - pressed, 'signal': os.WTERMSIG(status) if os.WIFSIGNALED(status) else None, 'code': os.WEXITSTATUS(status) if os.WIFEXITED(status) else None, 'output': out.decode('utf8', 'replace')[-4000:]}))
`;

interface PtyRun {
  seconds: number | null;
  signal: number | null;
  code: number | null;
  output: string;
}

function inPty(argv: readonly string[], ready: string, cwd: string, extraEnv: NodeJS.ProcessEnv = {}): PtyRun {
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0', ...extraEnv };
  delete env.CI; // the spinner, and so the raw mode, shows only outside CI
  const run = spawnSync('python3', ['-c', PTY_DRIVER, JSON.stringify(argv), ready], { cwd, env, encoding: 'utf8', timeout: 30_000 });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as PtyRun;
}

const CLI = path.join(repoRoot, 'bin/gpu-audit.js');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-pty-'));
  // A --query-gpu CSV log: 100,000 rows, written 30 times over (about 250 MB).
  const rows = Array.from({ length: 100_000 }, (_, index) => `2026/11/23 00:${String(Math.floor(index / 60) % 60).padStart(2, '0')}:${String(index % 60).padStart(2, '0')}.000, NVIDIA A10G, 00000000:00:1E.0, ${index % 100} %, 1000 MiB, 23028 MiB\n`).join('');
  const file = openSync(path.join(dir, 'big.csv'), 'w');
  writeSync(file, 'timestamp, name, pci.bus_id, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n');
  for (let copy = 0; copy < 30; copy += 1) writeSync(file, rows);
  closeSync(file);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('Ctrl-C in a terminal', () => {
  it('stops audit reading a large log, within a second, with the spinner showing', () => {
    const run = inPty([process.execPath, CLI, 'audit', path.join(dir, 'big.csv')], 'reading', dir);
    expect(run.output).toContain('reading');
    expect(run.output).not.toContain('Findings');
    expect(run.seconds).not.toBeNull();
    expect(run.seconds!).toBeLessThan(1);
    // Stopped by the signal, as a shell expects of Ctrl-C (or 130 where a handler ends it).
    expect(run.signal === 2 || run.code === 130).toBe(true);
  }, 40_000);

  it('stops collect and records that the signal stopped it', () => {
    const out = path.join(dir, 'collected');
    // A fake nvidia-smi first on PATH (test/fixtures/fake-nvidia-smi), as the collect e2e test uses.
    const run = inPty([process.execPath, CLI, 'collect', '--duration', '10m', '--interval', '1s', '-o', out], 'sampling', dir, {
      PATH: `${path.join(repoRoot, 'test/fixtures/fake-nvidia-smi')}${path.delimiter}${process.env.PATH ?? ''}`,
      FAKE_NVIDIA_SMI_DOCUMENT: corpusPath('nvidia-smi-xml', 'telegraf-a10g.xml'),
    });
    expect(run.seconds).not.toBeNull();
    expect(run.seconds!).toBeLessThan(1);
    const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as { stoppedBy: string };
    expect(manifest.stoppedBy).toBe('signal');
  }, 40_000);
});
