"""Peer of `gpu-audit audit ... --k8s LIST` on what `kubectl get pods,nodes -A -o json`
prints, with the standard json module: per node its GPUs (status.allocatable) and the GPUs
its running pods request (containers' nvidia.com/gpu limits, else requests), as the script a
user would write to find allocated GPUs.

    python3 k8s_json.py LIST.json
"""
import json
import sys

GPU = "nvidia.com/gpu"


def gpus_of(container):
    resources = container.get("resources") or {}
    for kind in ("limits", "requests"):
        value = (resources.get(kind) or {}).get(GPU)
        if value is not None:
            try:
                return int(value)
            except ValueError:
                return 0
    return 0


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    with open(argv[0], encoding="utf-8") as listing:
        document = json.load(listing)
    capacity = {}
    requested = {}
    for item in document.get("items", []):
        kind = item.get("kind")
        if kind == "Node":
            allocatable = (item.get("status") or {}).get("allocatable") or {}
            capacity[item["metadata"]["name"]] = int(allocatable.get(GPU, "0"))
        elif kind == "Pod" and (item.get("status") or {}).get("phase") == "Running":
            node = (item.get("spec") or {}).get("nodeName")
            wanted = sum(gpus_of(container) for container in (item.get("spec") or {}).get("containers", []))
            if node is not None and wanted > 0:
                requested[node] = requested.get(node, 0) + wanted
    gpu_nodes = [name for name, count in capacity.items() if count > 0]
    print(json.dumps({
        "gpuNodes": len(gpu_nodes),
        "gpus": sum(capacity[name] for name in gpu_nodes),
        "gpusRequested": sum(requested.get(name, 0) for name in gpu_nodes),
    }))


if __name__ == "__main__":
    main(sys.argv[1:])
