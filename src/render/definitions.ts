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
    figure: 'Time-series hygiene',
    unit: 'samples',
    meaning:
      'A sample stamped earlier than the one before it in its series (a clock that went backwards) is skipped; a second reading of a field at the same timestamp is skipped, while a reading that only adds fields is merged. A sample stamped more than 1 hour after the audit time (a clock set ahead) is skipped. A device that stops reporting for hours or days and comes back stays one GPU, and the gap counts only as the cap above: neither as use nor as idleness. The same UUID on two hosts is two GPUs, their ids told apart with @host (a masked all-zero UUID says nothing and is not reported). Each of these adds a warning to the report naming the GPU, the input and the count; no sample or hour is counted twice.',
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
    figure: 'PCIe receive, transmit (mean, p95, max)',
    unit: 'MiB/s',
    meaning:
      'Host-to-device (receive) and device-to-host (transmit) traffic on the GPU\'s PCIe link: nvidia-smi `rx_util`/`tx_util` (NVML\'s throughput counter in KB/s, read as KiB/s) or `dmon` `rxpci`/`txpci`, DCGM `PROF_PCIE_RX_BYTES`/`TX_BYTES` (bytes per second) or the older `DEV_PCIE_RX_THROUGHPUT`/`TX_THROUGHPUT` (KB/s); from `--prometheus`, each GPU and direction is read from the profiling counter where it has one, else from the older field. Mean and percentiles are weighted by the time each sample covers; 1 MiB = 1,048,576 bytes. A MIG device shares its board\'s link and has no figures of its own.',
  },
  {
    figure: 'PCIe link, link bandwidth',
    unit: 'generation and lanes, MiB/s',
    meaning:
      'The fastest link the GPU and its slot support (`max_link_gen`, `max_link_width` of the nvidia-smi XML, or `pcie.link.gen.max`/`pcie.link.width.max` of its CSV query), shown as `Gen4 x16`. Bandwidth is one direction\'s ceiling after line encoding: transfers per second per lane x lanes x payload share (8b/10b for Gen1-2, 128b/130b for Gen3-5, 242/256 for Gen6) / 8 bytes; Gen4 x16 = 16e9 x 16 x 128/130 / 8 bytes/s = 30,048.1 MiB/s. Packet headers take a few percent more, so traffic near 80% of it already saturates the link.',
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
      'Time in which the compute signal stayed below the idle threshold, as a share of the device\'s observed time and in hours. Readings without duration (a lone snapshot) give the share of readings that were idle, and 0 hours. A MIG device\'s idleness comes from DCGM where present, else from whether processes ran on it. A GPU in MIG mode is idle by its instances, weighted by compute slices, with the slices no instance holds idle all along: (sum of instance idle share x its slices + unpartitioned slices) / the GPU\'s slices (7 on A100 and H100), so an instance that never runs is waste in the fleet figures.',
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
    figure: 'Mean compute (fleet), compute basis',
    unit: 'percent',
    meaning:
      'Each physical GPU\'s mean on its own compute basis - SM active, else GR engine active, else utilization, else the share of time a compute process ran ((1 - idle fraction) x 100) - weighted by its GPU-hours (a plain mean when no time was observed). GPUs with no compute signal are left out. The basis is the one all counted GPUs share, or `mixed` when they differ: a mixed mean adds signals that read differently (SM active is usually far below utilization), so compare it across audits of the same fleet only. `check --min-utilization` gates on this figure.',
  },
  {
    figure: 'VRAM total, peak used, headroom',
    unit: 'GiB in tables, MiB in JSON',
    meaning:
      'Total is the memory the driver reports for the device. Peak used is the largest memory-used reading. Headroom is total minus peak, also as a percentage of total. Servers that preallocate memory (vLLM, TGI, TensorRT-LLM, JAX) make the measured peak an upper bound of what they need, not the need itself.',
  },
  {
    figure: 'Workloads, shared GPUs, unassigned',
    unit: 'none',
    meaning:
      'Workloads come from gpu-audit.yaml. A workload holds a device (a GPU, or a MIG instance) when a process there matches its `process` regular expression, or the device\'s UUID or id is in its `gpus`, or its host matches one of its `hosts` globs, or a container seen on it matches its pod selector. A process belongs to the first workload whose regular expression finds it; the other processes of a device go to the first workload that holds the device by id, host or pod. Processes and devices no workload takes form the workload `unassigned` (kind `unknown`): nothing is dropped. A device held by several workloads is shared: each gets a share of its hours and cost in proportion to the largest memory its processes held there, or equal shares where some holder has no process with a known memory.',
  },
  {
    figure: 'VRAM peak, p95 and need (workloads)',
    unit: 'MiB per GPU',
    meaning:
      'Peak and p95 are the largest over the workload\'s devices of the memory it used there: the device\'s memory used where the workload holds it alone or every process on it is the workload\'s, else the sum of its processes\' largest memory capped by the device\'s own peak (no p95; a sum of two or more processes\' maxima is an upper bound, and a need resting on it has basis `upper-bound`). The need (VRAM required) is max(measured peak, declared or estimated need) x (1 + headroom, 15% unless configured); the declared need (`vramMiB`) wins over the model estimate. Servers that preallocate memory (vLLM, TGI, TensorRT-LLM/Triton, SGLang, JAX; detected by process name, or `preallocates:` in the config) hold what they reserved, not what they need: for them the need is the declared or estimated one, and only without either the measured peak, with basis `upper-bound`.',
  },
  {
    figure: 'VRAM estimate (LLM)',
    unit: 'MiB per GPU',
    meaning:
      'weights = parameters x bytes per parameter (fp32 4, bf16/fp16 2, fp8/int8 1, int4/fp4 0.5); KV cache = 2 x layers x KV heads x head dim x bytes per value x tokens in flight (context length x concurrency), in the weights\' type unless `kvCacheDtype` is set (16-bit for 4-bit weights); runtime overhead = declared `overheadMiB`, else 1024 MiB + 10% of the weights. Weights and KV cache are divided by `gpusPerReplica` (tensor parallel). Without the attention shape, context and concurrency the KV term is left out and the estimate is a lower bound. 1 MiB = 1,048,576 bytes.',
  },
  {
    figure: 'Compute (workloads)',
    unit: 'percent, fraction',
    meaning:
      'Each device weighs by the GPU-hours attributed to the workload. The basis is the weakest rung of the signal ladder among its devices; mean is the weighted mean of the devices\' means on that basis, p95 the highest device p95 on it (none on the processes rung). Busy share = 1 - idle share, the weighted mean of the devices\' idle fractions. The hour-of-week profile is the weighted mean of the devices\' profiles, hour by hour.',
  },
  {
    figure: 'Cost and waste (workloads)',
    unit: 'USD per hour, USD per month',
    meaning:
      'A device\'s hourly cost is its GPU\'s price per GPU-hour; a MIG instance gets its board\'s price split in proportion to compute slices (the N of Ng), unpartitioned slices included. Hourly = sum of device cost x share. Idle waste = sum of device cost x share x idle fraction. VRAM waste = sum over devices the workload holds alone of device cost x (1 - idle fraction) x max(0, 1 - VRAM required / device memory): the part of the busy hours\' price that pays for memory the workload does not need (idle hours are already idle waste). Waste = idle waste + VRAM waste; monthly figures are hourly x 730.',
  },
  {
    figure: 'CPU busy share, throttled share',
    unit: 'fraction, cores',
    meaning:
      'From counters in node_exporter / cAdvisor Prometheus text with timestamps, as increases between the first and last reading (a counter that goes down restarted from 0, and its new value is the increase). Host busy share = 1 - (idle + iowait seconds) / (seconds of all modes), over all the host\'s CPUs of `node_cpu_seconds_total`; cores = distinct `cpu` labels. Container cores used = increase of `container_cpu_usage_seconds_total` / seconds between its first and last reading. Throttled share = increase of `container_cpu_cfs_throttled_periods_total` / increase of `container_cpu_cfs_periods_total` (only containers with a CPU limit have them).',
  },
  {
    figure: 'CPU pipeline verdict',
    unit: 'gpu-bound, input-bound, idle, unknown',
    meaning:
      'Whether a workload\'s GPUs wait on their CPU data pipeline, from its compute mean on its basis and the CPU figures of its hosts (the busiest) and of its containers seen on its GPUs (the most throttled). First rule that applies: unknown without a GPU compute figure (GPU idleness is never inferred from CPU); idle when compute is below the idle threshold (a saturated CPU beside an idle GPU is not starving it); gpu-bound when compute is at least 80% (the GPU is the limit whatever the CPU does); input-bound when compute is below 50% and the host is at least 90% busy or a container is throttled in at least 25% of CFS periods; input-bound when compute is below 50% and the mean PCIe receive of one of its GPUs is at least half its link\'s bandwidth each way (generation x width from the nvidia-smi XML or the CSV pcie.link.*.max columns), or 4096 MiB/s where the link is not reported (waiting on host-to-device copies); unknown without CPU figures; gpu-bound when compute is at least 50% and the CPU is not saturated; otherwise unknown (a lightly used GPU beside an idle CPU waits on something else: requests, storage, network). The evidence lists the figures with their units, and, from a collect bundle\'s processes.csv, the cores each of the workload\'s GPU processes used with its descendants (data-loader workers) over the window.',
  },
  {
    figure: 'Sidecar CPU, memory, overhead, monthly cost',
    unit: 'cores, MiB, percent, USD per month',
    meaning:
      'Sidecars are the containers of a workload\'s GPU pods that hold no GPU (app containers and native sidecars). CPU and memory are the sums of their requests (a container without a request adds 0); CPU used is the cAdvisor rate where measured for every sidecar. A pod\'s node share = the larger of sidecar CPU requests / node allocatable cores and sidecar memory requests / node allocatable memory (the scheduler cannot give that part of the node to another pod, whichever runs out first). Monthly cost = the sum over pods of node share x the node\'s hourly price x 730, where the node\'s price is the sum of its GPUs\' prices per GPU-hour (the instance price when every GPU was observed); null unless every pod\'s node is known and priced. Overhead = the sidecars\' hourly cost / the workload\'s GPU hourly cost x 100.',
  },
  {
    figure: 'Cost per hour',
    unit: 'USD per hour',
    meaning:
      'The instance\'s hourly price at the pricing model in force, divided by the GPUs the instance holds, from the catalog named above. A device\'s cost over the window is its GPU-hours times this price. A MIG device costs its share of the board: its compute slices / the GPU\'s slices; the fleet\'s cost counts each board once.',
  },
  {
    figure: 'Monthly cost, monthly waste',
    unit: 'USD per month',
    meaning: 'A month is 730 hours. Monthly cost scales the fleet\'s hourly cost to a month; monthly waste is the part of it that pays for idle GPU time.',
  },
  {
    figure: 'Plan: current fleet, target fleet, savings',
    unit: 'instances, GPUs, USD per month',
    meaning:
      'The current fleet is each host priced whole as the instance type it is (known from a node label, the config or the flag; else inferred: the cheapest type holding its GPU model and count), count x hourly price x 730. The target fleet serves every workload, each placed once, on whole instances: hosts kept as they are, and the instances the plan buys (on spot, the expected cost, lost work included, for the share of hours the work runs). Each instance\'s month is rounded to the cent once; a row without a price counts 0 on both sides. GPUs count whole instances (a 2-GPU host of an inferred 8-GPU type counts 8). Savings = current - target, which the steps\' savings add up to; the fleet\'s potential savings is the same figure. docs/planner.md gives the method and its limits.',
  },
  {
    figure: 'Step savings',
    unit: 'USD per month',
    meaning:
      'A step\'s share of the plan\'s savings: what the instances it changes cost now minus what replaces them (release: the instances; move: the hosts left minus the instances bought; commit: on-demand all month minus the expected spot cost). A CPU or sidecar step saves 0: it changes what runs, not what is bought. Alternatives are options not chosen, each with what it would cost alone and why not, outside every total.',
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
    figure: 'Inference-server requests, tokens, rates',
    unit: 'requests, tokens, per second',
    meaning:
      'Read from each model server\'s own counters (vLLM, NIM, SGLang, TGI, Triton), per server instance. With two or more timed scrapes, the increase from the first to the last (a counter that falls is a restart and counts from 0 again, as Prometheus\' rate() does), over the seconds between them; with one scrape, or scrapes without timestamps, the totals since the server started and no rate.',
  },
  {
    figure: 'Inference-server latency (p50, p95, p99)',
    unit: 'seconds',
    meaning:
      'From the server\'s latency histograms over the same basis: the rank q x count is found among the cumulative bucket counts and interpolated linearly inside its bucket, as histogram_quantile does. A quantile that falls in the +Inf bucket is the highest finite bound and shown as >X: the true value is above it. Triton: its cumulative request duration per request (a mean).',
  },
  {
    figure: 'Inference-server cost per 1,000 requests, per 1,000 tokens',
    unit: 'USD',
    meaning:
      'The GPU cost of the server\'s workload over the window (hourly cost x window seconds / 3600), shared among its servers in proportion to their requests, divided by the requests (generated tokens) they served, x 1,000. Only where the requests were counted over the same window.',
  },
  {
    figure: 'Serving pool peak, ramp and measured capacity',
    unit: 'requests per second (per GPU, per minute)',
    meaning:
      'Each server\'s load and latency are kept by interval (60 s, widened for long windows); a pool adds its servers interval by interval, so its peak is the highest interval of the sum, not the sum of peaks. Capacity per GPU: the highest pool rate of an interval whose p95 (from the summed bucket increases) stayed within the SLO, over the pool\'s GPUs; knee where a heavier or near interval breached it, approached where the p95 came within 20% of it, a lower bound where it never came near. Cost per 1,000 at capacity: hourly cost per GPU / (capacity x 3,600) x 1,000.',
  },
  {
    figure: 'Autoscaler thresholds',
    unit: 'replicas, requests, seconds',
    meaning:
      'Max replicas: ceil(measured peak / capacity per replica x 1.2). Warm pool: ceil(fastest ramp x cold start / capacity per replica). Min replicas: 1 + the warm pool. Queue target per replica: capacity per replica x (SLO - p95 at capacity), at least 1. Latency target: the p95 at the capacity load.',
  },
  {
    figure: 'Confidence',
    unit: 'high, medium, low',
    meaning:
      'How far to trust a step, with the reasons: length of the window, compute basis, whether the instance type was inferred, whether VRAM need was measured or estimated. Where the data is too thin the workload keeps its place with "not enough data" and the reason, rather than a guess.',
  },
];
