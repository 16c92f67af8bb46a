/**
 * The package as a user installs it: `npm pack` of the built tree (npm test builds first),
 * installed into an empty project with `--omit=dev --omit=optional`, runs `audit --demo`; the
 * tarball carries neither source maps nor the V8 code cache; without the optional cloud SDKs,
 * `catalog refresh` says in one line what to install.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/corpus.js';

const temp = mkdtempSync(path.join(tmpdir(), 'gpu-audit-package-'));
const project = path.join(temp, 'project');
const npm = (args: string[], cwd: string) =>
  spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: 240_000, env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } });
const installed = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [path.join(project, 'node_modules/gpu-audit/bin/gpu-audit.js'), ...args], { cwd: project, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', ...env }, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });

let packedFiles: string[] = [];

beforeAll(() => {
  // --ignore-scripts: dist/ is already built, and rebuilding it would pull it from under the tests running beside this one.
  const pack = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', temp], repoRoot);
  expect(pack.status, pack.stderr).toBe(0);
  const [entry] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
  packedFiles = entry!.files.map((file) => file.path);
  mkdirSync(project);
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  const install = npm(['install', '--omit=dev', '--omit=optional', '--prefer-offline', '--no-package-lock', path.join(temp, entry!.filename)], project);
  expect(install.status, install.stderr).toBe(0);
}, 300_000);

describe('the packed package', () => {
  it('carries the CLI, the schemas and the demo, but no source map or V8 code cache', () => {
    expect(packedFiles).toEqual(expect.arrayContaining(['bin/gpu-audit.js', 'dist/bundle/gpu-audit.cjs', 'schema/report.schema.json', 'LICENSE']));
    expect(packedFiles.filter((file) => file.endsWith('.map') || file.endsWith('.v8cache'))).toEqual([]);
  });

  it('installs without dev and optional dependencies and audits the demo', () => {
    expect(existsSync(path.join(project, 'node_modules/typescript'))).toBe(false);
    expect(readdirSync(path.join(project, 'node_modules')).filter((name) => name === '@aws-sdk' || name === '@azure')).toEqual([]);
    const run = installed(['audit', '--demo', '--format', 'json', '-q']);
    expect(run.status, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { summary: { gpuCount: number } }).summary.gpuCount).toBe(16);
  }, 60_000);

  it('audit --prometheus-sigv4 without the signer exits 2 naming what to install', () => {
    const run = installed(['audit', '--prometheus', 'http://127.0.0.1:9', '--prometheus-sigv4', 'us-east-1'], { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'example' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('gpu-audit: --prometheus-sigv4 needs @smithy/signature-v4, @aws-crypto/sha256-js, @aws-sdk/credential-provider-node, optional dependencies of gpu-audit that are not installed');
  });

  it.each([
    ['--aws', ['--region', 'us-east-1'], '@aws-sdk/client-ec2, @aws-sdk/client-pricing, @aws-sdk/client-savingsplans'],
    ['--azure', ['--subscription', '00000000-0000-0000-0000-000000000000', '--location', 'eastus'], '@azure/identity, @azure/arm-compute'],
  ])('catalog refresh %s without the cloud SDKs exits 2 naming what to install', (flag, args, packages) => {
    const run = installed(['catalog', 'refresh', flag, ...args], { GPU_AUDIT_CACHE_DIR: path.join(temp, 'cache') });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      `gpu-audit: catalog refresh ${flag} needs ${packages}, optional dependencies of gpu-audit that are not installed (an install with --omit=optional): install them with npm install ${packages.replaceAll(', ', ' ')}, or reinstall gpu-audit with them\n`,
    );
  });
});
