"""postrender's suffix is kustomize's: checked against real `kubectl kustomize`.

fixtures/kustomize/hash generates ConfigMaps and Secrets whose content
stresses the hash (Go's JSON escapes for <, > and &, U+2028/U+2029,
non-ASCII, multi-line and binary values, Secret types). The same objects,
with kustomize's suffix taken off, go through postrender, which must name
each exactly as kustomize did.
"""

from __future__ import annotations

import base64
import json
import random
import re
import subprocess

from conftest import FIXTURES, require_tool, run_postrender
from manifests import configs, documents, tool_env
from oracles import NEEDS_HASH, kustomize_hashes, yaml_quoted

HASH_FIXTURE = FIXTURES / "kustomize" / "hash"
EXPECTED = {
    ("ConfigMap", "literals"),
    ("ConfigMap", "files"),
    ("ConfigMap", "envfile"),
    ("Secret", "opaque"),
    ("Secret", "tls"),
}


def kustomize_build() -> str:
    kubectl = require_tool("kubectl")
    result = subprocess.run([kubectl, "kustomize", str(HASH_FIXTURE)], capture_output=True, text=True, env=tool_env())
    assert result.returncode == 0, result.stderr
    return result.stdout


def unsuffixed(text: str) -> tuple[str, dict[tuple[str, str], str]]:
    """kustomize's output, its own bytes, with each generated name put back to its base."""
    names: dict[tuple[str, str], str] = {}
    out = []
    for chunk in re.split(r"^---\n", text, flags=re.M):
        kind = re.search(r"^kind: (\S+)$", chunk, re.M).group(1)
        match = re.search(r"^  name: (?P<base>\S+)-(?P<hash>[a-z0-9]{10})$", chunk, re.M)
        assert match, chunk
        names[(kind, match.group("base"))] = f"{match.group('base')}-{match.group('hash')}"
        out.append(chunk[: match.start()] + f"  name: {match.group('base')}" + chunk[match.end() :])
    return "---\n".join(out), names


def as_json(text: str) -> tuple[str, dict[tuple[str, str], str]]:
    """The same objects as JSON documents, names unsuffixed."""
    names: dict[tuple[str, str], str] = {}
    out = []
    for doc in documents(text):
        name = doc["metadata"]["name"]
        base = name.rsplit("-", 1)[0]
        names[(doc["kind"], base)] = name
        doc["metadata"]["name"] = base
        # Non-ASCII stays literal (YAML refuses JSON's surrogate-pair escapes),
        # except the line separators libyaml would count as line breaks.
        line = json.dumps(doc, ensure_ascii=False)
        out.append(line.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
    return "\n---\n".join(out) + "\n", names


def postrender_names(stream: str) -> dict[tuple[str, str], str]:
    # Nothing references these objects: --version-all names them all.
    result = run_postrender(["--version-all"], stream)
    assert result.status == 0, result.stderr
    return {
        (d["kind"], d["metadata"]["labels"]["postrender.io/base-name"]): d["metadata"]["name"]
        for d in configs(documents(result.stdout)).values()
        if "postrender.io/copy-of" not in (d["metadata"].get("annotations") or {})
    }


def test_fixture_covers_the_hard_cases():
    built = kustomize_build()
    docs = {name.rsplit("-", 1)[0]: d for (_, name), d in configs(documents(built)).items()}
    literals = docs["literals"]["data"]
    assert {"<", ">", "&"} <= set(literals["html"])
    assert "\u2028" in literals["separators-unicode"] and "\u2029" in literals["separators-unicode"]
    assert "\n" in literals["multiline"] and "🚀" in literals["unicode"]
    assert "blob.bin" in docs["files"]["binaryData"]
    assert docs["tls"]["type"] == "kubernetes.io/tls"


def test_postrender_names_generated_objects_exactly_as_kustomize():
    stream, kustomize_names = as_json(kustomize_build())
    assert set(kustomize_names) == EXPECTED
    assert postrender_names(stream) == kustomize_names


def test_kustomize_output_as_written_without_line_separators():
    stream, kustomize_names = unsuffixed(kustomize_build())
    chunks = [c for c in stream.split("---\n") if "\u2028" not in c and "\u2029" not in c]
    assert len(chunks) == len(EXPECTED) - 1
    expected = {key: name for key, name in kustomize_names.items() if key != ("ConfigMap", "literals")}
    assert postrender_names("---\n".join(chunks)) == expected


def test_kustomize_output_as_written_with_line_separators():
    stream, kustomize_names = unsuffixed(kustomize_build())
    assert postrender_names(stream) == kustomize_names


def _large(kind: str, name: str, field: str, entries: list[tuple[str, str]], extra: str = "") -> str:
    lines = [f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: {name}\n{extra}{field}:\n"]
    lines.extend(f"  {key}: {value}\n" for key, value in entries)
    return "".join(lines)


def _alphabetical(text: str) -> str:
    """A `_large` object with its keys in kustomize's and kubectl's order:
    `apiVersion`, its data, `kind`, `metadata`, `type`."""
    head, _, data = text.partition("metadata:\n")
    name, extra, field = re.match(r"(  name: .*\n)((?:type: .*\n)?)(\w+:\n)", data).groups()
    entries = data[len(name) + len(extra) + len(field):]
    api_version, kind = head.splitlines()
    return f"{api_version}\n{field}{entries}{kind}\nmetadata:\n{name}{extra}"


def test_large_configs_read_entry_by_entry_are_named_as_kustomize_names_them():
    """Past read.compose.DROP_FROM a config's data is hashed from its entries as they
    are composed, sorted in runs and merged (index/folding.py): shuffled keys
    over many runs, values Go's JSON escapes, non-ASCII and block text, must
    still give kustomize's name."""
    from postrender.syntax.runs import RUN
    from postrender.pipeline.read.compose import DROP_FROM

    rng = random.Random(12)
    count = RUN + 123  # two runs
    # No `&`: it may be an anchor, and keeps a document whole.
    values = [yaml_quoted("<b>x</b>"), yaml_quoted("é\u2028ü"), "plain text", "'it''s'", "|\n    one\n    two"]
    data = [(f"key.{i}", values[i % len(values)]) for i in range(count)]
    rng.shuffle(data)
    encoded = [(f"k-{i}", base64.b64encode(f"value {i} <>".encode()).decode()) for i in range(count)]
    rng.shuffle(encoded)
    objects = {
        "big-config": _large("ConfigMap", "big-config", "data", data),
        "big-binary": _large("ConfigMap", "big-binary", "binaryData", encoded),
        "big-secret": _large("Secret", "big-secret", "data", encoded, "type: Opaque\n"),
    }
    for text in objects.values():
        assert len(text) >= DROP_FROM and "&" not in text  # read entry by entry
    annotated = [text.replace("metadata:\n", f"metadata:\n  annotations: {{{NEEDS_HASH}: enabled}}\n")
                 for text in objects.values()]
    expected = kustomize_hashes(annotated)
    got = postrender_names("---\n".join(objects.values()))
    assert {base: got[(kind, base)] for kind, base in got} == {base: f"{base}-{h}" for base, h in expected.items()}
    # Written as kustomize writes them, data before kind: read entry by
    # entry before the kind is known (syntax.nodes.DroppingComposer._undecided).
    alphabetical = [_alphabetical(text) for text in objects.values()]
    assert all(text.index("kind:") > text.index("Data:" if "binaryData" in text else "data:") for text in alphabetical)
    got = postrender_names("---\n".join(alphabetical))
    assert {base: got[(kind, base)] for kind, base in got} == {base: f"{base}-{h}" for base, h in expected.items()}
    # The same three as the items of one List, each read entry by entry as
    # it is composed (read.parts._DroppingItems). No copy kept: an item that may
    # be copied is read whole.
    from postrender.pipeline.read.compose import _may_hold_a_large_item

    listed = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        "- " + text.rstrip("\n").replace("\n", "\n  ") + "\n" for text in objects.values())
    assert _may_hold_a_large_item(listed)
    result = run_postrender(["--version-all", "--keep-original=none"], listed)
    assert result.status == 0, result.stderr
    [as_list] = documents(result.stdout)
    named = {item["metadata"]["labels"]["postrender.io/base-name"]: item["metadata"]["name"] for item in as_list["items"]}
    assert named == {base: f"{base}-{h}" for base, h in expected.items()}


def test_a_configmap_whose_data_names_configs_is_named_by_kustomize_over_its_data_as_written_out(tmp_path):
    # A --config field spec into a ConfigMap's data: the reference is
    # rewritten, and the name is kustomize's hash of the data as written
    # out, not as read (that would keep one immutable name for new data).
    specs = tmp_path / "specs.yaml"
    specs.write_text("nameReference:\n"
                     "- kind: ConfigMap\n  fieldSpecs: [{kind: ConfigMap, path: data/configmap}]\n"
                     "- kind: Secret\n  fieldSpecs: [{kind: ConfigMap, path: data/secret}]\n")
    stream = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {configmap: b, secret: s, x: '1'}\n---\n"
              "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {secret: s}\n---\n"
              "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ntype: Opaque\ndata: {k: dg==}\n---\n"
              "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n"
              "      containers: [{name: c, image: x, envFrom: [{configMapRef: {name: a}}]}]\n")
    result = run_postrender(["--config", str(specs)], stream)
    assert result.status == 0, result.stderr
    versions = {d["metadata"]["labels"]["postrender.io/base-name"]: d
                for d in configs(documents(result.stdout)).values()
                if "postrender.io/copy-of" not in (d["metadata"].get("annotations") or {})}
    assert versions["a"]["data"]["configmap"] == versions["b"]["metadata"]["name"]
    assert versions["b"]["data"]["secret"] == versions["a"]["data"]["secret"] == versions["s"]["metadata"]["name"]
    oracle = []
    for base, doc in versions.items():
        fields = {key: doc[key] for key in ("type", "data") if key in doc}
        oracle.append(json.dumps({"apiVersion": "v1", "kind": doc["kind"],
                                  "metadata": {"name": base, "annotations": {NEEDS_HASH: "enabled"}}, **fields}) + "\n")
    hashes = kustomize_hashes(oracle)
    assert {base: doc["metadata"]["name"] for base, doc in versions.items()} == {
        base: f"{base}-{hashes[base]}" for base in versions}
