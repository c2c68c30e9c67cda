"""pipeline/packed.py: a source's documents' texts (and a List's items' copies, lines) come back exactly, from
blocks compressed or held as they are, in any order, wherever the blocks are cut."""

from hypothesis import given, settings
from hypothesis import strategies as st

from postrender.pipeline import packed
from postrender.pipeline.packed import PackedLines, PackedTexts

# Document texts as manifests hold them, and what a text read from JSON
# escapes may hold: characters beyond ASCII and lone surrogates.
_TEXTS = st.lists(st.text(alphabet=st.sampled_from("ab: \n-\t\u00e9\u2028\U0001f600\ud800\udfff"), max_size=40),
                  min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(_TEXTS, st.sampled_from([1, 2, 7, 30, 1 << 16]), st.randoms())
def test_texts_come_back_exactly(texts, block, random):
    text = "".join(texts)
    starts = [sum(map(len, texts[:i])) for i in range(len(texts))]
    saved, packed.BLOCK = packed.BLOCK, block
    try:
        held = PackedTexts(text, starts)
    finally:
        packed.BLOCK = saved
    order = list(range(len(texts)))
    random.shuffle(order)
    assert [held.text(i) for i in order] == [texts[i] for i in order]
    assert held.whole() == text and len(held) == len(texts)


def test_small_documents_are_compressed_and_a_large_one_held_as_it_is():
    document = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  k: v\n---\n"
    text = document * 4000 + "data: " + "x" * (packed.BLOCK * 2)  # many small documents, then a large one
    starts = [i * len(document) for i in range(4001)]
    held = PackedTexts(text, starts)
    sizes = [len(block) for block in held._blocks]
    # The small ones: a tenth of their text or less; the large one as it is.
    assert all(isinstance(block, bytes) for block in held._blocks[:-1])
    assert sum(sizes[:-1]) * 10 < len(document) * 4000
    assert held._blocks[-1] == "data: " + "x" * (packed.BLOCK * 2)
    assert held.text(3999) == document and held.text(4000) == held._blocks[-1] and held.text(0) == document


def test_read_compresses_a_large_stream_only(monkeypatch):
    from postrender.options import RenderOptions
    from postrender.pipeline.read import read
    from postrender.pipeline.read.documents import Document, PackedDocument, Source

    text = "".join(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n---\n" for i in range(3000))
    monkeypatch.setattr(packed, "COMPRESS_FROM", len(text) + 1)
    small = Source(None, text)
    kept = read([small], RenderOptions().limits)
    assert small._packed is None and all(type(doc) is Document for doc in kept.documents)
    monkeypatch.setattr(packed, "COMPRESS_FROM", len(text))
    large = Source(None, text)
    stream = read([large], RenderOptions().limits)
    assert all(isinstance(block, bytes) for block in large._packed._blocks)
    assert all(type(doc) is PackedDocument for doc in stream.documents)
    assert [doc.text for doc in stream.documents] == [doc.text for doc in kept.documents]
    assert large.text == small.text == text


def test_a_source_compares_by_name_and_text_however_it_holds_it(monkeypatch):
    from postrender.options import RenderOptions
    from postrender.pipeline.read import read
    from postrender.pipeline.read.documents import Source

    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n---\n"
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n")
    whole, chunked, compressed = Source("in.yaml", text), Source("in.yaml", text), Source("in.yaml", text)
    read([chunked], RenderOptions().limits)
    monkeypatch.setattr(packed, "COMPRESS_FROM", 0)
    read([compressed], RenderOptions().limits)
    assert whole == chunked == compressed and len({whole, chunked, compressed}) == 1
    assert Source("other.yaml", text) != whole and repr(compressed) == f"Source(name='in.yaml', size={len(text)})"


# Documents naming their chart file every way read learns it: a `# Source:`
# line (after a `---` or not, spaced, with CRLF, after a comment), an
# annotation (Helm 4's, kustomize's path), a line and an annotation naming
# two files, neither, and Helm 3's header (pipeline/read/helm.py) naming
# another file than the line under it, or alone.
_NAMED = [
    "# Source: c/templates/a.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
    "---\n# Source: c/templates/b.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
    "---\n# Source:  spaced.yaml \napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
    "---\r\n# Source: crlf.yaml\r\napiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: d\r\n",
    "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: e\n"
    "  annotations:\n    config.kubernetes.io/path: kustomized/e.yaml\n",
    "---\n# Source: c/templates/f.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f\n"
    "  annotations:\n    postrenderer.helm.sh/postrender-filename: other.yaml\n",
    "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: g\n",
    "---\n# a comment\n# Source: c/templates/h.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: h\n",
    "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: i\n"
    "  annotations:\n    postrenderer.helm.sh/postrender-filename: helm4/i.yaml\n",
    "---\n  # Source: header.yaml\n# Source: line.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: j\n",
    "---\n  # Source: header-only.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: k\n",
]


def test_a_compressed_document_names_its_file_as_a_held_one_does(monkeypatch):
    """A compressed document lets go of the file its `# Source:` line names
    with its text (PackedDocument.let_go_of_text) only where its text
    names it again; every other way it learnt its file stays held."""
    from postrender.options import RenderOptions
    from postrender.pipeline.read import read
    from postrender.pipeline.read.documents import PackedDocument, Source

    text = "".join(_NAMED)
    monkeypatch.setattr(packed, "COMPRESS_FROM", len(text) + 1)
    held = read([Source(None, text)], RenderOptions().limits).documents
    monkeypatch.setattr(packed, "COMPRESS_FROM", 0)
    compressed = read([Source(None, text)], RenderOptions().limits).documents
    assert all(type(doc) is PackedDocument for doc in compressed)
    assert [(doc.source_comment, doc.header_source) for doc in compressed] == \
        [(doc.source_comment, doc.header_source) for doc in held]
    assert [doc.source_comment for doc in held] == [
        "c/templates/a.yaml", "c/templates/b.yaml", "spaced.yaml", "crlf.yaml", "kustomized/e.yaml",
        "c/templates/f.yaml", None, "c/templates/h.yaml", "helm4/i.yaml", "line.yaml", None]
    assert [doc.header_source for doc in held][-2:] == ["header.yaml", "header-only.yaml"]
    # Let go of where the text names it again (the first two and the
    # sixth as Helm writes them, the line winning over an annotation; the
    # others by reading its lines), and held where it does not (the
    # annotations', the None of a document naming none, a line under a
    # header naming another file, and a header alone).
    assert [_holds(doc) for doc in compressed] == [False, False, False, False, True, False, True, False,
                                                   True, True, True]


def _holds(doc) -> bool:
    """Whether the document holds its file itself, not given back from its
    text by PackedDocument.__getattr__."""
    from postrender.pipeline.read.documents import Document

    try:
        Document.__dict__["source_comment"].__get__(doc, type(doc))
    except AttributeError:
        return False
    return True


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(["", "---\n", "--- \n", "\ufeff", "# x\n", "---\r\n"]),
       st.text(alphabet=st.sampled_from("ab/. \t\r\n\ufeff#:"), max_size=12),
       st.sampled_from(["\n", "\r\n", " \n", "", "\nkind: A\n"]),
       st.text(alphabet=st.sampled_from("ab/. \t\r\n\ufeff"), max_size=12))
def test_a_source_line_is_recognised_only_where_the_lines_read_it_so(head, written, tail, file):
    from postrender.pipeline.read.documents import _opens_with_comment_on
    from postrender.pipeline.read.lines import leading_source_comment

    text = f"{head}# Source: {written}{tail}"
    if _opens_with_comment_on(text, file):
        assert leading_source_comment(text) == file
    if written == file.strip() == file and file.isprintable() and file and head in ("", "---\n") and tail[:1] == "\n":
        assert _opens_with_comment_on(text, file)


@settings(max_examples=300, deadline=None)
@given(_TEXTS, st.sampled_from([1, 2, 7, 30, 1 << 16]), st.randoms())
def test_lines_come_back_exactly_in_any_order_as_added_before_and_after(lines, block, random):
    saved, packed.BLOCK = packed.BLOCK, block
    try:
        held = PackedLines()
        numbers = []
        for at, line in enumerate(lines):
            numbers.append(held.add(line))
            # Asked for while later ones are still added (a block still filling, or filled since).
            asked = random.randrange(at + 1)
            assert held.line(numbers[asked]) == lines[asked]
    finally:
        packed.BLOCK = saved
    assert numbers == list(range(len(lines)))
    order = list(range(len(lines)))
    random.shuffle(order)
    assert [held.line(i) for i in order] == [lines[i] for i in order]
    assert [held.line(i) for i in range(len(lines))] == lines


def test_lines_are_compressed_once_a_block_fills():
    held = PackedLines()
    line = '{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "sec%d"}, "data": {"k": "dmFsdWU="}}'
    for i in range(2_000):
        held.add(line % i)
    # Blocks were filled and compressed (those lines no longer held as str);
    # lines of one shape shrink many times.
    assert len(held._blocks) >= 2
    compressed = len(held) - len(held._filling)
    assert sum(map(len, held._blocks)) * 5 < sum(len(line % i) for i in range(compressed))
    assert held.line(1_234) == line % 1_234 and held.line(0) == line % 0 and held.line(1_999) == line % 1_999
