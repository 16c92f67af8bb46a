/**
 * `gpu-audit size`: pool sizing what-if from flags alone, for a consultant at a whiteboard.
 * replicas = ceil(peak / per-GPU throughput x (1 + headroom)); cost per 1,000 inferences =
 * hourly cost / (throughput per second x 3.6); warm pool from cold start and demand ramp.
 * The arithmetic lives in src/recommend (planSize); this file parses flags and prints.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { loadCatalog } from '../../catalog/index.js';
import type { PricingModel } from '../../model/index.js';
import { DEFAULT_POOL_HEADROOM, planSize } from '../../recommend/index.js';
import { SIZE_FORMATS, renderSize } from '../../render/index.js';
import type { CliIo } from '../io.js';
import { PRICING_MODELS, PROVIDERS, addOutputOptions } from '../options.js';
import { emitOutput } from '../output.js';


interface SizeOptions {
  peak: number;
  perGpu: number;
  headroom: number;
  gpu?: string;
  instanceType?: string;
  provider?: (typeof PROVIDERS)[number][];
  region?: string;
  pricing: PricingModel;
  coldStart?: number;
  ramp?: number;
  format: (typeof SIZE_FORMATS)[number];
  output?: string;
  bundled?: boolean;
}

export function positiveNumber(value: string): number {
  const parsed = Number(value.replace(/[_,]/g, ''));
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError('expected a number above 0');
  return parsed;
}

/** `0.2` or `20%`. */
export function headroomFraction(value: string): number {
  const percent = value.trim().endsWith('%');
  const parsed = Number(percent ? value.trim().slice(0, -1) : value);
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0) throw new InvalidArgumentError('expected a fraction such as 0.2, or a percentage such as 20%');
  const fraction = percent ? parsed / 100 : parsed;
  if (fraction > 10) throw new InvalidArgumentError('expected a fraction such as 0.2 (20%), not a percentage without %');
  return fraction;
}

const SECONDS_PER_UNIT: Readonly<Record<string, number>> = { s: 1, sec: 1, m: 60, min: 60, h: 3600 };

/** `90s`, `1.5m`, `2min`, `90` (seconds) -> seconds. */
export function durationSeconds(value: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h)?\s*$/i.exec(value);
  if (match === null) throw new InvalidArgumentError('expected a duration such as 90s, 2m or 1h');
  return Number(match[1]) * SECONDS_PER_UNIT[(match[2] ?? 's').toLowerCase()]!;
}

/** `200/min` (demand grows by 200 inferences/s each minute), `5/s` -> inferences/s per minute. */
export function rampPerMinute(value: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*(s|sec|m|min|h))?\s*$/i.exec(value);
  if (match === null) throw new InvalidArgumentError('expected a ramp such as 200/min or 5/s (inferences/s gained per minute or second)');
  const perUnit = Number(match[1]);
  return (perUnit * 60) / SECONDS_PER_UNIT[(match[2] ?? 'min').toLowerCase()]!;
}

export function sizeCommand(io: CliIo): Command {
  const command = new Command('size')
    .description('pool sizing what-if: replicas, instances, cost, cost per 1,000 inferences, warm pool')
    .addOption(new Option('--peak <per-second>', 'peak demand, inferences (or requests) per second').argParser(positiveNumber).makeOptionMandatory())
    .addOption(new Option('--per-gpu <per-second>', 'throughput one GPU sustains within its latency target, same unit').argParser(positiveNumber).makeOptionMandatory())
    .addOption(new Option('--headroom <fraction>', 'spare capacity above the peak: 0.2 or 20%').argParser(headroomFraction).default(DEFAULT_POOL_HEADROOM))
    .addOption(new Option('--gpu <model>', 'GPU model (h100, "A10G", l40s): the cheapest instance type that holds it').conflicts('instanceType'))
    .addOption(new Option('--instance-type <type>', 'instance type to size with, e.g. p5.48xlarge'))
    .addOption(new Option('--provider <cloud...>', 'clouds to choose from (default: all)').choices(PROVIDERS))
    .addOption(new Option('--region <region>', 'region of the prices'))
    .addOption(new Option('--pricing <model>', 'pricing model').choices(PRICING_MODELS).default('on-demand'))
    .addOption(new Option('--cold-start <duration>', 'time for a new replica to serve: 90s, 2m').argParser(durationSeconds))
    .addOption(new Option('--ramp <rate>', 'fastest demand growth: 200/min (inferences/s gained per minute), 5/s').argParser(rampPerMinute))
    .addOption(new Option('--bundled', 'price with the bundled snapshot, not the refreshed cache'));
  addOutputOptions(command, SIZE_FORMATS);
  command.addHelpText('after', `
Examples:
  $ gpu-audit size --peak 1000 --per-gpu 200 --headroom 0.2 --gpu h100
  $ gpu-audit size --peak 1000 --per-gpu 200 --instance-type p5.48xlarge --provider aws --pricing on-demand
  $ gpu-audit size --peak 450 --per-gpu 60 --gpu l4 --cold-start 90s --ramp 200/min --format json

replicas = ceil(peak / per-GPU x (1 + headroom)); cost per 1,000 inferences = hourly cost /
(throughput per second x 3.6); warm pool = ceil(ramp x cold start / per-GPU throughput).
Monthly = 730 hours.`);
  command.action(async (options: SizeOptions) => {
    const catalog = await loadCatalog({ preferCache: options.bundled !== true });
    const plan = planSize(catalog, {
      peakPerSecond: options.peak,
      perGpuPerSecond: options.perGpu,
      headroom: options.headroom,
      gpu: options.gpu,
      instanceType: options.instanceType,
      providers: options.provider,
      region: options.region,
      pricing: options.pricing,
      coldStartSeconds: options.coldStart,
      rampPerSecondPerMinute: options.ramp,
    });
    await emitOutput(io, renderSize(options.format, plan, catalog), options.output);
  });
  return command;
}
