/**
 * Profiles one audit of a large dcgm-exporter scrape: generates the fleet's single scrape with
 * the benchmark generator (once per size, into bench/.data/, shared with `npm run bench`), runs `gpu-audit audit --format
 * json` on it under `node --cpu-prof`, and prints wall time, peak RSS and where the CPU time
 * went (self time per function, then inclusive time of the project's own functions).
 *
 *   npx tsx bench/profile-audit.ts                 # 10,000 GPUs, sources run through tsx
 *   npx tsx bench/profile-audit.ts --gpus 1000     # a smaller fleet
 *   npx tsx bench/profile-audit.ts --dist          # the built CLI (npm run build first): exact line numbers
 *
 * The .cpuprofile is kept beside the input (open it in Chrome DevTools or speedscope).
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchInputs, ensureInput } from './generate/inputs.js';
import { measure } from './measure.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = path.join(root, 'bench', '.data');
const TOP_ROWS = 25;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values } = parseArgs({ options: { gpus: { type: 'string', default: '10000' }, dist: { type: 'boolean', default: false } } });
const gpuCount = Number(values.gpus);
if (!Number.isInteger(gpuCount) || gpuCount < 1) throw new Error(`--gpus must be a whole number >= 1, got ${values.gpus}`);

// The benchmark's own single-scrape input at the scale that gives this many GPUs (10,000 x scale),
// so a file `npm run bench` made is reused, and the other way round.
if (gpuCount < 8) throw new Error('--gpus must be at least 8 (one host)');
const benchInput = benchInputs(gpuCount / 10_000).find((candidate) => candidate.id === 'dcgm-scrape')!;
const generated = ensureInput(benchInput, dataDir);
const input = generated.file;
console.log(`${input}: ${(generated.marker.bytes / 1e6).toFixed(1)} MB${generated.reused ? ' (reused)' : ''}`);

const profileDir = path.join(dataDir, 'profiles', `${gpuCount}gpu-${new Date().toISOString().replaceAll(':', '-')}`);
mkdirSync(profileDir, { recursive: true });
const cli = values.dist ? [path.join(root, 'bin', 'gpu-audit.js')] : ['--import', 'tsx', path.join(root, 'src', 'cli', 'main.ts')];
const run = await measure({ argv: [process.execPath, '--cpu-prof', '--cpu-prof-dir', profileDir, ...cli, 'audit', input, '--format', 'json'] });
console.log(`wall ${run.wallSeconds.toFixed(2)} s, peak RSS ${(run.peakRssKiB / 1024).toFixed(0)} MiB`);

// The main thread's profile is the busiest one (tsx adds a loader thread, idle most of the time).
const profiles = readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile'))
  .map((name) => JSON.parse(readFileSync(path.join(profileDir, name), 'utf8')) as CpuProfile);
const main = profiles.sort((a, b) => busyMicros(b) - busyMicros(a))[0];
if (main === undefined) throw new Error(`no .cpuprofile written to ${profileDir}`);
summarize(main);
console.log(`profile: ${profileDir}`);

function busyMicros(profile: CpuProfile): number {
  const idle = new Set(profile.nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id));
  return profile.samples.reduce((sum, id, position) => sum + (idle.has(id) ? 0 : profile.timeDeltas[position] ?? 0), 0);
}

/** Self time per function, and inclusive time (each function counted once per stack) of src/ functions. */
function summarize(profile: CpuProfile): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const name = (node: ProfileNode): string => {
    const url = node.callFrame.url.startsWith('file://') ? path.relative(root, fileURLToPath(node.callFrame.url)) : node.callFrame.url;
    return `${node.callFrame.functionName || '(anonymous)'} ${url}${url === '' ? '' : `:${node.callFrame.lineNumber + 1}`}`;
  };
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  profile.samples.forEach((id, position) => {
    const micros = profile.timeDeltas[position] ?? 0;
    const leaf = byId.get(id)!;
    self.set(name(leaf), (self.get(name(leaf)) ?? 0) + micros);
    const counted = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parentOf.get(current)) {
      const frame = name(byId.get(current)!);
      if (counted.has(frame)) continue;
      counted.add(frame);
      inclusive.set(frame, (inclusive.get(frame) ?? 0) + micros);
    }
  });
  const print = (title: string, rows: Map<string, number>, keep: (frame: string) => boolean): void => {
    console.log(`\n${title}`);
    for (const [frame, micros] of [...rows].filter(([frame]) => keep(frame)).sort((a, b) => b[1] - a[1]).slice(0, TOP_ROWS)) {
      console.log(`${(micros / 1e6).toFixed(3).padStart(8)} s  ${frame}`);
    }
  };
  print('self time', self, () => true);
  print('inclusive time, src/', inclusive, (frame) => / src\//.test(frame) || / dist\//.test(frame));
}
