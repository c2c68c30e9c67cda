"""Bad input: one line naming document, source and line; exit 1; empty stdout."""

from __future__ import annotations

import pytest

from conftest import run_postrender

HELM3 = "---\n# Source: chart/templates/{file}\n{body}"
CM_OK = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\ndata:\n  a: b\n"

CASES = {
    "invalid-yaml": (
        HELM3.format(file="bad.yaml", body="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x\n"),
        ["document 2", "chart/templates/bad.yaml, rendered line 3) line 13:", "invalid YAML", "flow mapping at line 13"],
    ),
    "sequence-document": (
        HELM3.format(file="seq.yaml", body="- a\n- b\n"),
        ["document 2", "chart/templates/seq.yaml", "line 11", "sequence"],
    ),
    "duplicate-object": (
        HELM3.format(file="one.yaml", body=CM_OK) + HELM3.format(file="two.yaml", body=CM_OK),
        ["document 3", "chart/templates/two.yaml", "ConfigMap/ok", "line 19", "duplicate object", "document 2"],
    ),
    "non-string-configmap-data": (
        HELM3.format(file="cm.yaml", body="apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  replicas: 3\n"),
        ["document 2", "chart/templates/cm.yaml", "ConfigMap/cm", "line 16", "data.replicas must be a string"],
    ),
    "colliding-keys": (
        HELM3.format(file="s.yaml", body="apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  1: x\n  '1': y\n"),
        ["document 2", "chart/templates/s.yaml", "Secret/s", "line 17", "keys `1` and `'1'`", "which value wins is random"],
    ),
    "invalid-base64": (
        HELM3.format(file="s.yaml", body="apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  password: not*base64\n"),
        ["document 2", "chart/templates/s.yaml", "Secret/s", "line 16", "data.password is not valid base64"],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_fails_cleanly(name):
    stream, expected = CASES[name]
    out = run_postrender([], HELM3.format(file="first.yaml", body=CM_OK.replace("ok", "first")) + stream)
    assert out.status == 1
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    for fragment in expected:
        assert fragment in lines[0], (fragment, lines[0])
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_fails_the_same_from_compressed_text(name, monkeypatch):
    # A large stream's documents give their text back from compressed blocks
    # once read is done with them (pipeline/packed.py): errors found after
    # read (a duplicate object, a ConfigMap's data) must name the same line.
    from postrender.pipeline import packed

    stream = HELM3.format(file="first.yaml", body=CM_OK.replace("ok", "first")) + CASES[name][0]
    plain = run_postrender([], stream)
    monkeypatch.setattr(packed, "COMPRESS_FROM", 0)
    monkeypatch.setattr(packed, "BLOCK", 40)
    assert run_postrender([], stream) == plain and plain.status == 1


# Input that ends too soon: libyaml marks the end of the text, past the last
# line (where the next document's `---` is, or nothing). postrender names
# the last line, as Helm 3 does (kubectl counts one past it, within the
# document): a line the file does not have, or the next document's, sends
# the reader to the wrong place.
ENDS_TOO_SOON = ['a: "open', "a: 'open", "a: [1, 2", "a: {b: 1", "a: [1,\n  2,\n", '- "x\n  y']


@pytest.mark.parametrize("last", [True, False], ids=["last-document", "before-another"])
@pytest.mark.parametrize("body", ENDS_TOO_SOON)
def test_an_input_ending_too_soon_is_placed_on_its_last_line(body, last):
    head = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n---\n"
    stream = head + body.rstrip("\n") + "\n" + ("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: z\n" if not last else "")
    last_line = head.count("\n") + body.rstrip("\n").count("\n") + 1
    out = run_postrender([], stream)
    assert out.status == 1 and out.stdout == "", out
    assert f"document 2 line {last_line}: invalid YAML" in out.stderr, out.stderr


def test_secret_value_is_not_in_the_error():
    stream = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  password: hunter2-is-secret!\n"
    out = run_postrender([], stream)
    assert out.status == 1 and "hunter2" not in out.stderr


def test_helm4_filename_annotation_names_the_source():
    stream = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  annotations:\n"
        "    postrenderer.helm.sh/postrender-filename: chart/templates/cm.yaml\ndata:\n  n: 1\n"
    )
    out = run_postrender([], stream)
    assert out.status == 1 and "chart/templates/cm.yaml" in out.stderr and "line 8" in out.stderr


@pytest.mark.parametrize("args", [["--no-such-flag"], ["--max-bytes", "0"], ["/no/such/path"]])
def test_usage_errors_exit_2(args):
    out = run_postrender(args, CM_OK)
    assert out.status == 2 and out.stdout == ""


# --- the line in the chart file, and hints where the fix is mechanical -------------


def _error(stream: str) -> str:
    out = run_postrender([], stream)
    assert out.status == 1 and out.stdout == "" and out.stderr.count("\n") == 1, out
    return out.stderr


def test_rendered_line_counts_the_files_own_documents_only():
    # Helm 3: other files' documents and the `---`/`# Source:` headers do not count.
    stream = (HELM3.format(file="other.yaml", body=CM_OK.replace("ok", "o1"))
              + HELM3.format(file="cm.yaml", body=CM_OK.replace("ok", "first"))
              + HELM3.format(file="other.yaml", body=CM_OK.replace("ok", "o2"))
              + HELM3.format(file="cm.yaml", body=CM_OK.replace("ok", "cm").replace("a: b", "n: 1")))
    # cm.yaml's text: 6 lines, `---`, then the second document, whose line 6 is `n: 1`.
    assert "(chart/templates/cm.yaml, rendered line 13, ConfigMap/cm) line 32:" in _error(stream)


def test_no_rendered_line_for_a_file_of_documents_of_more_than_one_kind():
    # Helm 3 sorts them by kind: where each sat in the file is not known.
    secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  k: not*base64\n"
    stream = (HELM3.format(file="both.yaml", body=secret) + HELM3.format(file="both.yaml", body=CM_OK)
              + HELM3.format(file="one.yaml", body=CM_OK.replace("ok", "one")))
    message = _error(stream)
    assert "(chart/templates/both.yaml, Secret/s) line 8:" in message, message
    # One kind: the file's order is kept, and so the line in it.
    assert "rendered line 6" in _error(HELM3.format(file="one.yaml", body=secret))
    assert "rendered line 13" in _error(HELM3.format(file="two.yaml", body=secret.replace("name: s", "name: t"))
                                        .replace("k: not*base64", "k: YQ==") + HELM3.format(file="two.yaml", body=secret))


@pytest.mark.parametrize("before", [
    # its kind goes on on the next line: `Secret Extra`, which Helm sorts last
    "apiVersion: v1\nkind: Secret\n  Extra\nmetadata:\n  name: a\n",
    # its one `kind:` line is inside a quoted scalar (libyaml does not ask its
    # lines to be indented), its kind key quoted
    '"kind": ConfigMap\napiVersion: v1\nmetadata:\n  name: a\n  annotations:\n    note: "first\nkind: Secret"\n',
    # a root not a block mapping at column 0
    "  apiVersion: v1\n  kind: Secret\n  metadata:\n    name: a\n",
    # kind written twice, the last `kind :`
    "apiVersion: v1\nkind: Secret\nkind : ConfigMap\nmetadata:\n  name: a\n",
    # its value goes on after a blank line: `Secret\nExtra`
    "apiVersion: v1\nkind: Secret\n\n  Extra\nmetadata:\n  name: a\n",
])
def test_no_rendered_line_where_a_kind_line_may_not_be_the_kind(before):
    # The line says Secret, as the next document's does: taken at its word,
    # the file is of one kind and keeps its order. Helm 3 read another kind.
    bad = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  k: not*base64\n"
    message = _error(HELM3.format(file="both.yaml", body=before) + HELM3.format(file="both.yaml", body=bad))
    assert "(chart/templates/both.yaml, Secret/s) line " in message, message
    assert "rendered line" not in message, message
    # Each alone keeps its rendered line: the scan found the file's kind.
    for plain in ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: a\n",
                  "apiVersion: v1\nkind: 'Secret'\t# a tab, then a comment\nmetadata:\n  name: a\n",
                  "apiVersion: v1\nkind : Secret # spaced\nmetadata:\n  name: a\n"):
        message = _error(HELM3.format(file="both.yaml", body=plain) + HELM3.format(file="both.yaml", body=bad))
        assert "rendered line 11" in message, (plain, message)


@pytest.mark.parametrize("odd", ["\r", "\x85", "\u2028", "\u2029"])
def test_no_rendered_line_where_go_yaml_breaks_a_line_the_scan_does_not(odd):
    # go-yaml reads `kind: Secret` after the odd break as the document's
    # kind (the last), and Helm 3 sorted it first: the error is about that
    # break, at the line the stream has.
    first = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"
    second = f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata: {{}}{odd}kind: Secret\n"
    message = _error(HELM3.format(file="f.yaml", body=second) + HELM3.format(file="f.yaml", body=first))
    assert "(chart/templates/f.yaml, Secret/a) line 7:" in message, message
    assert "rendered line" not in message, message


@pytest.mark.parametrize("written", [
    # kind written twice: Helm 3 and postrender read the last (a Secret);
    # the first line alone would say ConfigMap, one kind with the other
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\nkind: Secret\ndata:\n  k: not*base64\n",
    # kind in no line of its own: the text does not say it
    "{apiVersion: v1, kind: Secret, metadata: {name: s}, data: {k: not*base64}}\n",
    '"kind": Secret\napiVersion: v1\nmetadata:\n  name: s\ndata:\n  k: not*base64\n',
])
def test_no_rendered_line_where_a_documents_kind_is_not_one_plain_line(written):
    # Helm 3 sorted the file's documents by the kind it read; where the text
    # does not say that kind for sure, its place in the file is not known.
    stream = HELM3.format(file="both.yaml", body=written) + HELM3.format(file="both.yaml", body=CM_OK)
    message = _error(stream)
    assert "(chart/templates/both.yaml, Secret/s) line " in message, message
    assert "rendered line" not in message, message


def test_helm4s_documents_name_their_file_and_no_rendered_line():
    # Helm 4 writes each document again (blank lines dropped, folded text
    # folded anew): its lines are not the template's, so none is claimed.
    def doc(name: str, value: str) -> str:
        return (f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  annotations:\n"
                f"    postrenderer.helm.sh/postrender-filename: 'c/templates/cm.yaml'\ndata:\n  n: {value}\n")
    message = _error(doc("a", '"1"') + "---\n" + doc("b", "1"))
    # The line is the stream's, and says so: the file's own is not known.
    assert "(c/templates/cm.yaml, ConfigMap/b) stream line 17:" in message and "rendered line" not in message


# Each annotation by which a host that wrote the stream again names an
# object's file: Helm 4's, kustomize's origin (`buildMetadata:
# [originAnnotations]`: a file, or the kustomization that generated it), and
# the path kustomize and kpt give a function's items.
ANNOTATED_FILES = {
    "helm4": ("postrenderer.helm.sh/postrender-filename: c/templates/cm.yaml", "c/templates/cm.yaml"),
    "kustomize-origin": ('config.kubernetes.io/origin: "path: base/cm.yaml\\n"', "base/cm.yaml"),
    "kustomize-origin-block": ("config.kubernetes.io/origin: |\n      path: 'base/cm.yaml'\n      repo: https://x",
                               "base/cm.yaml"),
    "kustomize-generated": ("config.kubernetes.io/origin: |\n      configuredIn: overlay/kustomization.yaml\n"
                            "      configuredBy:\n        kind: ConfigMapGenerator", "overlay/kustomization.yaml"),
    "kpt-path": ("config.kubernetes.io/path: cms/cm.yaml", "cms/cm.yaml"),
    "internal-path": ("internal.config.kubernetes.io/path: cms/cm.yaml", "cms/cm.yaml"),
}


@pytest.mark.parametrize("structural", [False, True], ids=["found-after-read", "found-reading"])
@pytest.mark.parametrize("name", sorted(ANNOTATED_FILES))
def test_a_file_an_annotation_names_is_named_and_the_line_called_the_streams(name, structural):
    annotation, file = ANNOTATED_FILES[name]
    # Found reading: a key that is a list, refused once the document is
    # composed, before any object is made of it (Document._annotated_file).
    bad = "  n: 1\n" if not structural else "  n: '1'\n  [a]: b\n"
    stream = CM_OK + "---\n" + (
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  annotations:\n    {annotation}\ndata:\n" + bad)
    message = _error(stream)
    line = stream.count("\n")
    assert f"document 2 ({file}" in message and f"stream line {line}:" in message, message


@pytest.mark.parametrize("name", sorted(ANNOTATED_FILES))
def test_every_line_a_message_names_in_such_a_file_is_called_the_streams(name):
    # Not only where it is: where the key was written first, where the
    # object it duplicates is.
    annotation, file = ANNOTATED_FILES[name]
    doc = f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  annotations:\n    {annotation}\ndata:\n"
    warned = run_postrender([], doc + "  k: v\n  k: w\n")
    assert warned.status == 0, warned.stderr
    assert f"({file}, ConfigMap/b) stream line" in warned.stderr and "written first on stream line" in warned.stderr
    twice = _error(doc + "  k: v\n---\n" + doc + "  k: w\n")
    assert f"also defined in document 1 ({file}), stream line" in twice, twice


def test_a_file_given_or_named_by_a_source_comment_has_its_own_lines(tmp_path):
    given = tmp_path / "cm.yaml"
    given.write_text(CM_OK.replace("a: b", "n: 1"))
    out = run_postrender([str(given)])
    assert out.status == 1 and f"({given}, ConfigMap/ok) line 6:" in out.stderr, out.stderr
    message = _error(HELM3.format(file="cm.yaml", body=CM_OK.replace("a: b", "n: 1")))
    assert "stream line" not in message and "line 8:" in message, message


def test_no_rendered_line_without_helm():
    message = _error(CM_OK.replace("a: b", "n: 1"))
    assert "rendered line" not in message and "line 6" in message


@pytest.mark.parametrize(
    "value,hint",
    [
        ("3", '(quote it: "3"; unquoted, Kubernetes reads it as a number under YAML 1.1)'),
        ("true", '(quote it: "true"; unquoted, Kubernetes reads it as a boolean under YAML 1.1)'),
        ("1.5e3", '(quote it: "1.5e3"; unquoted, Kubernetes reads it as a number under YAML 1.1)'),
        ("", '(write "" for an empty string; unquoted, Kubernetes reads it as null under YAML 1.1)'),
        ("~", '(write "" for an empty string; unquoted, Kubernetes reads it as null under YAML 1.1)'),
        ("[a, b]", "(write the text as a block scalar: `k: |`)"),
        ("{a: b}", "(write the text as a block scalar: `k: |`)"),
    ],
)
def test_configmap_values_get_the_fix(value, hint):
    message = _error(CM_OK.replace("a: b", f"k: {value}"))
    assert message.rstrip("\n").endswith(f"data.k must be a string {hint}")


def test_secret_hints_never_show_the_value():
    secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  password: {value}\n"
    message = _error(secret.format(value="123456789"))
    # Nor what it reads as: "a number" said it is digits (leak60).
    assert message.rstrip("\n").endswith(
        "data.password must be a base64 string (quote it: Kubernetes does not read it as a string)")
    # A tag written is the one to drop; an untagged value has none (fuzz62).
    message = _error(secret.format(value="!!int 7"))
    assert message.rstrip("\n").endswith(
        "data.password must be a base64 string (drop its tag or make it !!str: Kubernetes does not read it as a string)")
    assert "123456789" not in message
    message = _error(secret.format(value="not*base64"))
    assert "(encode it, or move it to stringData as plain text)" in message and "not*base64" not in message


@pytest.mark.parametrize("origin, file", [
    ("path: base/cm.yaml", "base/cm.yaml"),
    ("path: 'base/cm.yaml'\nrepo: https://x\nref: v1", "base/cm.yaml"),
    ('repo: https://x\npath: "a b/cm.yaml"', "a b/cm.yaml"),
    ("configuredIn: o/kustomization.yaml\nconfiguredBy: {kind: ConfigMapGenerator}", "o/kustomization.yaml"),
    ("configuredIn: o/kustomization.yaml\npath: base/cm.yaml", "base/cm.yaml"),  # path first, wherever written
    ("nested:\n  path: inner.yaml", None), ("path:", None), ("path: ''", None),
    # A run of blanks (a pattern's backtracking took minutes on 250 KB of them).
    ("path: a" + " " * 100_000 + "b", "a" + " " * 100_000 + "b"),
    ("path: a" + " \t" * 50_000, "a"),
])
def test_the_file_kustomizes_origin_annotation_names(origin, file):
    from postrender.pipeline.read.documents import file_annotated

    annotations = {"config.kubernetes.io/origin": origin}
    assert file_annotated(annotations.get) == file


@pytest.mark.parametrize("stream, expected", [
    ("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {k: '*'}\n",
     "document 1 (the stream kustomize built, Secret/s) line 4: data.k is not valid base64"),
    (b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: \xff}\n",
     "document 1 (the stream kustomize built) line 4: invalid UTF-8"),
])
def test_a_caller_names_standard_input(stream, expected):
    """A stream piped in that no one sees, whose lines are no file's (the
    Argo CD plugin's `kustomize build`): messages name it as the caller says."""
    out = run_postrender([], stream, stdin_name="the stream kustomize built")
    assert out.status == 1 and out.stdout == ""
    assert expected in out.stderr, out.stderr
    assert "the stream kustomize built" not in run_postrender([], stream).stderr


@pytest.mark.parametrize("escape,surrogate", [
    ("\\ud800", True), ("\\uDFFF", True), ("\\U0000DC00", True),
    ("\\U00110000", False), ("\\UFFFFFFFF", False),  # past U+10FFFF: no surrogate, whatever reads it
])
@pytest.mark.parametrize("bom", ["", "\ufeff"])  # libyaml counts its mark after one (review61a)
def test_the_surrogate_hint_is_given_for_surrogate_escapes_only(escape, surrogate, bom):
    # oracle61: an escape past U+10FFFF was explained as a JSON surrogate pair.
    text = f'{bom}apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: u\ndata:\n  k: "x{escape}"\n'
    result = run_postrender([], text)
    assert (result.status, result.stdout) == (1, "")
    assert "line 6: invalid YAML: found invalid Unicode character escape code" in result.stderr
    assert ("JSON surrogate pair" in result.stderr) == surrogate


@pytest.mark.parametrize("data,why", [
    ("{.nan: a, .NaN: b}", "NaN, which equals no other value"),
    ("{<<: {.nan: a}, .nan: b}", "NaN, which equals no other value"),
    # A string and a NaN: different types (review61c).
    ('{".nan": a, .nan: b}', "YAML 1.1 reads them as values of different types"),
    ('{<<: {".nan": a}, .nan: b}', "YAML 1.1 reads them as values of different types"),
])
def test_nan_keys_written_twice_are_said_to_win_at_random(data, why):
    result = run_postrender([], f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: u\ndata: {data}\n")
    assert (result.status, result.stdout) == (1, "")
    assert f"({why}), and which value wins is random" in result.stderr, result.stderr
