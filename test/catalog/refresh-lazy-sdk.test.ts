/**
 * The cloud SDKs are loaded only when a refresh runs: building the CLI's `catalog refresh`
 * command or loading the catalog must not import them. Checked in a child process whose
 * module-resolve hook reports every @aws-sdk/* and @azure/* specifier.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/corpus.js';

const HOOK = `
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const seen = new Set();
port1.on('message', (specifier) => seen.add(specifier));
port1.unref();
register('data:text/javascript,' + encodeURIComponent(\`
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  if (/^@(aws-sdk|azure)\\\\//.test(specifier)) port.postMessage(specifier);
  return next(specifier, context);
}\`), { data: { port: port2 }, transferList: [port2] });
process.on('exit', () => process.stdout.write('\\nSDK-IMPORTS ' + JSON.stringify([...seen].sort())));
`;

let directory: string;
beforeAll(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'gpu-audit-hook-'));
  writeFileSync(path.join(directory, 'report-sdk-imports.mjs'), HOOK);
});
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

function sdkImportsOf(script: string): string[] {
  const output = execFileSync(process.execPath, ['--no-warnings', '--import', 'tsx', '--import', path.join(directory, 'report-sdk-imports.mjs'), '--input-type=module', '-e', script], { cwd: repoRoot, encoding: 'utf8' });
  const line = output.split('\n').find((entry) => entry.startsWith('SDK-IMPORTS '));
  return JSON.parse(line?.slice('SDK-IMPORTS '.length) ?? 'null') as string[];
}

describe('SDK loading', () => {
  it('sees an SDK import when there is one (the hook works)', () => {
    expect(sdkImportsOf("await import('@aws-sdk/client-pricing');")).toEqual(['@aws-sdk/client-pricing']);
  });

  it('loads none while the refresh command is built and the catalog is read', () => {
    const script = `
      const { refreshCommand } = await import('./src/cli/commands/catalog-refresh.ts');
      refreshCommand().helpInformation();
      const { loadCatalog } = await import('./src/catalog/index.ts');
      await loadCatalog({ preferCache: false });`;
    expect(sdkImportsOf(script)).toEqual([]);
  });
});
