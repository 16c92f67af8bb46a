/**
 * What every figure in a report means, in words a reader can check against the numbers.
 * One table, read by the Markdown Methodology section (and by any later human-readable
 * format), so the definitions cannot drift between formats.
 */

export interface FigureDefinition {
  figure: string;
  unit: string;
  meaning: string;
}

export const FIGURE_DEFINITIONS: readonly FigureDefinition[] = [
  {
    figure: 'Observed time, GPU-hours',
    unit: 'hours',
    meaning:
      'Each sample covers the time until the next sample of the same series, but never more than twice that series\' median sampling interval; the last sample covers one median interval. Longer gaps count neither as use nor as idleness. A device\'s GPU-hours add up what its samples cover; fleet GPU-hours add up the physical GPUs (a MIG device counts through its parent). A lone snapshot covers no time: its values are point readings and every time-based figure is 0.',
  },
  {
    figure: 'Utilization (mean, p50, p95, max)',
    unit: 'percent',
    meaning:
      'nvidia-smi `utilization.gpu` or DCGM `DCGM_FI_DEV_GPU_UTIL`: the share of time in which at least one kernel was running. It does not say how many SMs were busy: one small kernel can show 100%. Mean and percentiles are weighted by the time each sample covers.',
  },
  {
    figure: 'SM active, tensor active, GR engine active',
    unit: 'percent',
    meaning:
      'DCGM profiling ratios (`PROF_SM_ACTIVE`, `PROF_PIPE_TENSOR_ACTIVE`, `PROF_GR_ENGINE_ACTIVE`) shown as percentages, present only where DCGM profiling metrics were collected. They measure how much of the chip did work, which utilization does not.',
  },
  {
    figure: 'Compute basis',
    unit: 'none',
    meaning:
      'The signal that compute figures and idleness were taken from, best first: SM and tensor activity, else GR engine activity, else utilization, else the presence of processes. Sizing on a weaker rung lowers a recommendation\'s confidence. A MIG device has no utilization of its own: its basis is GR engine activity where DCGM reports it, else its processes, else unknown.',
  },
  {
    figure: 'Idle (%), idle hours',
    unit: 'percent, hours',
    meaning:
      'Time in which the compute signal stayed below the idle threshold, as a share of the device\'s observed time and in hours. Readings without duration (a lone snapshot) give the share of readings that were idle, and 0 hours. A MIG device\'s idleness comes from DCGM where present, else from whether processes ran on it.',
  },
  {
    figure: 'Waste (%)',
    unit: 'percent',
    meaning: 'Fleet idle GPU-hours divided by fleet GPU-hours, times 100. Undefined (shown as -) when no time was observed.',
  },
  {
    figure: 'Mean utilization (fleet)',
    unit: 'percent',
    meaning:
      'Mean of the per-GPU utilization means, each weighted by the GPU\'s GPU-hours; when no time was observed (snapshots only), the plain mean of the point readings.',
  },
  {
    figure: 'VRAM total, peak used, headroom',
    unit: 'GiB in tables, MiB in JSON',
    meaning:
      'Total is the memory the driver reports for the device. Peak used is the largest memory-used reading. Headroom is total minus peak, also as a percentage of total. Servers that preallocate memory (vLLM, TGI, TensorRT-LLM, JAX) make the measured peak an upper bound of what they need, not the need itself.',
  },
  {
    figure: 'VRAM required (workloads)',
    unit: 'MiB',
    meaning: 'The larger of the measured peak and the declared or estimated need, plus a headroom (15% unless configured). Its basis says which of those it came from.',
  },
  {
    figure: 'Cost per hour',
    unit: 'USD per hour',
    meaning:
      'The instance\'s hourly price at the pricing model in force, divided by the GPUs the instance holds, from the catalog named above. A device\'s cost over the window is its GPU-hours times this price.',
  },
  {
    figure: 'Monthly cost, monthly waste',
    unit: 'USD per month',
    meaning: 'A month is 730 hours. Monthly cost scales the fleet\'s hourly cost to a month; monthly waste is the part of it that pays for idle GPU time.',
  },
  {
    figure: 'Monthly savings, potential savings',
    unit: 'USD per month',
    meaning:
      'What a recommendation would save per month if applied. Potential savings is the total the recommender reports for the fleet; where recommendations are alternatives for the same GPUs it can be less than their sum.',
  },
  {
    figure: 'Pool size, cost per 1,000 inferences',
    unit: 'GPUs, USD',
    meaning:
      'A pool is sized to peak demand divided by one GPU\'s throughput, plus a headroom (20% unless configured), rounded up. Cost per 1,000 inferences is the hourly cost divided by (throughput per second x 3.6).',
  },
  {
    figure: 'Reserved count, break-even discount',
    unit: 'GPUs, percent',
    meaning:
      'With hourly demand d and on-demand price O against an effective reserved price R, the largest number k of GPUs is reserved for which demand reaches k in at least R/O of the hours; the rest stays on demand. Where R is unknown the report gives, for each k, the discount at which reserving breaks even instead of assuming one. Spot estimates add the work lost at each interruption (half a checkpoint interval plus the restore time).',
  },
  {
    figure: 'Confidence',
    unit: 'high, medium, low',
    meaning:
      'How far to trust a recommendation, with the reasons: length of the window, compute basis, whether the instance type was inferred, whether VRAM need was measured or estimated. Where the data is too thin the report says "not enough data" rather than guessing.',
  },
];
