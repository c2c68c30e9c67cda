"""Directives between documents: `...`, then `%YAML 1.1` (or `%TAG`), then
`---`. kubectl reads such a stream (its splitter leaves the directives at
the end of the document before, after its `...`), so postrender reads it
too; and whatever it writes after a document (an unsuffixed copy, the next
file) keeps the directives after a `...` line, where YAML allows them.

The oracle is kubectl itself (tests/kube_reader.py): every input here is
read by it, and every output must be, with the objects postrender meant.
"""

from __future__ import annotations

import pytest

from conftest import run_postrender
from kube_reader import ReadError, read_streams

# The workload names both in flow style: rewritten in place, like block style.
DEPLOY = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      containers:\n"
    "      - name: c\n        envFrom: [{configMapRef: {name: settings}}, {secretRef: {name: token}}]\n"
)
CONFIG = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  k: v\n"
SECRET = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: token\ndata:\n  t: dG9rZW4=\n"

BETWEEN = {
    "yaml": "...\n%YAML 1.1\n---\n",
    "tag": "...\n%TAG !k! tag:kubernetes.io,2024:\n---\n",
    "comments": "... # end\n# next\n%YAML 1.1\n\n---\n",
    "two": "...\n%YAML 1.1\n%TAG !k! tag:kubernetes.io,2024:\n---\n",
}


def _stream(between: str, crlf: bool) -> str:
    text = DEPLOY + between + CONFIG + between + SECRET
    return text.replace("\n", "\r\n") if crlf else text


def _names(objects: list[dict]) -> list[tuple[str, str]]:
    return [(o["kind"], o["metadata"]["name"]) for o in objects]


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
@pytest.mark.parametrize("between", BETWEEN.values(), ids=BETWEEN.keys())
@pytest.mark.parametrize("keep", ["auto", "all"])
def test_directives_between_documents_are_read_and_written_where_yaml_allows_them(between, crlf, keep):
    text = _stream(between, crlf)
    result = run_postrender([f"--keep-original={keep}"], text)
    assert result.status == 0, result.stderr
    read_in, read_out = read_streams([text, result.stdout])
    assert _names(read_in) == [("Deployment", "web"), ("ConfigMap", "settings"), ("Secret", "token")]
    out = _names(read_out)
    settings = next(name for kind, name in out if kind == "ConfigMap" and name.startswith("settings-"))
    token = next(name for kind, name in out if kind == "Secret" and name.startswith("token-"))
    # `auto` keeps an unsuffixed copy of the Secret (pods may read it by
    # name); `all` of the ConfigMap as well.
    copies = [("ConfigMap", "settings")] if keep == "all" else []
    assert out == [("Deployment", "web"), ("ConfigMap", settings), *copies, ("Secret", token), ("Secret", "token")]
    env = read_out[0]["spec"]["template"]["spec"]["containers"][0]["envFrom"]
    assert [e.get("configMapRef", e.get("secretRef"))["name"] for e in env] == [settings, token]
    again = run_postrender([f"--keep-original={keep}"], result.stdout)
    assert again.status == 0 and again.stdout == result.stdout


def test_a_file_that_opens_with_directives_is_refused_as_kubectl_refuses_it(tmp_path):
    # kubectl's reader leaves directives before a file's first `---` alone in
    # a first chunk, which go-yaml refuses: so does postrender, even where a
    # file before it would end with `...` once the two are joined.
    opening = "%YAML 1.1\n---\n" + CONFIG
    with pytest.raises(ReadError, match="did not find expected <document start>"):
        read_streams([opening])
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text(DEPLOY + "...\n")
    second.write_text(opening)
    result = run_postrender(["-f", str(first), "-f", str(second)], "")
    assert (result.status, result.stdout) == (1, "")
    assert result.stderr.startswith("postrender: error: document 2 (") and " line 1: a directive" in result.stderr


# Streams around `---` lines and directives, each read by kubectl and by
# postrender. postrender must refuse what kubectl refuses, and read what it
# reads as kubectl does, but for REFUSED_THOUGH_KUBECTL_READS.
SHAPES = {
    "glued comment": CONFIG + "---#x\n" + SECRET,
    "glued comment, crlf": (CONFIG + "---#x\n" + SECRET).replace("\n", "\r\n"),
    "spaced comment": CONFIG + "--- #x\n" + SECRET,
    "tab comment": CONFIG + "---\t#x\n" + SECRET,
    "vertical tab": CONFIG + "---\v\n" + SECRET,
    "no-break space": CONFIG + "---\xa0#x\n" + SECRET,
    "glued, last line": CONFIG + "---#x",
    "glued, last line with a break": CONFIG + "---#x\n",
    "glued after a comment line": "# c\n---#x\n" + CONFIG,
    "glued after a blank line": "\n---#x\n" + CONFIG,
    "glued after ...": CONFIG + "...\n---#x\n" + SECRET,
    "glued after directives": CONFIG + "...\n%YAML 1.1\n---#x\n" + SECRET,
    "glued twice": CONFIG + "---#x\n" + SECRET + "---#y\n" + DEPLOY,
    "glued on the first line": "---#x\n" + CONFIG,
    "glued after a ---": CONFIG + "---\n---#x\n" + SECRET,
    "glued after the first ---": "---\n---#x\n" + CONFIG,
    "glued after a glued": CONFIG + "---#x\n---#x\n" + SECRET,
    "glued after JSON": '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"}}\n---#x\n' + SECRET,
    "glued after JSON and a blank line": '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"}}\n\n---#x\n'
                                         + SECRET,
    "glued in a quoted value": CONFIG.replace("k: v", 'k: "v\n---#x\n  w"') + "---\n" + SECRET,
    "glued in a flow value": CONFIG.replace("k: v", "k: [v,\n---#x\n  w]") + "---\n" + SECRET,
    "glued after a block value": CONFIG.replace("k: v", "k: |\n    v\n---#x\n    w"),
    "glued between a block value and a document": CONFIG.replace("k: v", "k: |\n    v") + "---#x\n" + SECRET,
    "four dashes": CONFIG + "----\n" + SECRET,
    "glued content": CONFIG + "---" + SECRET,
    "content after ---": CONFIG + "--- x\n" + SECRET,
    "block scalar after ---": CONFIG + "--- |\n  text\n---\n" + SECRET,
    "flow mapping after ---": CONFIG + "--- {apiVersion: v1, kind: ConfigMap, metadata: {name: f}}\n",
    "directives first": "%YAML 1.1\n---\n" + CONFIG,
    "tag directive after comments": "# c\n%TAG !k! tag:kubernetes.io,2024:\n---\n" + CONFIG,
    "directives first, crlf": "%YAML 1.1\r\n---\r\n" + CONFIG.replace("\n", "\r\n"),
    "directives after ...": CONFIG + "...\n%YAML 1.1\n---\n" + SECRET,
    "unknown directive after ...": CONFIG + "...\n%FOO bar\n---\n" + SECRET,
    "YAML 2.0 after ...": CONFIG + "...\n%YAML 2.0\n---\n" + SECRET,
    "tag used after ...": CONFIG + "...\n%TAG !k! tag:kubernetes.io,2024:\n---\n" + SECRET.replace("t: ", "t: !k!x "),
    "directives after ---": CONFIG + "---\n%YAML 1.1\n---\n" + SECRET,
    "directives after ... that ends no document": CONFIG + "---\n...\n%YAML 1.1\n---\n" + SECRET,
    "directives after the first ---": "---\n%YAML 1.1\n---\n" + CONFIG,
    "directives after content": CONFIG + "%YAML 1.1\n---\n" + SECRET,
    "directives last": CONFIG + "...\n%YAML 1.1\n",
    "text after ...": CONFIG + "...\nleft: [\n---\n" + SECRET,
}
# go-yaml reads a chunk's first document only: kubectl ignores what follows
# its end (directives with no `...` before them, or text after one) where
# YAML refuses it; and a `---#x` after a `---` line is dropped or kept by
# kubectl by turns, which a copy or another file written before could flip.
REFUSED_THOUGH_KUBECTL_READS = {
    "glued after the first ---", "directives after the first ---", "directives after content", "directives last",
    "text after ...",
}


@pytest.mark.parametrize("text", SHAPES.values(), ids=SHAPES.keys())
def test_separators_and_directives_are_read_as_kubectl_reads_them(request, text):
    shape = request.node.callspec.id
    result = run_postrender(["--keep-original=all"], text)
    if result.status != 0:
        assert result.status == 1 and result.stdout == "" and len(result.stderr.splitlines()) == 1, result.stderr
        assert result.stderr.startswith("postrender: error: document ")
        if shape in REFUSED_THOUGH_KUBECTL_READS:
            read_streams([text])
        else:
            with pytest.raises(ReadError):
                read_streams([text])
        return
    assert shape not in REFUSED_THOUGH_KUBECTL_READS
    read_in, read_out = read_streams([text, result.stdout])
    base = {(o["kind"], o["metadata"]["name"]) for o in read_in}
    # Each object as it was, or renamed where a workload names it, and the kept copy.
    assert {(kind, name.split("-")[0]) for kind, name in _names(read_out)} == base
    for line in text.splitlines():
        if line.startswith("---") or line.startswith("%"):
            assert line in result.stdout  # written back as it was
