/** Finding gpu-audit.yaml: here or in the nearest parent, never above a repository's root. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverConfigFile, loadAuditConfig } from '../../src/config/index.js';
import { InputError } from '../../src/support/errors.js';

/** A fresh directory tree: `files` maps relative paths to contents (a trailing / makes a directory). */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'gpu-audit-config-'));
  for (const [relative, content] of Object.entries(files)) {
    const target = path.join(root, relative);
    if (relative.endsWith('/')) {
      mkdirSync(target, { recursive: true });
    } else {
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, content);
    }
  }
  return root;
}

describe('discoverConfigFile', () => {
  it('finds gpu-audit.yaml in the directory itself', async () => {
    const root = tree({ 'gpu-audit.yaml': '', 'gpu-audit.yml': '' });
    expect(await discoverConfigFile(root)).toBe(path.join(root, 'gpu-audit.yaml'));
  });

  it('takes gpu-audit.yml, then .gpu-audit.yaml, where gpu-audit.yaml is absent', async () => {
    const yml = tree({ 'gpu-audit.yml': '', '.gpu-audit.yaml': '' });
    expect(await discoverConfigFile(yml)).toBe(path.join(yml, 'gpu-audit.yml'));
    const hidden = tree({ '.gpu-audit.yaml': '' });
    expect(await discoverConfigFile(hidden)).toBe(path.join(hidden, '.gpu-audit.yaml'));
  });

  it('walks up to the nearest parent that has one', async () => {
    const root = tree({ 'gpu-audit.yaml': '', 'team/gpu-audit.yml': '', 'team/service/logs/': '' });
    expect(await discoverConfigFile(path.join(root, 'team/service/logs'))).toBe(path.join(root, 'team/gpu-audit.yml'));
  });

  it('checks a repository\'s root and stops there', async () => {
    const above = tree({ 'gpu-audit.yaml': '', 'repo/.git/': '', 'repo/src/': '' });
    expect(await discoverConfigFile(path.join(above, 'repo/src'))).toBeUndefined();
    const atRoot = tree({ 'repo/.git/': '', 'repo/gpu-audit.yaml': '', 'repo/src/': '' });
    expect(await discoverConfigFile(path.join(atRoot, 'repo/src'))).toBe(path.join(atRoot, 'repo/gpu-audit.yaml'));
  });

  it('ignores a directory named like a config', async () => {
    const root = tree({ 'gpu-audit.yaml/': '', '.git/': '' });
    expect(await discoverConfigFile(root)).toBeUndefined();
  });
});

describe('loadAuditConfig', () => {
  it('prefers --config, then the demo config, then discovery', async () => {
    const root = tree({ '.git/': '', 'gpu-audit.yaml': 'idleThresholdPct: 1\n', 'other.yaml': 'idleThresholdPct: 2\n', 'demo.yaml': 'idleThresholdPct: 3\n' });
    const explicitFile = path.join(root, 'other.yaml');
    const demoFile = path.join(root, 'demo.yaml');
    expect((await loadAuditConfig({ explicitFile, demoFile, cwd: root }))?.config.idleThresholdPct).toBe(2);
    expect((await loadAuditConfig({ demoFile, cwd: root }))?.config.idleThresholdPct).toBe(3);
    expect((await loadAuditConfig({ cwd: root }))?.config.idleThresholdPct).toBe(1);
    expect(await loadAuditConfig({ cwd: tree({ '.git/': '' }) })).toBeUndefined();
  });

  it('fails with the file named when --config names a missing file', async () => {
    const missing = path.join(tree({}), 'nope.yaml');
    await expect(loadAuditConfig({ explicitFile: missing, cwd: '.' })).rejects.toThrow(InputError);
    await expect(loadAuditConfig({ explicitFile: missing, cwd: '.' })).rejects.toMatchObject({ file: missing, message: 'cannot read the config: no such file' });
  });
});
