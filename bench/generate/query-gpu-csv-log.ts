/**
 * (c) A `nvidia-smi --query-gpu=... --format=csv -l 1` log of an 8x H100 node: the header
 * once with units (`utilization.gpu [%]`), then one row per GPU per second, values with
 * their units as nvidia-smi prints them without `nounits` (`97 %`, `72003 MiB`, `612.34 W`),
 * local timestamps with milliseconds (`2026/11/02 00:00:01.027`) that drift by the time
 * each query takes, as `-l` sleeps after the query. Six GPUs train from 06:00 to 22:00,
 * one serves bursty inference, one idles: the mix the demo fleet's README describes.
 */
import { SeededRandom } from './random.js';
import type { ChunkWriter } from './writer.js';

export const QUERY_GPU_COLUMNS = [
  'timestamp', 'name', 'pci.bus_id', 'uuid', 'index', 'driver_version', 'pstate', 'temperature.gpu',
  'utilization.gpu [%]', 'utilization.memory [%]', 'memory.total [MiB]', 'memory.used [MiB]', 'memory.free [MiB]',
  'power.draw [W]', 'clocks.sm [MHz]', 'clocks.mem [MHz]',
] as const;

const MODEL = 'NVIDIA H100 80GB HBM3';
const DRIVER_VERSION = '550.127.05';
const FB_TOTAL_MIB = 81559;
const FB_RESERVED_MIB = 479;
const BUS_IDS = ['18', '2A', '3A', '5D', '9A', 'AB', 'BA', 'DB'].map((bus) => `00000000:${bus}:00.0`);
/** Monday 2026-11-02 00:00:00 wall clock (the CSV has no zone). */
const START_WALL_CLOCK_MS = Date.UTC(2026, 10, 2);
const LOOP_MS = 1000;
const DAY_MS = 86_400_000;

type Role = 'training' | 'serving' | 'idle';
const ROLES: readonly Role[] = ['training', 'training', 'training', 'training', 'training', 'training', 'serving', 'idle'];

function wallClock(ms: number): string {
  const date = new Date(ms);
  const two = (value: number): string => String(value).padStart(2, '0');
  return `${date.getUTCFullYear()}/${two(date.getUTCMonth() + 1)}/${two(date.getUTCDate())} `
    + `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}.${String(date.getUTCMilliseconds()).padStart(3, '0')}`;
}

interface Activity {
  utilizationPct: number;
  memoryUsedMiB: number;
}

function activity(role: Role, hourOfDay: number, steadyMiB: number, random: SeededRandom): Activity {
  if (role === 'training' && hourOfDay >= 6 && hourOfDay < 22) {
    return { utilizationPct: random.int(88, 100), memoryUsedMiB: steadyMiB + random.int(-64, 64) };
  }
  if (role === 'serving') {
    const busy = hourOfDay >= 9 && hourOfDay < 18 && random.next() < 0.35;
    return { utilizationPct: busy ? random.int(35, 100) : random.int(0, 3), memoryUsedMiB: steadyMiB };
  }
  return { utilizationPct: 0, memoryUsedMiB: 1 };
}

/** Writes loops of 8 rows until at least `targetBytes` are written. */
export function writeQueryGpuCsvLog(out: ChunkWriter, targetBytes: number): void {
  const random = new SeededRandom('query-gpu-log/h100x8');
  const uuids = BUS_IDS.map(() => random.uuid());
  const steadyMiB = ROLES.map((role) => (role === 'serving' ? 71_240 : 71_680 + random.int(0, 220)));
  out.write(`${QUERY_GPU_COLUMNS.join(', ')}\n`);
  let wallClockMs = START_WALL_CLOCK_MS;
  while (out.bytes < targetBytes) {
    const stamp = wallClock(wallClockMs);
    const hourOfDay = Math.floor((wallClockMs % DAY_MS) / 3_600_000);
    const rows: string[] = [];
    ROLES.forEach((role, index) => {
      const { utilizationPct, memoryUsedMiB } = activity(role, hourOfDay, steadyMiB[index]!, random);
      const busy = utilizationPct > 0;
      const powerW = 69 + 600 * (utilizationPct / 100) * random.float(0.86, 0.99);
      rows.push([
        stamp, MODEL, BUS_IDS[index], uuids[index], index, DRIVER_VERSION, 'P0',
        Math.round(30 + powerW * 0.055),
        `${utilizationPct} %`, `${Math.round(utilizationPct * 0.42)} %`,
        `${FB_TOTAL_MIB} MiB`, `${memoryUsedMiB} MiB`, `${FB_TOTAL_MIB - FB_RESERVED_MIB - memoryUsedMiB} MiB`,
        `${powerW.toFixed(2)} W`, `${busy ? 1980 : 345} MHz`, '2619 MHz',
      ].join(', '));
    });
    out.write(`${rows.join('\n')}\n`);
    // `-l 1` sleeps a second after a query that itself takes 20-40 ms on an 8-GPU node.
    wallClockMs += LOOP_MS + random.int(20, 40);
  }
}
