"""A config whose own data holds a reference (a `--config` field spec into
a ConfigMap's data, naming another ConfigMap or a Secret; no field spec
reads a Secret's values) is
named by the hash of its data as written out, with the reference
rewritten: its name then changes exactly when what it will hold does.

Hashed as written, a change to the named config alone left the referrer's
name, and its immutable data, different under one name (the apply is
refused), and a second run renamed it. So the named configs are named
first, and configs that name each other in their data are refused."""

from __future__ import annotations

import itertools

import pytest

from conftest import run_postrender
from manifests import configs, documents, without_copies

FIELDS = {"ConfigMap": "data", "Secret": "stringData"}


# The data key naming a config of each kind.
KEYS = {"ConfigMap": "configmap", "Secret": "secret"}


def _specs(tmp_path) -> str:
    rows = "".join(f"- kind: {target}\n  fieldSpecs:\n  - {{kind: ConfigMap, path: data/{key}}}\n"
                   for target, key in KEYS.items())
    path = tmp_path / "specs.yaml"
    path.write_text("nameReference:\n" + rows)
    return str(path)


def _config(kind: str, name: str, other: str | None = None, value: str = "1", opted_out: bool = False,
            other_kind: str = "ConfigMap") -> str:
    """`other`: the name of a config of `other_kind` its data holds."""
    field = FIELDS[kind]
    entries = f"v: {value!r}" + (f", {KEYS[other_kind]}: {other}" if other is not None else "")
    labels = ', labels: {postrender.io/versioned: "false"}' if opted_out else ""
    return f"apiVersion: v1\nkind: {kind}\nmetadata: {{name: {name}{labels}}}\n{field}: {{{entries}}}\n---\n"


def _workload(*uses: tuple[str, str]) -> str:
    refs = ", ".join(f"{{{'configMapRef' if kind == 'ConfigMap' else 'secretRef'}: {{name: {name}}}}}"
                     for kind, name in uses)
    return ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n"
            f"      containers: [{{name: c, image: x, envFrom: [{refs}]}}]\n")


def _render(stream: str, specs: str, *flags: str):
    result = run_postrender(["--config", specs, *flags], stream)
    assert result.status == 0, result.stderr
    return result.stdout


def _versions(out: str) -> dict[tuple[str, str], dict]:
    """Each versioned config of the output, by kind and base name."""
    docs = [item for doc in documents(out) for item in (doc["items"] if doc["kind"] == "List" else [doc])]
    return {(kind, d["metadata"]["labels"]["postrender.io/base-name"]): d
            for (kind, _), d in configs(without_copies(docs)).items()
            if "postrender.io/base-name" in (d["metadata"].get("labels") or {})}


def _content(doc: dict) -> str:
    """A config as a stream of its own, its content as written out, its
    base name, nothing naming anything: postrender names it by that content
    alone (--version-all)."""
    kind, field = doc["kind"], FIELDS[doc["kind"]]
    base = doc["metadata"]["labels"]["postrender.io/base-name"]
    entries = ", ".join(f"{key}: {value!r}" for key, value in doc[field].items())
    return f"apiVersion: v1\nkind: {kind}\nmetadata: {{name: {base}}}\n{field}: {{{entries}}}\n"


def _named_by_written_content(out: str, specs: str) -> None:
    for (kind, base), doc in _versions(out).items():
        alone = _versions(_render(_content(doc), specs, "--version-all"))[(kind, base)]
        assert doc["metadata"]["name"] == alone["metadata"]["name"], (kind, base, doc)


# Runs that make a config's edits otherwise (ahead as it is read, with its
# retention marks, with or without copies; Helm 3 copies every version, as
# --keep-original=all).
RUNS = {"plain": (), "keep-previous": ("--keep-previous=argocd",), "copies": ("--keep-original=all",),
        "copies and keep-previous": ("--keep-original=all", "--keep-previous=argocd"),
        "no copies": ("--keep-original=none",), "mutable": ("--mutable",)}


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("target", FIELDS)
@pytest.mark.parametrize("target_first", [True, False])
def test_a_config_is_named_by_its_data_as_written_out(target, target_first, run, tmp_path):
    referrer = "ConfigMap"
    specs = _specs(tmp_path)
    a, b = _config(referrer, "a", other="b", other_kind=target), _config(target, "b")
    out = _render((b + a if target_first else a + b) + _workload((referrer, "a"), (target, "b")), specs, *RUNS[run])
    versions = _versions(out)
    b_name = versions[(target, "b")]["metadata"]["name"]
    assert versions[(referrer, "a")]["data"][KEYS[target]] == b_name
    _named_by_written_content(out, specs)
    assert _render(out, specs, *RUNS[run]) == out, "a second run renames nothing"


@pytest.mark.parametrize("target", FIELDS)
def test_a_change_to_the_named_config_alone_renames_the_config_naming_it(target, tmp_path):
    referrer = "ConfigMap"
    specs = _specs(tmp_path)
    names = []
    for value in ("1", "2"):
        out = _render(_config(referrer, "a", other="b", other_kind=target) + _config(target, "b", value=value)
                      + _workload((referrer, "a")), specs)
        names.append(_versions(out)[(referrer, "a")]["metadata"]["name"])
    assert names[0] != names[1], "new data under an immutable name"


@pytest.mark.parametrize("order", list(itertools.permutations("abc")))
def test_a_chain_is_named_from_its_end_whatever_the_order(order, tmp_path):
    specs = _specs(tmp_path)
    written = {"a": _config("ConfigMap", "a", other="b"), "b": _config("ConfigMap", "b", other="c", other_kind="Secret"),
               "c": _config("Secret", "c")}
    stream = "".join(written[name] for name in order) + _workload(("ConfigMap", "a"))
    out = _render(stream, specs)
    versions = _versions(out)
    assert versions[("ConfigMap", "a")]["data"]["configmap"] == versions[("ConfigMap", "b")]["metadata"]["name"]
    assert versions[("ConfigMap", "b")]["data"]["secret"] == versions[("Secret", "c")]["metadata"]["name"]
    _named_by_written_content(out, specs)
    first = _render("".join(written[name] for name in "abc") + _workload(("ConfigMap", "a")), specs)
    assert {key: d["metadata"]["name"] for key, d in versions.items()} == {
        key: d["metadata"]["name"] for key, d in _versions(first).items()}


LOOPS = {
    "itself": [("ConfigMap", "a", "a")],
    "two ConfigMaps": [("ConfigMap", "a", "b"), ("ConfigMap", "b", "a")],
    "three": [("ConfigMap", "a", "b"), ("ConfigMap", "b", "c"), ("ConfigMap", "c", "a")],
}


@pytest.mark.parametrize("loop", LOOPS)
def test_configs_naming_each_other_in_their_data_are_refused_with_the_line(loop, tmp_path):
    members = LOOPS[loop]
    specs = _specs(tmp_path)
    stream = "".join(_config(kind, name, other=other) for kind, name, other in members)
    result = run_postrender(["--config", specs], stream + _workload(*[(k, n) for k, n, _ in members]))
    assert result.status == 1 and result.stdout == "", result.stderr
    assert "name each other in their data" in result.stderr and " line " in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_a_loop_through_a_config_that_keeps_its_name_is_no_loop(tmp_path):
    # b is opted out: its name never follows its content, so a waits for
    # nothing and b's data gets a's new name.
    specs = _specs(tmp_path)
    stream = _config("ConfigMap", "a", other="b") + _config("ConfigMap", "b", other="a", opted_out=True)
    out = _render(stream + _workload(("ConfigMap", "a"), ("ConfigMap", "b")), specs)
    docs = {d["metadata"]["name"]: d for d in documents(out) if d["kind"] == "ConfigMap"}
    a_name = next(name for name in docs if name.startswith("a-"))
    assert docs["b"]["data"]["configmap"] == a_name and docs[a_name]["data"]["configmap"] == "b"
    _named_by_written_content(out, specs)
    assert _render(out, specs) == out


def test_a_config_keeping_its_name_has_its_workloads_hashed_over_its_data_as_written_out(tmp_path):
    # a keeps its name (opted out), so only the pod template's config hash
    # can roll its workload: it must follow what a holds once written, b's
    # new name, when only b changed.
    specs = _specs(tmp_path)
    hashes = []
    for value in ("1", "2"):
        stream = (_config("ConfigMap", "a", other="b", opted_out=True) + _config("ConfigMap", "b", value=value)
                  + _workload(("ConfigMap", "a")))
        [web] = [d for d in documents(_render(stream, specs)) if d["kind"] == "Deployment"]
        hashes.append(web["spec"]["template"]["metadata"]["annotations"]["postrender.io/config-hash"])
    assert hashes[0] != hashes[1]


def _as_list(stream: str) -> str:
    """The stream's documents as the items of one List."""
    import json

    items = [json.dumps(doc) for doc in documents(stream)]
    return "apiVersion: v1\nkind: List\nitems:\n" + "".join(f"- {item}\n" for item in items)


@pytest.mark.parametrize("run", RUNS)
def test_a_list_names_alike_and_a_large_document_reads_alike(run, tmp_path, monkeypatch):
    # read keeps the data of a config whose data holds a reference
    # (needs.py), whether its document is read whole, dropped from as it
    # is composed, or is a List's item pruned one by one.
    from test_dropping import _rendered

    specs = _specs(tmp_path)
    stream = (_config("ConfigMap", "a", other="b") + _config("ConfigMap", "b", other="c", other_kind="Secret")
              + _config("Secret", "c") + _workload(("ConfigMap", "a")))
    flags = RUNS[run]
    names = {key: d["metadata"]["name"] for key, d in _versions(_render(stream, specs, *flags)).items()}
    listed = _render(_as_list(stream), specs, *flags)
    assert {key: d["metadata"]["name"] for key, d in _versions(listed).items()} == names
    for text in (stream, _as_list(stream)):
        _rendered(text, " ".join(("--config", specs, *flags)), monkeypatch)


@pytest.mark.parametrize("flags", [(), ("--strategy=annotate",)], ids=["rename", "annotate"])
def test_a_config_naming_a_config_that_keeps_its_name_gets_no_config_hash(flags, tmp_path):
    # Nothing rolls on a config's own metadata; and the unsuffixed copy a
    # run writes of a versioned config names what the original names, with
    # no hash, so a second run must give it none either.
    specs = _specs(tmp_path)
    stream = (_config("ConfigMap", "a", other="b", opted_out=True) + _config("ConfigMap", "b", opted_out=True)
              + _workload(("ConfigMap", "a")))
    docs = {(d["kind"], d["metadata"]["name"]): d for d in documents(_render(stream, specs, *flags))}
    assert "postrender.io/config-hash" not in (docs[("ConfigMap", "a")]["metadata"].get("annotations") or {})
    template = docs[("Deployment", "web")]["spec"]["template"]
    assert "postrender.io/config-hash" in template["metadata"]["annotations"]


def test_a_chain_longer_than_pythons_stack_is_named(tmp_path):
    # Named depth first without recursion: 1,500 configs, each naming the
    # next in its data, deeper than Python's default recursion limit.
    specs = _specs(tmp_path)
    count = 1500
    stream = "".join(_config("ConfigMap", f"c{i}", other=f"c{i + 1}" if i + 1 < count else None)
                     for i in range(count)) + _workload(("ConfigMap", "c0"))
    versions = _versions(_render(stream, specs))
    assert len(versions) == count
    for i in range(count - 1):
        assert versions[("ConfigMap", f"c{i}")]["data"]["configmap"] == versions[("ConfigMap", f"c{i + 1}")]["metadata"]["name"]


@pytest.mark.parametrize("flags", [(), ("--keep-previous=argocd",)], ids=["plain", "keep-previous"])
def test_kustomize_output_whose_data_is_rewritten_is_named_anew_from_kustomizes_base(flags, tmp_path):
    # kustomize named gen by its data as kustomize wrote it; rewritten, that
    # data needs a name of its own: from the base kustomize suffixed (gen),
    # so its versions stay one group, and a second run changes nothing.
    specs = _specs(tmp_path)
    built = _config("ConfigMap", "gen", other="plain")
    kustomize_hash = _versions(_render(built, specs, "--version-all"))[("ConfigMap", "gen")]["metadata"]["name"]
    stream = (built.replace("name: gen}", f"name: {kustomize_hash}}}") + _config("ConfigMap", "plain")
              + _workload(("ConfigMap", kustomize_hash)))
    out = _render(stream, specs, *flags)
    versions = _versions(out)
    gen = versions[("ConfigMap", "gen")]
    assert gen["metadata"]["name"] != kustomize_hash and gen["metadata"]["name"].count("-") == 1
    assert gen["data"]["configmap"] == versions[("ConfigMap", "plain")]["metadata"]["name"]
    _named_by_written_content(out, specs)
    assert _render(out, specs, *flags) == out


def test_the_unsuffixed_copy_names_what_the_output_holds(tmp_path):
    # a keeps a copy for a Job (its immutable template holds the reference
    # to a): the copy's data names b's version, as a's does, not the name b,
    # which no object of the output has.
    specs = _specs(tmp_path)
    job = ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: once}\nspec:\n  template:\n    spec:\n"
           "      restartPolicy: Never\n      containers: [{name: c, image: x, envFrom: [{configMapRef: {name: a}}]}]\n"
           "---\n")
    out = _render(_config("ConfigMap", "a", other="b") + _config("ConfigMap", "b") + job
                  + _workload(("ConfigMap", "a")), specs)
    docs = [d for d in documents(out) if d["kind"] == "ConfigMap"]
    names = {d["metadata"]["name"] for d in docs}
    copy = next(d for d in docs if d["metadata"]["name"] == "a")
    assert "postrender.io/copy-of" in copy["metadata"]["annotations"]
    assert copy["data"]["configmap"] in names and copy["data"]["configmap"] != "b"
    assert _render(out, specs) == out


@pytest.mark.parametrize("flags", [(), ("--keep-previous=argocd",)], ids=["plain", "keep-previous"])
def test_opted_out_kustomize_output_whose_data_is_rewritten_rolls_its_workload_by_hash(flags, tmp_path):
    # Opted out, it keeps kustomize's name while its data changes with what
    # it names: only the config hash can roll its workload, from the first
    # run on, and a second run adds nothing.
    specs = _specs(tmp_path)
    built = _config("ConfigMap", "gen", other="plain", opted_out=True)
    kustomize_name = "gen-" + _versions(_render(_config("ConfigMap", "gen", other="plain"), specs, "--version-all"))[
        ("ConfigMap", "gen")]["metadata"]["name"].split("-")[1]
    stream = (built.replace("name: gen,", f"name: {kustomize_name},") + _config("ConfigMap", "plain")
              + _workload(("ConfigMap", kustomize_name), ("ConfigMap", "plain")))
    out = _render(stream, specs, *flags)
    [web] = [d for d in documents(out) if d["kind"] == "Deployment"]
    assert "postrender.io/config-hash" in web["spec"]["template"]["metadata"]["annotations"]
    assert _render(out, specs, *flags) == out


def test_a_config_naming_another_in_an_annotation_renders_where_previous_versions_are_kept(tmp_path):
    # Its record of what it names goes beside its marks: they are not made
    # ahead as it is read, where its metadata would not be kept.
    specs = tmp_path / "specs.yaml"
    specs.write_text("nameReference:\n- kind: ConfigMap\n  fieldSpecs:\n"
                     "  - {kind: ConfigMap, path: metadata/annotations/other}\n")
    stream = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, annotations: {other: b}}\ndata: {v: '1'}\n---\n"
              + _config("ConfigMap", "b") + _workload(("ConfigMap", "a"), ("ConfigMap", "b")))
    for flags in (("--keep-previous=argocd",), ("--keep-previous=helm",), ("--keep-original=all", "--keep-previous=flux")):
        out = _render(stream, str(specs), *flags)
        a = _versions(out)[("ConfigMap", "a")]
        assert a["metadata"]["annotations"]["other"] == _versions(out)[("ConfigMap", "b")]["metadata"]["name"]
        assert _render(out, str(specs), *flags) == out
