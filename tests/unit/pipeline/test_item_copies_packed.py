"""A List's items' unsuffixed copies made ahead (rewrite.PreparedItem) are
held from read to write: in a KRM ResourceList of 25,000 small apps, each
Secret's copy as a JSON line of its own held 6.4 MiB (stop 69). They are
held packed (packed.PackedLines), and written as before."""

import io
import json
import tracemalloc

from postrender.cli import main
from postrender.inputs import decode
from postrender.options import RenderOptions
from postrender.pipeline import packed, rewrite
from postrender.pipeline.render import read_for
from postrender.pipeline.rewrite import PreparedItem

SECRETS = 400
# Blocks of copies this many characters (64 Ki in a render): a few Secrets'
# lines a block, so that few of them are in the block still filling.
BLOCK = 2_048


def _secrets_as_one_list(count: int, kind: str = "List", api: str = "v1") -> str:
    items = []
    for i in range(count):
        items.append(f"- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: sec{i}\n  type: Opaque\n"
                     f"  data:\n    k: dmFsdWU=\n")
        items.append(f"- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: app{i}\n  spec:\n"
                     f"    template:\n      spec:\n        containers:\n        - name: c\n          image: nginx\n"
                     f"          env:\n          - name: X\n            valueFrom: {{secretKeyRef: {{name: sec{i},"
                     f" key: k}}}}\n")
    return f"apiVersion: {api}\nkind: {kind}\nitems:\n" + "".join(items)


def _held_by_prepare(text: str) -> tuple[int, list[PreparedItem]]:
    """What read holds of what rewrite.prepare made (the items' edits made ahead, their copies), in bytes."""
    tracemalloc.start(8)
    try:
        read = read_for([decode(text.encode(), None)], RenderOptions())
        snapshot = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    made_by_prepare = snapshot.filter_traces([tracemalloc.Filter(True, rewrite.__file__, all_frames=True)])
    held = sum(stat.size for stat in made_by_prepare.statistics("filename"))
    return held, [obj.prepared for obj in read.stream.objects if isinstance(obj.prepared, PreparedItem)]


def test_a_lists_secrets_copies_are_held_packed(monkeypatch):
    monkeypatch.setattr(packed, "BLOCK", BLOCK)
    held, prepared = _held_by_prepare(_secrets_as_one_list(SECRETS))
    assert len(prepared) == SECRETS  # each Secret may keep an unsuffixed copy
    # Per Secret: 180 bytes packed (its PreparedItem and located marks,
    # the line's number and its share of the blocks); 407 with the copy's
    # line held as a str of its own.
    assert held < 250 * SECRETS, held / SECRETS


def test_a_copy_made_ahead_is_written_as_the_line_it_was_made(capsys, monkeypatch):
    monkeypatch.setattr(packed, "BLOCK", BLOCK)
    text = _secrets_as_one_list(SECRETS, "ResourceList", "config.kubernetes.io/v1")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert main([]) == 0
    lines = [line[2:] for line in capsys.readouterr().out.splitlines() if line.startswith("- {")]
    # Every Secret's copy, in order, each a JSON line as made (its packed block made again to write it).
    assert [json.loads(line)["metadata"]["name"] for line in lines] == [f"sec{i}" for i in range(SECRETS)]
    assert all(json.loads(line)["data"] == {"k": "dmFsdWU="} for line in lines)
