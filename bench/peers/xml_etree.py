"""Peer of `gpu-audit audit` on an `nvidia-smi -q -x -l` log, with xml.etree.ElementTree.

A `-l` log is documents one after another (each with its own `<?xml ?>` declaration), which
no XML parser takes as one document, so both modes cut the log at each declaration:
  document  read up to each `</nvidia_smi_log>`, parse that document with ET.fromstring
            (the C accelerator), walk its <gpu> elements; one document in memory at a time.
  pull      feed 1 MiB chunks to an ET.XMLPullParser, a new one per document, and read each
            <gpu> at its end event, then clear it (never a whole document in memory).

    python3 xml_etree.py [--mode document|pull] LOG.xml
"""
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # no __pycache__ beside the peers in the repository
from gpu_figures import GpuFigures, print_figures  # noqa: E402

CHUNK_BYTES = 1 << 20
DECLARATION = b"<?xml "
END_OF_DOCUMENT = b"</nvidia_smi_log>"


def number(text):
    """`97 %` -> 97.0, `71680 MiB` -> 71680.0, `N/A` or missing -> None."""
    if text is None:
        return None
    head = text.split(None, 1)[0] if text.strip() else ""
    try:
        return float(head)
    except ValueError:
        return None


def record(gpus, gpu):
    uuid = gpu.findtext("uuid") or gpu.get("id")
    figures = gpus.get(uuid)
    if figures is None:
        figures = gpus[uuid] = GpuFigures()
    figures.add(number(gpu.findtext("utilization/gpu_util")), number(gpu.findtext("fb_memory_usage/used")))


def by_document(path, gpus):
    pending = []
    with open(path, "rb") as log:
        for line in log:
            pending.append(line)
            if line.lstrip().startswith(END_OF_DOCUMENT):
                root = ET.fromstring(b"".join(pending))
                for gpu in root.iter("gpu"):
                    record(gpus, gpu)
                pending = []


def by_pull(path, gpus):
    parser = None
    carry = b""
    with open(path, "rb") as log:
        while True:
            chunk = log.read(CHUNK_BYTES)
            data = carry + chunk
            # Hold back a tail that could be the start of a declaration cut by the chunk.
            limit = len(data) if not chunk else max(0, len(data) - (len(DECLARATION) - 1))
            start = 0
            at = data.find(DECLARATION, 0)
            while 0 <= at < limit:
                if parser is not None:
                    parser.feed(data[start:at])
                    finish(parser, gpus)
                parser = ET.XMLPullParser(events=("end",))
                start = at
                at = data.find(DECLARATION, at + 1)
            if parser is None:
                parser = ET.XMLPullParser(events=("end",))
            parser.feed(data[start:limit])
            drain(parser, gpus)
            carry = data[limit:]
            if not chunk:
                break
    if parser is not None:
        finish(parser, gpus)


def drain(parser, gpus):
    for _event, element in parser.read_events():
        if element.tag == "gpu":
            record(gpus, element)
            element.clear()


def finish(parser, gpus):
    parser.close()
    drain(parser, gpus)


def main(argv):
    mode = "document"
    if len(argv) >= 2 and argv[0] == "--mode":
        mode, argv = argv[1], argv[2:]
    if len(argv) != 1 or mode not in ("document", "pull"):
        sys.exit(__doc__)
    gpus = {}
    (by_document if mode == "document" else by_pull)(argv[0], gpus)
    print_figures(gpus)


if __name__ == "__main__":
    main(sys.argv[1:])
