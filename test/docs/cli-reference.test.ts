/**
 * docs/cli.md is every command's --help, generated from the commands' definitions: it must be
 * what `npm run docs` writes today, so help and reference never disagree.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_REFERENCE_FILE, cliReference } from '../../scripts/cli-reference.js';
import { repoRoot } from '../helpers/corpus.js';

describe('docs/cli.md', () => {
  it('is what `npm run docs` generates from the commands (run it after changing an option)', async () => {
    expect(readFileSync(path.join(repoRoot, CLI_REFERENCE_FILE), 'utf8')).toBe(await cliReference());
  });

  it('has every command, each with its examples', async () => {
    const text = await cliReference();
    for (const name of ['audit', 'check', 'report', 'catalog list', 'catalog show', 'catalog refresh', 'size', 'collect', 'init']) {
      const section = text.split(`## gpu-audit ${name}\n`)[1]!.split('\n## ')[0]!;
      expect(section, name).toContain('Examples:');
    }
  });
});
