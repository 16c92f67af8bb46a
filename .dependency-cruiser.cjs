/**
 * The house's arrows (docs/architecture.md), checked by `npm run lint`:
 *   sources -> observations -> analysis -> plan (recommend) -> report -> render
 * Each room under src/ may import the rooms listed for it here, and through their index.ts
 * only (a lazy `await import()` of a module that loads a heavy dependency is the exception).
 * No cycle, type-only imports included.
 */
/** Room -> the rooms it may import (model/ and support/ are shared by all). */
const LAYERS = {
  support: [],
  model: ['support'],
  catalog: [],
  config: ['catalog'],
  sources: ['catalog'],
  collect: ['sources'],
  analysis: ['catalog', 'config'],
  recommend: ['analysis', 'catalog', 'config'],
  check: ['catalog'],
  render: ['catalog'],
  engine: ['sources', 'analysis', 'recommend', 'check', 'catalog', 'config'],
  cli: ['engine', 'sources', 'analysis', 'recommend', 'check', 'render', 'catalog', 'config', 'collect'],
};
const SHARED = ['model', 'support'];

const layerRules = Object.entries(LAYERS).map(([room, allowed]) => {
  const may = [...new Set([room, ...allowed, ...SHARED])];
  return {
    name: `layer-${room}`,
    comment: `src/${room}/ may import only ${may.filter((r) => r !== room).join(', ')} (docs/architecture.md)`,
    severity: 'error',
    from: { path: `^src/${room}/` },
    to: { path: '^src/[^/]+/', pathNot: may.map((r) => `^src/${r}/`) },
  };
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle, type-only or not, makes the rooms one room.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'through-the-index',
      comment: 'Another room is imported through its index.ts, its public face, or a sub-room\'s (a part loaded on demand); a lazy import() may name the module it loads.',
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: {
        path: '^src/[^/]+/.+',
        pathNot: ['^src/$1/', '^src/[^/]+/index\\.ts$', '^src/[^/]+/[^/]+/index\\.ts$'],
        dependencyTypesNot: ['dynamic-import'],
      },
    },
    {
      name: 'library-face',
      comment: 'src/index.ts is the library: it exposes the engine and the contracts, nothing else.',
      severity: 'error',
      from: { path: '^src/index\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/(engine|model)/index\\.ts$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
