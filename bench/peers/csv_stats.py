"""Peer of `gpu-audit audit` on an `nvidia-smi --query-gpu=... --format=csv -l N` log,
with the standard csv module: header names with units (`utilization.gpu [%]`), cells
separated by comma and space, values with or without their unit (`97 %`, `97`),
`[N/A]`-style cells as missing, a header printed again where logs were concatenated.

    python3 csv_stats.py LOG.csv
"""
import csv
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the peers in the repository
from gpu_figures import GpuFigures, print_figures  # noqa: E402


def number(cell):
    """`97 %` -> 97.0, `72003 MiB` -> 72003.0, `[N/A]` -> None."""
    if not cell or cell[0] == "[":
        return None
    try:
        return float(cell.split(" ", 1)[0])
    except ValueError:
        return None


def column(header, name):
    """Index of the column `name`, with or without its `[unit]`."""
    for index, cell in enumerate(header):
        if cell == name or cell.startswith(name + " ["):
            return index
    sys.exit("no column %s in the header" % name)


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    gpus = {}
    with open(argv[0], newline="", encoding="utf-8") as log:
        rows = csv.reader(log, skipinitialspace=True)
        header = next(rows)
        uuid_at, utilization_at, memory_at = column(header, "uuid"), column(header, "utilization.gpu"), column(header, "memory.used")
        for row in rows:
            if not row or row[0] == header[0]:
                continue  # a blank line, or the header again
            uuid = row[uuid_at]
            figures = gpus.get(uuid)
            if figures is None:
                figures = gpus[uuid] = GpuFigures()
            figures.add(number(row[utilization_at]), number(row[memory_at]))
    print_figures(gpus)


if __name__ == "__main__":
    main(sys.argv[1:])
