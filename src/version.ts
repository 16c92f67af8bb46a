import { readFileSync } from 'node:fs';

/** package.json sits one level above both src/ and dist/, so one relative path serves both. */
const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string };

export const TOOL_NAME: string = packageJson.name;
export const TOOL_VERSION: string = packageJson.version;
