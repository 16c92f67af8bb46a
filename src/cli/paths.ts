import { fileURLToPath } from 'node:url';

/** The installed package's root: this file is at src/cli/ (tests) or dist/cli/ (built). */
export const packageRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The bundled demo fleet (fixtures/demo), shipped in the package. */
export const demoFleetDir = fileURLToPath(new URL('../../fixtures/demo/', import.meta.url));
