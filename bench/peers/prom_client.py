"""Peer of `gpu-audit audit` on dcgm-exporter metrics (one scrape or many, timestamps or
not), with the official Python client's text parser (`prometheus_client.parser`, Debian
package python3-prometheus-client). Every line is parsed, as gpu-audit parses every line;
a sample of DCGM_FI_DEV_GPU_UTIL is one sample of its GPU, FB_USED gives memory used.

    python3 prom_client.py METRICS.prom
"""
import sys

from prometheus_client.parser import text_fd_to_metric_families

sys.dont_write_bytecode = True  # no __pycache__ beside the peers in the repository
from gpu_figures import DCGM_MEMORY_USED as MEMORY_USED, DCGM_UTILIZATION as UTILIZATION, figures_by_gpu, print_figures  # noqa: E402


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    # Memory used per GPU at the current sample time, joined with the utilization sample.
    memory = {}
    utilization = {}
    with open(argv[0], encoding="utf-8") as page:
        for family in text_fd_to_metric_families(page):
            if family.name not in (UTILIZATION, MEMORY_USED):
                continue
            target = utilization if family.name == UTILIZATION else memory
            for sample in family.samples:
                target[(sample.labels.get("UUID"), sample.timestamp)] = sample.value
    print_figures(figures_by_gpu(utilization, memory))


if __name__ == "__main__":
    main(sys.argv[1:])
