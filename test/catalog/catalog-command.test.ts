/**
 * `gpu-audit catalog list|show` run in-process through the command function, against the
 * bundled snapshot (a refreshed cache on this machine must not change the answers).
 */
import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { Command, CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { bundledCatalog } from '../../src/catalog/index.js';
import type { CliIo } from '../../src/cli/io.js';
import { catalogCommand } from '../../src/cli/commands/catalog.js';
import type { InstanceCatalog, InstanceType } from '../../src/model/catalog.js';
import { InputError } from '../../src/support/errors.js';

interface Run {
  stdout: string;
  stderr: string;
}

async function run(args: string[], env: NodeJS.ProcessEnv = {}, catalog: InstanceCatalog = bundledCatalog()): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    stdoutIsTty: false,
    stderrIsTty: false,
    env,
    stdin: new PassThrough(),
  };
  const command = catalogCommand(io, { loadCatalog: async () => catalog }).exitOverride();
  await command.parseAsync(args, { from: 'user' });
  return { stdout: out.join(''), stderr: err.join('') };
}

/** RFC 4180 reader for the test: quoted cells, doubled quotes, CRLF rows. */
function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i += 1;
    } else cell += ch;
  }
  const [header, ...data] = rows;
  return data.map((cells) => Object.fromEntries(header!.map((name, c) => [name, cells[c] ?? ''])));
}

describe('catalog list (acceptance)', () => {
  it('--provider aws --gpu H100 --format json lists p5.48xlarge with 8 GPUs of 80 GB and its on-demand price', async () => {
    const { stdout } = await run(['list', '--provider', 'aws', '--gpu', 'H100', '--format', 'json']);
    const body = JSON.parse(stdout) as {
      catalog: { name: string; asOf: string; origin: string };
      count: number;
      instances: { name: string; gpuCount: number; vramPerGpuMiB: number; gpuModelKey: string; prices: { onDemand: number }; pricePerGpuHour: { usdPerGpuHour: number; basis: string } }[];
    };
    expect(body.catalog).toEqual({ name: 'bundled-2026-11-29', asOf: '2026-11-29', origin: 'bundled', ageDays: null });
    const p5 = body.instances.find((i) => i.name === 'p5.48xlarge')!;
    // 81559 MiB per GPU (the GPU table's; AWS lists 81920), marketed 80 GB; $55.04/h / 8 GPUs = $6.88 per GPU-hour.
    expect(p5).toMatchObject({ gpuCount: 8, vramPerGpuMiB: 81559, vramPerGpuNominalGB: 80, gpuModelKey: 'h100-sxm-80gb', prices: { onDemand: 55.04 } });
    expect(p5.pricePerGpuHour).toEqual({ usdPerGpuHour: 6.88, basis: 'per-gpu', pricing: 'on-demand' });
    expect(body.instances.map((i) => i.name)).toEqual(['p5.4xlarge', 'p5.48xlarge']);
    expect(body.count).toBe(2);
  });

  it('prints a table with units in the headers, within 100 columns, naming the catalog and its date', async () => {
    const { stdout } = await run(['list']);
    const lines = stdout.split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(100);
    expect(stdout).toMatch(/VRAM\/GPU/);
    expect(stdout).toMatch(/\$\/h/);
    // 114 in the snapshot, less the 3 retired Azure NCv3 sizes.
    expect(stdout).toContain('111 instance types.');
    expect(stdout).toContain('Catalog bundled-2026-11-29 (bundled snapshot, as of 2026-11-29)');
    // Full type names, never cut: the longest is Standard_ND96isr_MI300X_v5.
    expect(stdout).toContain('Standard_ND96isr_MI300X_v5');
    expect(stdout).not.toContain('…');
  });

  it('marks fractional types and prices them per whole-GPU-equivalent', async () => {
    const { stdout } = await run(['list', '--gpu', 'L4', '--max-price', '0.5']);
    // g6f.2xlarge: $0.475/h for 1/4 of an L4 -> 0.475 / 0.25 = 1.900 per whole L4.
    expect(stdout).toMatch(/g6f\.2xlarge\s+us-east-1\s+1\/4 l4\s+5\.6\s+8\s+0\.475\s+-\s+1\.900\*/);
    expect(stdout).toContain('* fractional GPU: $/GPU-h is per whole-GPU-equivalent');
  });

  it('says so when nothing matches', async () => {
    const { stdout } = await run(['list', '--gpu', 'H100', '--max-price', '1']);
    expect(stdout).toContain('No instance types match.');
    expect(stdout).toContain('Catalog bundled-2026-11-29');
  });

  it('writes no colour codes unless colours are on, and the same text when they are', async () => {
    const plain = await run(['list', '--provider', 'gcp']);
    expect(plain.stdout).toBe(stripVTControlCharacters(plain.stdout));
    const coloured = await run(['list', '--provider', 'gcp'], { FORCE_COLOR: '1' });
    expect(coloured.stdout).not.toBe(plain.stdout);
    expect(stripVTControlCharacters(coloured.stdout)).toBe(plain.stdout);
    expect((await run(['list', '--provider', 'gcp', '--no-color'], { FORCE_COLOR: '1' })).stdout).toBe(plain.stdout);
  });

  it('csv parses back to the same figures, with the catalog on every row', async () => {
    const { stdout } = await run(['list', '--provider', 'azure', '--gpu', 'A10', '--format', 'csv']);
    const rows = parseCsv(stdout);
    expect(rows.map((r) => r.name)).toEqual([
      'Standard_NV6ads_A10_v5',
      'Standard_NV12ads_A10_v5',
      'Standard_NV18ads_A10_v5',
      'Standard_NV36ads_A10_v5',
      'Standard_NV36adms_A10_v5',
      'Standard_NV72ads_A10_v5',
    ]);
    const nv6 = rows[0]!;
    // 1/6 of an A10 at $0.454/h -> 0.454 x 6 = 2.724 per whole A10.
    expect(nv6).toMatchObject({ gpuCount: '0', gpuModelKey: 'a10', onDemandUsdPerHour: '0.454', spotUsdPerHour: '', perGpuBasis: 'per-whole-gpu-equivalent', catalog: 'bundled-2026-11-29', catalogAsOf: '2026-11-29' });
    expect(Number(nv6.usdPerGpuHour)).toBeCloseTo(2.724, 10);
    expect(Number(nv6.gpuPartitionSize)).toBeCloseTo(1 / 6, 12);
  });

  it('csv quotes cells holding commas or quotes', async () => {
    const { stdout } = await run(['list', '--gpu', 'V100-16GB', '--provider', 'azure', '--format', 'csv']);
    expect(stdout).toContain('"NVIDIA Tesla V100 16GB (PCIe/SXM2 per Azure docs, not verified)"');
    expect(parseCsv(stdout)[0]!.gpuModelName).toBe('NVIDIA Tesla V100 16GB (PCIe/SXM2 per Azure docs, not verified)');
  });

  it('sorts by the key asked for, descending with --desc', async () => {
    const { stdout } = await run(['list', '--provider', 'aws', '--gpu', 'L40S', '--sort', 'gpus', '--desc', '--format', 'json']);
    const counts = (JSON.parse(stdout) as { instances: { gpuCount: number }[] }).instances.map((i) => i.gpuCount);
    expect(counts).toEqual([8, 4, 4, 1, 1, 1, 1, 1]);
  });

  it('rejects bad values as usage errors', async () => {
    await expect(run(['list', '--provider', 'oracle'])).rejects.toBeInstanceOf(CommanderError);
    await expect(run(['list', '--format', 'xml'])).rejects.toBeInstanceOf(CommanderError);
    await expect(run(['list', '--min-vram', '-3'])).rejects.toBeInstanceOf(CommanderError);
    await expect(run(['list', '--sort', 'colour'])).rejects.toBeInstanceOf(CommanderError);
  });
});

describe('catalog list over a refreshed cache', () => {
  // Cache entries are plain InstanceType objects: none of the bundled records' extra fields.
  const entry: InstanceType = {
    provider: 'aws',
    name: 'p5.48xlarge',
    region: 'ap-southeast-2',
    gpuModelKey: 'h100-sxm-80gb',
    gpuModelName: 'NVIDIA H100 80GB HBM3',
    gpuCount: 8,
    gpuPartitionSize: 1,
    vramPerGpuMiB: 81920,
    vcpus: 192,
    memoryGiB: 2048,
    networkGbps: 3200,
    prices: { onDemand: 70.5, spot: null, reserved1y: 45, reserved3y: null, savingsPlan1y: null, savingsPlan3y: null, sources: ['on-demand: AWS Price List', 'reserved-1y: AWS Price List'] },
    sources: ['specs: EC2 DescribeInstanceTypes'],
  };
  const cache: InstanceCatalog = { name: 'refreshed cache (aws 2026-12-01, azure 2026-12-01)', asOf: '2026-12-01', origin: 'cache', ageDays: 3, instances: [entry] };

  it('names the cache, its date and its age, within 100 columns', async () => {
    const { stdout } = await run(['list', '--pricing', 'reserved-1y'], {}, cache);
    // reserved 1y: $45/h / 8 GPUs = 5.625 per GPU-hour.
    expect(stdout).toMatch(/p5\.48xlarge\s+ap-southeast-2\s+8x h100-sxm-80gb\s+80\.0\s+192\s+70\.50\s+-\s+5\.625/);
    expect(stdout.replace(/\n/g, ' ')).toContain('Catalog refreshed cache (aws 2026-12-01, azure 2026-12-01) (refreshed cache, 3 days old, as of 2026-12-01); USD per instance-hour, Linux.');
    expect(Math.max(...stdout.split('\n').map((l) => l.length))).toBeLessThanOrEqual(100);
  });

  it('shows an entry without bundled-only fields', async () => {
    const { stdout } = await run(['show', 'p5.48xlarge', '--pricing', 'reserved-1y'], {}, cache);
    expect(stdout).toMatch(/Reserved 1y\s+\$45\.00\/h\n/);
    expect(stdout).toMatch(/Per GPU-hour\s+\$5\.625 at reserved-1y \(per-gpu\)/);
    expect(stdout).toMatch(/Network\s+3,200 Gbps/);
  });
});

describe('catalog show (acceptance)', () => {
  it('Standard_ND96isr_H200_v5 shows 8x H200 141 GB', async () => {
    const { stdout } = await run(['show', 'Standard_ND96isr_H200_v5']);
    expect(stdout).toMatch(/GPUs\s+8x NVIDIA H200 \(141GB HBM3e\) \(model key h200-sxm-141gb\)/);
    // 143771 MiB (nvidia-smi, GPU table) / 1024 = 140.4 GiB; 141 GB as Azure and NVIDIA market it.
    expect(stdout).toMatch(/VRAM per GPU\s+140\.4 GiB \(143,771 MiB; marketed 141 GB\)/);
    expect(stdout).toMatch(/On-demand\s+\$84\.80\/h, \$10\.60 per GPU-hour/);
    expect(stdout).toMatch(/Provider\s+azure, eastus2/);
    expect(stdout).toContain('Catalog bundled-2026-11-29 (bundled snapshot, as of 2026-11-29)');
    expect(Math.max(...stdout.split('\n').map((l) => l.length))).toBeLessThanOrEqual(100);
  });

  it('shows the GPU model behind the type with the confidence of each figure', async () => {
    const { stdout } = await run(['show', 'p5.48xlarge']);
    expect(stdout).toMatch(/BF16 dense\s+989\.4 TFLOPS\n/);
    // H100 SXM FP32 66.9 is seen (NV_DS_H100); the T4's 8.1 is recalled and must say so.
    expect((await run(['show', 'g4dn.xlarge'])).stdout).toMatch(/FP32\s+8\.1 TFLOPS \(recalled\)/);
    expect(stdout).toMatch(/MIG\s+yes: 1g\.10gb, 1g\.10gb\+me, 1g\.20gb, 2g\.20gb, 3g\.40gb, 4g\.40gb, 7g\.80gb/);
  });

  it('json carries the instance, its per-GPU price and the GPU spec', async () => {
    const { stdout } = await run(['show', 'standard_nd96isr_h200_v5', '--format', 'json']);
    const body = JSON.parse(stdout) as { catalog: { name: string }; instances: { name: string; gpuCount: number; vramPerGpuNominalGB: number; gpuSpec: { key: string; vramMiB: { value: number } } }[] };
    expect(body.catalog.name).toBe('bundled-2026-11-29');
    expect(body.instances).toHaveLength(1);
    expect(body.instances[0]).toMatchObject({ name: 'Standard_ND96isr_H200_v5', gpuCount: 8, vramPerGpuNominalGB: 141, gpuSpec: { key: 'h200-sxm-141gb', vramMiB: { value: 143771 } } });
  });

  it('csv is one row in the list format', async () => {
    const rows = parseCsv((await run(['show', 'p5.48xlarge', '--format', 'csv'])).stdout);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ name: 'p5.48xlarge', gpuCount: '8', vramPerGpuMiB: '81559', onDemandUsdPerHour: '55.04', usdPerGpuHour: '6.88' });
  });

  it('an unknown type is an input error listing close matches', async () => {
    const failure = run(['show', 'Standard_ND96isr_H200']);
    await expect(failure).rejects.toBeInstanceOf(InputError);
    await expect(failure).rejects.toThrow(/instance type Standard_ND96isr_H200 is not in catalog bundled-2026-11-29; close matches: Standard_ND96isr_H200_v5/);
  });

  it('a known type outside the filters says which filter excluded it', async () => {
    await expect(run(['show', 'p5.48xlarge', '--provider', 'azure'])).rejects.toThrow(/p5\.48xlarge with azure is not in catalog/);
  });
});

describe('catalog --help', () => {
  it('gives examples for the group and for each subcommand', async () => {
    const help = (args: string[]): string => {
      const out: string[] = [];
      const io: CliIo = { stdout: (t) => out.push(t), stderr: () => undefined, stdoutIsTty: false, stderrIsTty: false, env: {}, stdin: new PassThrough() };
      const command = catalogCommand(io).exitOverride().configureOutput({ writeOut: (t) => out.push(t) });
      try {
        command.parse(args, { from: 'user' });
      } catch (error) {
        if (!(error instanceof CommanderError) || error.exitCode !== 0) throw error;
      }
      return out.join('');
    };
    expect(help(['--help'])).toContain('$ gpu-audit catalog show Standard_ND96isr_H200_v5');
    expect(help(['list', '--help'])).toContain('$ gpu-audit catalog list --provider aws --gpu H100 --format json');
    expect(help(['list', '--help'])).toMatch(/--min-vram <GB>/);
    expect(help(['show', '--help'])).toContain('$ gpu-audit catalog show p5.48xlarge');
  });

  it('attaches `catalog refresh` through the hook', () => {
    const io: CliIo = { stdout: () => undefined, stderr: () => undefined, stdoutIsTty: false, stderrIsTty: false, env: {}, stdin: new PassThrough() };
    const command = catalogCommand(io, { refreshCommand: () => new Command('refresh') });
    expect(command.commands.map((c) => c.name())).toEqual(['list', 'show', 'refresh']);
  });
});
