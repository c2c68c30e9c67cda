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


def test_a_file_that_opens_with_directives_follows_another_after_a_document_end(tmp_path):
    # kubectl reads the directives of a stream's first document only after
    # a `...`: joining two files, postrender writes one between them.
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text(DEPLOY)
    second.write_text("%YAML 1.1\n---\n" + CONFIG)
    result = run_postrender(["-f", str(first), "-f", str(second)], "")
    assert result.status == 0, result.stderr
    assert "\n...\n%YAML 1.1\n---\n" in result.stdout
    [objects] = read_streams([result.stdout])
    assert [kind for kind, _ in _names(objects)] == ["Deployment", "ConfigMap"]


@pytest.mark.parametrize("line", ["---apiVersion: v1", "----", "---#comment"])
def test_kubectl_splits_or_refuses_where_yaml_reads_no_marker(line):
    # libyaml reads `---x` as text; kubectl's reader splits documents at it,
    # or refuses it. postrender refuses it, rather than read one thing and
    # hand the deployer another.
    text = CONFIG + line + "\n" + SECRET.removeprefix("apiVersion: v1\n" if line.startswith("---api") else "")
    try:
        [objects] = read_streams([text])
    except ReadError as exc:
        assert "invalid Yaml document separator" in str(exc)
    else:
        assert _names(objects) == [("ConfigMap", "settings"), ("Secret", "token")]
    result = run_postrender([], text)
    assert result.status == 1 and result.stdout == ""
    assert "YAML reads no document marker there" in result.stderr
