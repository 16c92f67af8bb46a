/**
 * The AWS and Azure SDKs are optional dependencies: only `catalog refresh` and
 * `--prometheus-sigv4` use them, and an install with `--omit=optional` leaves them out (they
 * are most of an install's size). Without them those end in one line saying what to install
 * (exit 2), not a module-resolution trace.
 */
import { InputError } from './errors.js';

const NOT_FOUND_CODES = new Set(['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND']);

/**
 * Runs `load` (an `import()` of the SDK packages, written out so that the bundler sees them)
 * and turns a missing package into an InputError naming `packages` and the flag that needs them.
 */
export async function loadOptionalModules<T>(load: () => Promise<T>, packages: readonly string[], flag: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!NOT_FOUND_CODES.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
    throw new InputError(
      `${flag} needs ${packages.join(', ')}, optional dependencies of gpu-audit that are not installed (an install with --omit=optional): install them with npm install ${packages.join(' ')}, or reinstall gpu-audit with them`,
    );
  }
}
