/**
 * Where `catalog refresh` keeps its cache: GPU_AUDIT_CACHE_DIR, else $XDG_CACHE_HOME/gpu-audit,
 * else ~/.cache/gpu-audit. Apart from cache.ts so that finding it loads no validator.
 */
import { homedir } from 'node:os';
import path from 'node:path';

export interface CacheLocationOptions {
  /** The cache directory itself; wins over the environment. */
  dir?: string;
  env?: NodeJS.ProcessEnv;
}

export function cacheDirectory(options: CacheLocationOptions = {}): string {
  const env = options.env ?? process.env;
  if (options.dir !== undefined) return path.resolve(options.dir);
  const override = env.GPU_AUDIT_CACHE_DIR;
  if (override !== undefined && override !== '') return path.resolve(override);
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(homedir(), '.cache');
  return path.join(base, 'gpu-audit');
}

