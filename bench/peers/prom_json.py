"""Peer of `gpu-audit audit` on a saved Prometheus query_range answer of DCGM metrics
(`/api/v1/query_range` JSON), with the standard json module: a point of DCGM_FI_DEV_GPU_UTIL
is one sample of its GPU, FB_USED at the same time gives memory used.

    python3 prom_json.py ANSWER.json
"""
import json
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the peers in the repository
from gpu_figures import DCGM_MEMORY_USED as MEMORY_USED, DCGM_UTILIZATION as UTILIZATION, figures_by_gpu, print_figures  # noqa: E402


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    with open(argv[0], encoding="utf-8") as answer:
        document = json.load(answer)
    utilization = {}
    memory = {}
    for series in document["data"]["result"]:
        labels = series["metric"]
        name = labels.get("__name__")
        if name not in (UTILIZATION, MEMORY_USED):
            continue
        target = utilization if name == UTILIZATION else memory
        uuid = labels.get("UUID")
        for time, value in series.get("values", []):
            target[(uuid, time)] = float(value)
    print_figures(figures_by_gpu(utilization, memory))


if __name__ == "__main__":
    main(sys.argv[1:])
