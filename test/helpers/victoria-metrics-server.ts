/**
 * A real VictoriaMetrics single-node for the tests, at its default limits: started on
 * 127.0.0.1 at a free port with a fresh storage, Prometheus text exposition files (with
 * millisecond timestamps, as /federate prints them) imported through /api/v1/import/prometheus,
 * then flushed so queries see them. Debian's `victoria-metrics` package brings it
 * (scripts/install-system-deps.sh).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, type RunningPrometheus, serverProcess } from './prometheus-server.js';

export const VICTORIA_METRICS_BIN = process.env.GPU_AUDIT_TEST_VICTORIA_METRICS ?? 'victoria-metrics';

export function victoriaMetricsAvailable(): boolean {
  return spawnSync(VICTORIA_METRICS_BIN, ['-version'], { stdio: 'ignore' }).status === 0;
}
export const VICTORIA_METRICS_HINT = 'victoria-metrics is not installed: run scripts/install-system-deps.sh (Debian package victoria-metrics)';

const READY_TIMEOUT_MS = 60_000;

async function waitFor(check: () => Promise<boolean>, what: string, log: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`victoria-metrics: ${what} within ${READY_TIMEOUT_MS / 1000} s: ${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Imports the exposition files into a fresh VictoriaMetrics and serves them. Always pair with stop(). */
export async function serveOnVictoriaMetrics(expositionFiles: readonly string[]): Promise<RunningPrometheus> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-victoria-metrics-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { child, log, stop } = serverProcess(VICTORIA_METRICS_BIN, [
    `-storageDataPath=${path.join(dir, 'data')}`,
    `-httpListenAddr=127.0.0.1:${port}`,
    '-retentionPeriod=100y',
    '-loggerLevel=ERROR',
  ], dir);
  try {
    await waitFor(async () => child.exitCode === null && (await fetch(`${url}/health`)).ok, 'not ready', log);
    let firstMs = Infinity;
    let lastMs = -Infinity;
    for (const file of expositionFiles) {
      const text = readFileSync(file, 'utf8');
      for (const line of text.split('\n')) {
        const time = Number(/ (\d+)$/u.exec(line)?.[1]);
        if (line.startsWith('#') || !Number.isFinite(time)) continue;
        firstMs = Math.min(firstMs, time);
        lastMs = Math.max(lastMs, time);
      }
      const response = await fetch(`${url}/api/v1/import/prometheus`, { method: 'POST', body: text });
      if (!response.ok) throw new Error(`victoria-metrics import of ${file}: ${response.status} ${await response.text()}`);
    }
    await fetch(`${url}/internal/force_flush`);
    // Imported rows become searchable shortly after a flush: wait until their count stops growing.
    const count = `sum(count_over_time({__name__=~".+"}[${Math.ceil((lastMs - firstMs) / 1000) + 1}s]))`;
    let seen = -1;
    await waitFor(async () => {
      const answer = await (await fetch(`${url}/api/v1/query?query=${encodeURIComponent(count)}&time=${(lastMs + 1) / 1000}`)).json() as { data: { result: { value: [number, string] }[] } };
      const now = Number(answer.data.result[0]?.value[1] ?? 0);
      const settled = now > 0 && now === seen;
      seen = now;
      return settled;
    }, 'imported samples not searchable', log);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}
