/**
 * Headless Chromium for the browser tests: started with a fresh profile, no network
 * services and DevTools on a port it picks itself (read from its stderr), always killed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DevToolsSession } from './devtools.js';

export const CHROMIUM = '/usr/bin/chromium';

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM);
}

export interface Browser {
  /** A session attached to the browser's first page. */
  page: DevToolsSession;
  stderr(): string;
  /** Kills Chromium and its helper processes, waits (bounded) for the exit, removes the profile. */
  close(): Promise<void>;
}

function waitForDevToolsUrl(child: ChildProcess, stderr: () => string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Chromium did not open DevTools within ${timeoutMs} ms:\n${stderr()}`)), timeoutMs);
    const check = (): void => {
      const match = /DevTools listening on (ws:\/\/\S+)/u.exec(stderr());
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stderr?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Chromium exited (${code}) before DevTools opened:\n${stderr()}`));
    });
  });
}

function getJson(url: string, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { timeout: timeoutMs }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { body += chunk; });
      response.on('end', () => {
        try {
          resolve(JSON.parse(body));
        } catch (error) {
          reject(error as Error);
        }
      });
    });
    request.on('timeout', () => request.destroy(new Error(`GET ${url} timed out`)));
    request.on('error', reject);
  });
}

export async function launchChromium(timeoutMs = 30_000): Promise<Browser> {
  const profile = mkdtempSync(path.join(tmpdir(), 'gpu-audit-chromium-'));
  const child = spawn(CHROMIUM, [
    '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-default-apps', '--disable-extensions',
    '--hide-scrollbars', '--mute-audio', `--user-data-dir=${profile}`, '--remote-debugging-port=0', 'about:blank',
  // Its own process group, so that one kill reaches the renderer and helper processes too.
  ], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderrText = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => { stderrText += chunk; });
  const close = async (): Promise<void> => {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
    }
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  };
  try {
    const browserUrl = new URL(await waitForDevToolsUrl(child, () => stderrText, timeoutMs));
    const targets = await getJson(`http://${browserUrl.host}/json/list`, timeoutMs) as { type: string; webSocketDebuggerUrl: string }[];
    const pageTarget = targets.find((target) => target.type === 'page');
    if (pageTarget === undefined) throw new Error('Chromium lists no page target');
    const page = await DevToolsSession.connect(pageTarget.webSocketDebuggerUrl, timeoutMs);
    return { page, stderr: () => stderrText, close: async () => { page.close(); await close(); } };
  } catch (error) {
    await close();
    throw error;
  }
}
