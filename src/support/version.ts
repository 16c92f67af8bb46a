import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from './package-root.js';

let tool: { name: string; version: string } | undefined;

/** gpu-audit's name and version, from its package.json (read on first use). */
export function toolInfo(): { name: string; version: string } {
  if (tool === undefined) {
    const packageJson = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { name: string; version: string };
    tool = { name: packageJson.name, version: packageJson.version };
  }
  return tool;
}
