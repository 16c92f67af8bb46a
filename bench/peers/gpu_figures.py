"""Per-GPU figures the peers compute, the same ones gpu-audit reports for each GPU:
sample count, mean and max utilization (percent), max memory used (MiB).

gpu-audit's mean is time-weighted; on the benchmark logs (regular sampling) it matches the
plain mean the peers compute to well under a tenth of a percent.
"""
import json
import sys

# The DCGM series the Prometheus peers read: a utilization value is one sample of its GPU,
# memory used at the same time joins it.
DCGM_UTILIZATION = "DCGM_FI_DEV_GPU_UTIL"
DCGM_MEMORY_USED = "DCGM_FI_DEV_FB_USED"


class GpuFigures:
    __slots__ = ("samples", "utilization_sum", "utilization_count", "utilization_max", "memory_used_max")

    def __init__(self):
        self.samples = 0
        self.utilization_sum = 0.0
        self.utilization_count = 0
        self.utilization_max = None
        self.memory_used_max = None

    def add(self, utilization, memory_used):
        """One sample; None where the source printed no value (N/A)."""
        self.samples += 1
        if utilization is not None:
            self.utilization_sum += utilization
            self.utilization_count += 1
            if self.utilization_max is None or utilization > self.utilization_max:
                self.utilization_max = utilization
        if memory_used is not None and (self.memory_used_max is None or memory_used > self.memory_used_max):
            self.memory_used_max = memory_used

    def as_json(self):
        return {
            "samples": self.samples,
            "utilizationMean": self.utilization_sum / self.utilization_count if self.utilization_count else None,
            "utilizationMax": self.utilization_max,
            "memoryUsedMaxMiB": self.memory_used_max,
        }


def figures_by_gpu(utilization, memory):
    """Per GPU, from `{(uuid, time): value}` of utilization and of memory used: a sample per
    utilization value, with the memory used at the same time where there is one."""
    gpus = {}
    for (uuid, time), value in utilization.items():
        figures = gpus.get(uuid)
        if figures is None:
            figures = gpus[uuid] = GpuFigures()
        figures.add(value, memory.get((uuid, time)))
    return gpus


def print_figures(gpus):
    """`{"gpus": {uuid: figures}}` on stdout, sorted by UUID."""
    json.dump({"gpus": {uuid: gpus[uuid].as_json() for uuid in sorted(gpus)}}, sys.stdout, indent=1)
    sys.stdout.write("\n")
