"""A List's items' marks made ahead (rewrite.Prepared) are held by the
rewrite from the plan to the List's write: as a dict entry of an `Ahead`
and the values' tuple each, the 25,000 small apps as one KRM ResourceList
held 11.7 MiB for their 50,000 configs at the guard's peak (stop 70). They
are held by item (rewrite.ItemsAhead), each made when asked, and written as
before."""

import io
import tracemalloc

import pytest

from postrender.cli import main
from postrender.inputs import decode
from postrender.options import RenderOptions
from postrender.pipeline import rewrite
from postrender.pipeline.render import _rewrite_options, analyse, read_for

APPS = 400


def _apps_as_one_list(count: int, kind: str = "List", api: str = "v1") -> str:
    """`count` ConfigMaps, each read by a Deployment: every ConfigMap versioned, none copied."""
    items = []
    for i in range(count):
        items.append(f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm{i}\n  data:\n    k: v{i}\n")
        items.append(f"- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: app{i}\n  spec:\n"
                     f"    template:\n      spec:\n        containers:\n        - name: c\n          image: nginx\n"
                     f"          envFrom:\n          - configMapRef: {{name: cm{i}}}\n")
    return f"apiVersion: {api}\nkind: {kind}\nitems:\n" + "".join(items)


def _rewritten(text: str) -> tuple[int, rewrite.DocumentEdits]:
    """What the rewrite of `text`, one List, holds once made, in bytes, and the List's edits."""
    options = RenderOptions()
    sources = [decode(text.encode(), None)]
    analysis = analyse(sources, options, read_for(sources, options))
    tracemalloc.start(8)
    try:
        result = rewrite.rewrite(analysis.graph, analysis.plan, _rewrite_options(options),
                                 held=analysis.policy.held, config_hashes=analysis.config_hashes,
                                 retention=analysis.retention, repointed=analysis.repointed)
        snapshot = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    made = snapshot.filter_traces([tracemalloc.Filter(True, rewrite.__file__, all_frames=True)])
    edits = result.for_document(analysis.stream.documents[0])
    assert edits is not None
    return sum(stat.size for stat in made.statistics("filename")), edits


def test_a_lists_items_marks_made_ahead_are_held_by_item():
    held, edits = _rewritten(_apps_as_one_list(APPS))
    assert len(list(edits.entries())) == APPS  # each ConfigMap's marks, made ahead
    # Per app (a ConfigMap's marks, a Deployment's reference rewritten):
    # 69 bytes by item; 226 with an Ahead and the values' tuple held each in
    # a dict entry.
    assert held < 140 * APPS, held / APPS


@pytest.mark.parametrize("kind, api", [("List", "v1"), ("ResourceList", "config.kubernetes.io/v1")])
def test_marks_made_ahead_are_written_as_marks_made_when_written(kind, api, capsys, monkeypatch):
    text = _apps_as_one_list(APPS, kind, api)

    def written() -> str:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
        assert main([]) == 0
        return capsys.readouterr().out

    ahead = written()
    # Made when written, from the List's items composed again, as a shape
    # not made ahead is.
    monkeypatch.setattr(rewrite.Prepared, "has", lambda self, index: False)
    assert written() == ahead
    assert ahead.count("postrender.io/versioned") >= APPS
