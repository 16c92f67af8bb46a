/**
 * The layer rules of .dependency-cruiser.cjs (run by `npm run lint`) fail on an import against
 * the flow, on a cycle and on an import of another room's internals, and pass a tree that keeps
 * to them. Each case is a small tree under src/ in a temporary directory, cruised with the
 * project's own configuration.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/corpus.js';

let directory: string | undefined;
afterEach(() => {
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

/** Cruises a tree of `files` (path under src/ -> text) and returns depcruise's exit code and report. */
function cruise(files: Record<string, string>): { status: number; output: string } {
  directory = mkdtempSync(path.join(tmpdir(), 'gpu-audit-layers-'));
  copyFileSync(path.join(repoRoot, '.dependency-cruiser.cjs'), path.join(directory, '.dependency-cruiser.cjs'));
  writeFileSync(path.join(directory, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(directory, 'src', file)), { recursive: true });
    writeFileSync(path.join(directory, 'src', file), text);
  }
  const result = spawnSync(process.execPath, [path.join(repoRoot, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'), 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], {
    cwd: directory,
    encoding: 'utf8',
  });
  return { status: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
}

const FACES = {
  'model/index.ts': "export interface Report { gpus: string[] }\n",
  'model/report.ts': "export const SCHEMA_VERSION = 2;\n",
  'sources/index.ts': "export { parse } from './parse.js';\n",
  'sources/parse.ts': "export function parse(text: string): string[] { return text.split('\\n'); }\n",
};

describe('npm run lint: the layers', () => {
  it('passes a tree whose rooms import only the rooms to their left, through their faces', () => {
    const result = cruise({ ...FACES, 'render/index.ts': "import type { Report } from '../model/index.js';\nexport const render = (report: Report): string => report.gpus.join(',');\n" });
    expect(result.output).toContain('no dependency violations found');
    expect(result.status).toBe(0);
  });

  it('fails on an import against the flow: a renderer reading a source', () => {
    const result = cruise({ ...FACES, 'render/index.ts': "import { parse } from '../sources/index.js';\nexport const render = (text: string): string => parse(text).join(',');\n" });
    expect(result.status).not.toBe(0);
    expect(result.output).toMatch(/layer-render: src\/render\/index\.ts → src\/sources\/index\.ts/u);
  });

  it('fails on an import of another room\'s internals instead of its index.ts', () => {
    const result = cruise({ ...FACES, 'render/index.ts': "import { SCHEMA_VERSION } from '../model/report.js';\nexport const version = SCHEMA_VERSION;\n" });
    expect(result.status).not.toBe(0);
    expect(result.output).toMatch(/through-the-index: src\/render\/index\.ts → src\/model\/report\.ts/u);
  });

  it('fails on a cycle, even of types only', () => {
    const result = cruise({
      ...FACES,
      'analysis/index.ts': "export type { A } from './a.js';\n",
      'analysis/a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
      'analysis/b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
    });
    expect(result.status).not.toBe(0);
    expect(result.output).toMatch(/no-circular/u);
  });
});
