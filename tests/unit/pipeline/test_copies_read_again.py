"""A keep-original copy read again (plan/copies.py): postrender's own output
rendered once more, as kpt writes a function's answer back over the
package and a GitOps repo commits it (krm62).

A copy whose data is its version's follows the version's new name; one
whose data differs from it, whichever of the two was edited, is refused,
naming both: which edit is meant is not postrender's to guess.
"""

from __future__ import annotations

import io
import json

import pytest
from ruamel.yaml import YAML

from conftest import run_postrender

CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
  namespace: shop
data:
  foo: bar
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  template:
    spec:
      containers:
      - name: web
        image: x
        envFrom:
        - configMapRef:
            name: app-config
"""

SECRET = CONFIG.replace("kind: ConfigMap", "kind: Secret").replace("data:\n  foo: bar", "stringData:\n  pw: hunter2") \
    .replace("configMapRef", "secretRef").replace("app-config", "creds")


def _docs(text: str) -> list[dict]:
    return [d for d in YAML(typ="safe").load_all(text) if d]


def _by_name(text: str) -> dict[str, dict]:
    return {f"{d['kind']}/{d['metadata']['name']}": d for d in _docs(text)}


def _first(stream: str = CONFIG, args: tuple[str, ...] = ("--keep-original=all",)) -> str:
    first = run_postrender(list(args), stream)
    assert first.status == 0, first.stderr
    return first.stdout


def _edit(text: str, name: str, old: str, new: str) -> str:
    """`text` with `old` replaced by `new` in the document of metadata.name `name` alone."""
    docs = text.split("---\n")
    (at,) = [i for i, doc in enumerate(docs) if f"\n  name: {name}\n" in doc]
    assert old in docs[at]
    docs[at] = docs[at].replace(old, new)
    return "---\n".join(docs)


def _copy_of(out: dict[str, dict], copy: str) -> str:
    return out[copy]["metadata"]["annotations"]["postrender.io/copy-of"]


def test_a_copy_edited_alike_with_its_version_follows_the_versions_new_name():
    first = _first()
    edited = first.replace("foo: bar", "foo: baz")
    again = run_postrender(["--keep-original=all"], edited)
    assert again.status == 0, again.stderr
    out = _by_name(again.stdout)
    (version,) = [name for name in out if name.startswith("ConfigMap/app-config-")]
    assert version != "ConfigMap/app-config-798k5k7g9f"
    assert _copy_of(out, "ConfigMap/app-config") == version.split("/")[1], "it names the version the output holds"
    assert out["ConfigMap/app-config"]["data"] == {"foo": "baz"}
    # Only the annotation: the rest of the copy as written.
    copy_text = [doc for doc in again.stdout.split("---\n") if "  name: app-config\n" in doc]
    assert copy_text == [doc.replace("app-config-798k5k7g9f", version.split("/")[1])
                         for doc in edited.split("---\n") if "  name: app-config\n" in doc]
    assert run_postrender(["--keep-original=all"], again.stdout).stdout == again.stdout


@pytest.mark.parametrize("edited", ["app-config-798k5k7g9f", "app-config", "both"])
def test_a_copy_whose_data_is_not_its_versions_is_refused_naming_both(edited):
    first = _first()
    if edited == "both":
        text = _edit(_edit(first, "app-config", "foo: bar", "foo: one"), "app-config-798k5k7g9f", "foo: bar",
                     "foo: two")
    else:
        text = _edit(first, edited, "foo: bar", "foo: baz")
    result = run_postrender(["--keep-original=all"], text)
    assert result.status == 1 and result.stdout == ""
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    # At the copy's copy-of annotation: the name the user mends.
    assert "document 2 (ConfigMap/app-config) line 21" in line
    assert text.splitlines()[20] == "    postrender.io/copy-of: app-config-798k5k7g9f"
    assert "document 1 (ConfigMap/app-config-798k5k7g9f) line 1:" in line
    assert "Make the same change in both" in line and "delete the copy" in line
    assert "the two were edited differently, or only one of them" in line


def test_the_refusal_never_shows_a_secrets_value():
    first = _first(SECRET, ())
    (version,) = [name for name in _by_name(first) if name.startswith("Secret/creds-")]
    result = run_postrender([], _edit(first, version.split("/")[1], "pw: hunter2", "pw: hunter3"))
    assert result.status == 1 and result.stdout == ""
    assert "(Secret/creds) line" in result.stderr and f"({version}) line" in result.stderr
    assert "hunter" not in result.stderr


def test_each_copy_that_differs_is_said():
    stream = CONFIG + "---\n" + CONFIG.split("---\n")[0].replace("app-config", "other") \
        + "---\n" + CONFIG.split("---\n")[1].replace("app-config", "other").replace("name: web", "name: web2")
    first = _first(stream)
    text = _edit(_edit(first, "app-config-798k5k7g9f", "foo: bar", "foo: baz"), "other", "foo: bar", "foo: baz")
    result = run_postrender(["--keep-original=all"], text)
    assert result.status == 1 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 2 and "(ConfigMap/app-config) line" in lines[0] and "(ConfigMap/other) line" in lines[1]


def test_a_copy_in_another_namespace_or_of_a_version_not_in_the_stream_is_left_as_written():
    first = _first()
    moved = _edit(first, "app-config", "namespace: shop", "namespace: other")
    for text in (moved.replace("foo: bar", "foo: baz", 1), _edit(first, "app-config", "foo: bar", "foo: baz")
                 .replace("postrender.io/copy-of: app-config-798k5k7g9f", "postrender.io/copy-of: gone")):
        result = run_postrender(["--keep-original=all"], text)
        assert result.status == 0, result.stderr
        copy = [d for d in _docs(result.stdout) if d["metadata"]["name"] == "app-config"][0]
        assert copy == [d for d in _docs(text) if d["metadata"]["name"] == "app-config"][0]


def _as_list(text: str) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": _docs(text)}, indent=1) + "\n"


def test_a_copy_in_a_list_follows_its_version_or_is_refused():
    first = _first(_as_list(CONFIG))
    assert '"postrender.io/copy-of": "app-config-798k5k7g9f"' in first
    again = run_postrender(["--keep-original=all"], first.replace("bar", "baz"))
    assert again.status == 0, again.stderr
    (items,) = [d["items"] for d in _docs(again.stdout)]
    (version,) = [i["metadata"]["name"] for i in items if i["metadata"]["name"].startswith("app-config-")]
    (copy,) = [i for i in items if i["metadata"]["name"] == "app-config"]
    assert copy["metadata"]["annotations"]["postrender.io/copy-of"] == version != "app-config-798k5k7g9f"
    assert run_postrender(["--keep-original=all"], again.stdout).stdout == again.stdout
    copy_line = next(line for line in first.splitlines() if '"postrender.io/copy-of"' in line)
    refused = run_postrender(["--keep-original=all"], first.replace(copy_line, copy_line.replace("bar", "baz")))
    assert refused.status == 1 and refused.stdout == "" and "holds other data" in refused.stderr


@pytest.mark.parametrize("args", [["--keep-previous=flux"], ["--keep-previous=argocd", "--scope=s"]])
def test_a_run_that_keeps_previous_versions_follows_and_refuses_alike(args):
    first = _first(args=("--keep-original=all", *args))
    again = run_postrender(["--keep-original=all", *args], first.replace("foo: bar", "foo: baz"))
    assert again.status == 0, again.stderr
    out = _by_name(again.stdout)
    (version,) = [name for name in out if name.startswith("ConfigMap/app-config-")]
    assert _copy_of(out, "ConfigMap/app-config") == version.split("/")[1]
    assert run_postrender(["--keep-original=all", *args], again.stdout).stdout == again.stdout
    refused = run_postrender(["--keep-original=all", *args], _edit(first, "app-config", "foo: bar", "foo: baz"))
    assert refused.status == 1 and refused.stdout == "" and "holds other data" in refused.stderr


def test_a_keep_original_none_run_still_follows_a_copy_in_the_stream():
    # The copy is in the stream, opted out: whatever the mode, a copy of no
    # version the output holds would be left behind.
    first = _first()
    again = run_postrender(["--keep-original=none"], first.replace("foo: bar", "foo: baz"))
    assert again.status == 0, again.stderr
    out = _by_name(again.stdout)
    (version,) = [name for name in out if name.startswith("ConfigMap/app-config-")]
    assert _copy_of(out, "ConfigMap/app-config") == version.split("/")[1]


KRM_HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"


def _resource_list(text: str) -> str:
    return KRM_HEAD + "".join(f"- {json.dumps(doc)}\n" for doc in _docs(text))


def test_a_resource_list_read_again_follows_or_answers_with_an_error_result():
    first = _first(_resource_list(SECRET), ())
    rotated = first.replace("hunter2", "hunter3")
    again = run_postrender([], rotated)
    assert again.status == 0, again.stderr
    rl = YAML(typ="safe").load(again.stdout)
    (version,) = [i["metadata"]["name"] for i in rl["items"] if i["metadata"]["name"].startswith("creds-")]
    (copy,) = [i for i in rl["items"] if i["metadata"]["name"] == "creds"]
    assert copy["metadata"]["annotations"]["postrender.io/copy-of"] == version
    assert "results" not in rl
    assert run_postrender([], again.stdout).stdout == again.stdout, "kpt fn render run again changes nothing"

    # Only the version rotated: the copy would go on serving the old password.
    lines = first.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"name": "creds-' in line)
    stale = "".join(lines[:at]) + "".join(lines[at:]).replace("hunter2", "hunter3")
    refused = run_postrender([], stale)
    assert refused.status == 1
    rl = YAML(typ="safe").load(refused.stdout)
    assert rl["items"] == YAML(typ="safe").load(stale)["items"], "the items come back untouched"
    (error,) = rl["results"]
    assert error["severity"] == "error" and "holds other data" in error["message"]
    assert error["resourceRef"]["name"] == "creds" and "hunter" not in refused.stdout.split("results:")[1]


def test_diff_and_graph_read_a_copy_read_again_as_a_render_does(tmp_path):
    first = _first()
    old, alike, stale = tmp_path / "old.yaml", tmp_path / "alike.yaml", tmp_path / "stale.yaml"
    old.write_text(first)
    alike.write_text(first.replace("foo: bar", "foo: baz"))
    stale.write_text(_edit(first, "app-config-798k5k7g9f", "foo: bar", "foo: baz"))
    diffed = run_postrender(["diff", "--keep-original=all", str(old), str(alike)])
    assert diffed.status == 0, diffed.stderr
    assert "Deployment/shop/web" in diffed.stdout
    graphed = run_postrender(["graph", "--keep-original=all", str(alike)])
    assert graphed.status == 0, graphed.stderr
    for args in (["diff", "--keep-original=all", str(old), str(stale)], ["graph", "--keep-original=all", str(stale)]):
        refused = run_postrender(args)
        assert refused.status == 1 and refused.stdout == "", refused.stdout
        assert "holds other data" in refused.stderr and "Traceback" not in refused.stderr


def test_a_copy_whose_data_names_a_renamed_config_follows_its_version(tmp_path):
    # Both hashed as written out: the name in the copy's data is rewritten
    # as the version's is, so a copy of a config whose data names another
    # (a --config field spec) matches its version, and follows it.
    specs = tmp_path / "specs.yaml"
    specs.write_text("nameReference:\n- kind: ConfigMap\n  fieldSpecs:\n  - {kind: ConfigMap, path: data/configmap}\n")
    stream = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {v: '1', configmap: b}\n---\n"
              "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {v: '1'}\n---\n"
              + CONFIG.split("---\n")[1].replace("  namespace: shop\n", "").replace("app-config", "a"))
    args = ("--config", str(specs), "--keep-original=all")
    first = _first(stream, args)
    assert run_postrender(list(args), first).stdout == first
    again = run_postrender(list(args), first.replace("data: {v: '1'}", "data: {v: '2'}"))
    assert again.status == 0, again.stderr
    out = _by_name(again.stdout)
    for base in ("a", "b"):
        (version,) = [name for name in out if name.startswith(f"ConfigMap/{base}-")]
        assert _copy_of(out, f"ConfigMap/{base}") == version.split("/")[1]
    assert run_postrender(list(args), again.stdout).stdout == again.stdout


def _around(text: str, before: str, after: str) -> str:
    """`text` as an overlay's namePrefix `before` and nameSuffix `after`
    leave it: every name and every reference renamed, every annotation as
    written (kustomize rewrites no copy-of)."""
    docs = _docs(text)
    for doc in docs:
        doc["metadata"]["name"] = before + doc["metadata"]["name"] + after
        for source in doc.get("spec", {}).get("template", {}).get("spec", {}).get("containers", [{}])[0] \
                .get("envFrom", []):
            ref = source["secretRef"]
            ref["name"] = before + ref["name"] + after
    out = io.StringIO()
    YAML().dump_all(docs, out)
    return out.getvalue()


AROUND = [("o-", ""), ("", "-s"), ("o-", "-s")]


def _version_of(out: dict[str, dict], before: str, after: str) -> str:
    (version,) = [name.split("/")[1] for name in out
                  if name.startswith(f"Secret/{before}creds-") and name.endswith(after)
                  and name != f"Secret/{before}creds{after}"]
    return version


@pytest.mark.parametrize("before, after", AROUND)
def test_a_copy_renamed_around_with_its_version_follows_it(before, after):
    first = _first(SECRET, ())
    renamed = _around(first, before, after)
    assert "postrender.io/copy-of: creds-" in renamed
    copy = f"Secret/{before}creds{after}"
    # As written: the copy-of names the version by the name it has now.
    again = run_postrender([], renamed)
    assert again.status == 0, again.stderr
    out = _by_name(again.stdout)
    version = _version_of(out, before, after)
    assert version == before + _copy_of(_by_name(first), "Secret/creds") + after
    assert _copy_of(out, copy) == version
    # Edited alike: the version is renamed, prefix and suffix kept, and the copy follows it.
    alike = run_postrender([], renamed.replace("hunter2", "hunter3"))
    assert alike.status == 0, alike.stderr
    out = _by_name(alike.stdout)
    moved = _version_of(out, before, after)
    assert moved != version and moved.startswith(before + "creds-") and moved.endswith(after)
    assert _copy_of(out, copy) == moved
    assert run_postrender([], alike.stdout).stdout == alike.stdout


@pytest.mark.parametrize("edited", ["copy", "version", "both"])
@pytest.mark.parametrize("before, after", AROUND)
def test_a_copy_renamed_around_whose_data_is_not_its_versions_is_refused(before, after, edited):
    renamed = _around(_first(SECRET, ()), before, after)
    docs = renamed.split("---\n")
    for at, doc in enumerate(docs):
        is_copy = "copy-of" in doc
        if edited == "both" or (edited == "copy") == is_copy:
            docs[at] = doc.replace("hunter2", "hunter3" if is_copy else "hunter4")
    text = "---\n".join(docs)
    result = run_postrender([], text)
    assert result.status == 1 and result.stdout == "", result.stdout
    (line,) = result.stderr.splitlines()
    assert f"(Secret/{before}creds{after}) line" in line and f"(Secret/{before}creds-" in line
    assert "holds other data" in line and "hunter" not in line and "Traceback" not in line


def test_a_stream_holding_a_copy_and_its_copy_renamed_around_follows_each_its_own_version():
    # Two overlays of one base in one build: `creds` and `o-creds` both say
    # copy-of creds-<hash>; the prefixed copy is its prefixed version's.
    first = _first(SECRET, ())
    prefixed = _around(first, "o-", "").replace("hunter2", "hunter3")
    again = run_postrender([], first + "---\n" + prefixed)
    assert again.status == 0, again.stderr
    out = _by_name(again.stdout)
    assert _copy_of(out, "Secret/creds") == _copy_of(_by_name(first), "Secret/creds")
    moved = _version_of(out, "o-", "")
    assert _copy_of(out, "Secret/o-creds") == moved and out[f"Secret/{moved}"]["stringData"] == {"pw": "hunter3"}
