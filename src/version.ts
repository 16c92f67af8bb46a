import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from './package-root.js';

const packageJson = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { name: string; version: string };

export const TOOL_NAME: string = packageJson.name;
export const TOOL_VERSION: string = packageJson.version;
