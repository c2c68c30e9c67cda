"""A large stream's writer holds its pieces' edits' texts packed (write._PackedPiece)."""

from __future__ import annotations

import io

import pytest

from postrender.options import RenderOptions
from postrender.pipeline.read.documents import Source
from postrender.pipeline.render import render
from postrender.report import Reporter


def _apps(count: int) -> str:
    # As bench/run's small apps: a ConfigMap, a Secret (which keeps an
    # unsuffixed copy) and a Deployment naming both, each a document.
    return "".join(
        f"# Source: c/templates/cm{i}.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg{i}\n"
        f"data:\n  app.properties: |\n    a=1\n    b={i}\n---\n"
        f"# Source: c/templates/s{i}.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: sec{i}\n"
        f"type: Opaque\ndata:\n  k: dmFsdWU=\n---\n"
        f"# Source: c/templates/d{i}.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app{i}\n"
        f"spec:\n  selector: {{matchLabels: {{app: a{i}}}}}\n  template:\n    metadata: {{labels: {{app: a{i}}}}}\n"
        f"    spec:\n      containers:\n      - name: c\n        image: nginx\n        envFrom:\n"
        f"        - configMapRef: {{name: cfg{i}}}\n        env:\n        - name: X\n"
        f"          valueFrom: {{secretKeyRef: {{name: sec{i}, key: k}}}}\n      volumes:\n      - name: v\n"
        f"        secret: {{secretName: sec{i}}}\n---\n"
        for i in range(count))


def _written(text: str, argv: list[str], compress_from: int, monkeypatch) -> tuple:
    from postrender.cli import parse, render_options
    from postrender.pipeline import packed

    monkeypatch.setattr(packed, "COMPRESS_FROM", compress_from)
    err = io.StringIO()
    result = render([Source("apps.yaml", text)], render_options(parse(argv)), Reporter(verbose=True, stderr=err),
                    release=True)
    return result, "".join(result.written), result.output, err.getvalue()


@pytest.mark.parametrize("argv", [[], ["--keep-original=all"], ["--strategy=annotate"], ["--version-all"]])
@pytest.mark.parametrize("block", [1, 300, 1 << 16])
def test_a_large_stream_is_written_as_a_small_one(argv, block, monkeypatch):
    from postrender.pipeline import packed
    from postrender.pipeline import write as write_module

    text = _apps(40)
    _, small_parts, small, small_messages = _written(text, argv, 1 << 40, monkeypatch)
    monkeypatch.setattr(packed, "BLOCK", block)
    result, parts, whole, messages = _written(text, argv, 0, monkeypatch)
    assert (parts, whole, messages) == (small_parts, small, small_messages)
    pieces = result.written._pieces
    assert any(type(piece) is write_module._PackedPiece for piece in pieces)
    assert all(type(piece) is not write_module._Piece for piece in pieces)  # every one packed (one chunk each)
    assert len(result.written._texts) == len(pieces)  # a line each: line i the ith piece's


def test_a_packed_piece_gives_its_edits_and_takes_an_insertion(monkeypatch):
    # What a KRM function's answer asks of the output (frontends/krm.py).
    text = _apps(30)
    _, _, small, _ = _written(text, [], 1 << 40, monkeypatch)
    kept, _, _, _ = _written(text, [], 1 << 40, monkeypatch)
    result, _, whole, _ = _written(text, [], 0, monkeypatch)
    assert whole == small
    documents = result.analysis.stream.documents
    for at in (0, 1, 2, 88, 89):
        edits = result.written.edits_of(documents[at])
        assert list(edits) == list(kept.written.edits_of(kept.analysis.stream.documents[at]))
    # A Secret keeping a copy takes none; a ConfigMap, after its last edit.
    assert not result.written.insert(documents[88], 0, "# added\n")
    end = len(documents[87].text)
    assert result.written.insert(documents[87], end, "# added\n")
    assert kept.written.insert(kept.analysis.stream.documents[87], end, "# added\n")
    assert result.written.text() == kept.written.text() == "".join(result.written)
    assert "b=29\n# added\n" in result.written.text()


def test_the_writer_of_a_large_stream_holds_little_a_document(monkeypatch):
    # The writer's end was 25,000 small apps' peak: each edited document's
    # Splice held its edits' texts as a str (a config's marks some 210
    # characters) and the Splice itself, 22 MiB of 75,000 documents.
    import tracemalloc

    from postrender.pipeline import packed
    from postrender.pipeline import render as render_module

    monkeypatch.setattr(packed, "COMPRESS_FROM", 0)
    held = []
    write = render_module.write

    def measured(*args, **kwargs):
        before = tracemalloc.get_traced_memory()[0]
        out = write(*args, **kwargs)
        held.append(tracemalloc.get_traced_memory()[0] - before)
        return out

    monkeypatch.setattr(render_module, "write", measured)
    for apps in (200, 600):
        tracemalloc.start()
        try:
            render([Source("apps.yaml", _apps(apps))], RenderOptions(), Reporter(stderr=io.StringIO()), release=True)
        finally:
            tracemalloc.stop()
    # What the writer adds over what it lets go of (nodes, edit records),
    # an app (three documents), from 200 apps to 600 (what any stream holds
    # once, a block of texts being filled among them, falls out): -190
    # bytes packed (it lets go of more than it adds), 720 with a str and a
    # Splice each.
    per_app = (held[1] - held[0]) / 400
    assert per_app < 300, per_app
