"""`postrender diff OLD NEW`: golden reports, what each reason looks like, exit
status, errors, and the class tests (every pod-spec kind in the field-spec
table rolls; raw and already post-rendered inputs give the same report).

Fixtures: fixtures/diff/<case>/{old.yaml,new.yaml[,args]} with one expected
file per format (expected.txt, expected.json, expected.md). UPDATE_GOLDEN=1
rewrites them; review the diff before committing.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import string
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from conftest import FIXTURES, ROOT, run_postrender

CASES = sorted(p for p in (FIXTURES / "diff").iterdir() if (p / "old.yaml").exists())
FORMATS = {"table": "txt", "json": "json", "markdown": "md"}
# Flags of diff alone; the rest are render options, which a render takes too.
DIFF_ONLY = {"--show-values", "--exit-code"}


def _args(case: Path) -> list[str]:
    path = case / "args"
    return shlex.split(path.read_text()) if path.exists() else []


def _diff(case: Path, fmt: str = "json", old: str | None = None, new: str | None = None, stdin: str = "",
          extra: tuple[str, ...] = ()):
    return run_postrender(
        ["diff", "-o", fmt, *_args(case), *extra, old or str(case / "old.yaml"), new or str(case / "new.yaml")],
        stdin,
    )


def _report(case: Path, **kw) -> dict:
    result = _diff(case, "json", **kw)
    assert result.status == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch):
    # Fixture args name files relative to the repository.
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_diff_golden(case: Path, fmt: str):
    result = _diff(case, fmt)
    assert result.status == 0, result.stderr
    expected = case / f"expected.{FORMATS[fmt]}"
    if os.environ.get("UPDATE_GOLDEN"):
        expected.write_text(result.stdout, encoding="utf-8", newline="")
    assert result.stdout == expected.read_text(encoding="utf-8")
    assert _diff(case, fmt).stdout == result.stdout, "the same input must give the same bytes"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_standard_input_on_either_side_gives_the_same_bytes(case: Path):
    expected = _diff(case, "table").stdout
    assert _diff(case, "table", new="-", stdin=(case / "new.yaml").read_text()).stdout == expected
    assert _diff(case, "table", old="-", stdin=(case / "old.yaml").read_text()).stdout == expected


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_already_post_rendered_sides_give_the_same_report(case: Path, tmp_path: Path):
    """postrender's own output compares by base name and content, so a side
    rendered before gives the report its raw form gives."""
    # As diff renders: a name left on a removed object is reported, not fatal.
    render_args = [a for a in _args(case) if a not in DIFF_ONLY] + ["--allow-broken-references"]
    rendered = {}
    for side in ("old", "new"):
        result = run_postrender([*render_args, str(case / f"{side}.yaml")])
        assert result.status == 0, result.stderr
        rendered[side] = tmp_path / f"{side}.yaml"
        rendered[side].write_text(result.stdout)
    expected = _diff(case, "json").stdout
    assert _diff(case, "json", old=str(rendered["old"])).stdout == expected
    assert _diff(case, "json", new=str(rendered["new"])).stdout == expected
    assert _diff(case, "json", old=str(rendered["old"]), new=str(rendered["new"])).stdout == expected


# --- each reason, as a script reads it -------------------------------------------------------------


def _rolls(report: dict) -> dict[str, dict]:
    return {f"{r['kind']}/{r['name']}": r for r in report["rolls"]}


def _because(roll: dict) -> dict[str, dict]:
    return {f"{b['kind']}/{b['name']}": b for b in roll["because"]}


def test_data_change_rolls_every_workload_that_uses_the_config():
    report = _report(FIXTURES / "diff" / "data-change")
    rolls = _rolls(report)
    assert set(rolls) == {"Deployment/web", "StatefulSet/db", "DaemonSet/agent"}
    for roll in rolls.values():
        assert roll["namespace"] == "shop"
        (cause,) = roll["because"]
        assert (cause["kind"], cause["name"], cause["change"], cause["via"]) == ("ConfigMap", "settings", "changed", "name")
        assert cause["keys"] == {"changed": ["greeting"], "added": [], "removed": []}
        assert cause["oldName"] != cause["newName"] and cause["newName"].startswith("settings-")
        assert roll["podTemplateChangedDirectly"] is False
    assert report["doesNotRoll"] == []
    (created,) = report["versions"]["created"]
    (gone,) = report["versions"]["noLongerReferenced"]
    assert (created["name"], gone["name"]) == (cause["newName"], cause["oldName"])


def test_key_added_and_key_removed_name_the_keys():
    (added,) = _report(FIXTURES / "diff" / "key-added")["rolls"]
    assert (added["kind"], added["name"]) == ("CronJob", "report")
    assert added["because"][0]["keys"] == {"changed": [], "added": ["format"], "removed": []}
    (removed,) = _report(FIXTURES / "diff" / "key-removed")["rolls"]
    assert (removed["kind"], removed["name"]) == ("Rollout", "checkout")
    assert removed["because"][0]["keys"] == {"changed": [], "added": [], "removed": ["legacy-cart"]}


def test_secret_change_names_keys_only():
    case = FIXTURES / "diff" / "secret-change"
    report = _report(case)
    rolls = _rolls(report)
    assert set(rolls) == {"Deployment/web", "CronJob/backup"}
    assert _because(rolls["Deployment/web"])["Secret/db"]["keys"] == {
        "changed": ["password"], "added": ["host"], "removed": []}
    assert set(_because(rolls["CronJob/backup"])) == {"Secret/db"}
    for change in report["configChanges"]:
        assert "values" not in change or change["kind"] == "ConfigMap"


def test_an_opted_out_object_rolls_by_hash_where_the_template_may_change():
    report = _report(FIXTURES / "diff" / "opted-out-change")
    (roll,) = report["rolls"]
    assert (roll["kind"], roll["name"]) == ("Deployment", "api")
    (cause,) = roll["because"]
    assert cause["via"] == "postrender.io/config-hash"
    assert cause["oldName"] == cause["newName"] == "ca-bundle"
    (change,) = report["configChanges"]
    assert "opted out" in change["keepsNameBecause"]
    # A Job's and a bare Pod's templates are immutable (builtin.yaml): no hash
    # goes there, so they are the ones listed as not rolling, first.
    held = {f"{h['workload']['kind']}/{h['workload']['name']}": h["reason"] for h in report["doesNotRoll"]}
    assert set(held) == {"Job/migrate", "Pod/debug"}
    assert all("immutable pod template" in reason for reason in held.values())


def test_reloader_held_references_are_listed_first_with_their_reason():
    case = FIXTURES / "diff" / "reloader-held"
    report = _report(case)
    held = {f"{h['workload']['kind']}/{h['workload']['name']}": h for h in report["doesNotRoll"]}
    assert set(held) == {"Deployment/pinned", "Deployment/picky", "Deployment/motd"}
    assert 'reloader.stakater.com/auto: "false"' in held["Deployment/pinned"]["reason"]
    assert "reloader.stakater.com/search" in held["Deployment/picky"]["reason"]
    assert "reloader.stakater.com/ignore" in held["Deployment/motd"]["reason"]
    assert held["Deployment/motd"]["config"]["keys"]["changed"] == ["motd"]
    frontend = _rolls(report)["Deployment/frontend"]
    # The reload list names `listed`: it is not mounted, its hash carries it.
    assert _because(frontend)["ConfigMap/listed"]["via"] == "postrender.io/config-hash"
    assert _because(frontend)["ConfigMap/shared"]["via"] == "name"
    table = _diff(case, "table").stdout
    assert table.index("DOES NOT ROLL") < table.index("ROLLS BECAUSE")
    markdown = _diff(case, "markdown").stdout
    assert markdown.index("Does not roll") < markdown.index("Rolls because")


def test_a_reference_postrender_cannot_rewrite_is_listed():
    report = _report(FIXTURES / "diff" / "unrewritable-reference")
    (held,) = report["doesNotRoll"]
    assert held["workload"]["kind"] == "Widget"
    assert "spec.configMapName" in held["reason"] and "no field spec covers" in held["reason"]
    # The same field in a kind --config covers is rewritten: that object updates.
    (updated,) = report["updated"]
    assert (updated["kind"], updated["name"]) == ("Gizmo", "gizmo")
    assert report["rolls"] == []


def test_direct_pod_template_changes_are_kept_apart():
    report = _report(FIXTURES / "diff" / "direct-change")
    rolls = _rolls(report)
    web = rolls["Deployment/web"]
    assert web["because"] == []
    assert web["changedFields"] == ["spec.template.spec.containers[0].env[0].value",
                                    "spec.template.spec.containers[0].image"]
    worker = rolls["Deployment/worker"]
    assert set(_because(worker)) == {"ConfigMap/worker-settings"}
    assert worker["changedFields"] == ["spec.template.spec.containers[1]"]
    # replicas is outside the pod template: scaling is not a roll.
    assert "Deployment/scaled" not in rolls


def test_nothing_changed_reports_nothing_and_exits_zero_even_with_exit_code():
    case = FIXTURES / "diff" / "nothing-changed"
    report = _report(case)
    assert report == {"rolls": [], "doesNotRoll": [], "updatedInPlace": [], "updated": [], "configChanges": [],
                      "versions": {"created": [], "noLongerReferenced": []}, "warnings": [], "unpaired": []}
    result = _diff(case, "table", extra=("--exit-code",))
    assert result.status == 0
    assert result.stdout == "postrender diff: nothing rolls; no ConfigMap or Secret differs\n"


def test_exit_code_is_one_when_something_rolls_and_the_report_is_still_written():
    case = FIXTURES / "diff" / "data-change"
    plain = _diff(case, "json")
    flagged = _diff(case, "json", extra=("--exit-code",))
    assert (plain.status, flagged.status) == (0, 1)
    assert flagged.stdout == plain.stdout


def test_helm4_filename_annotations_name_each_workloads_file():
    report = _report(FIXTURES / "diff" / "helm4-filenames")
    assert _rolls(report)["Deployment/app"]["source"] == "app/templates/deployment.yaml"
    # The pre-upgrade hook runs before the release is applied: left as written.
    (held,) = report["doesNotRoll"]
    assert held["workload"] == {"kind": "Job", "namespace": None, "name": "app-migrate",
                                "source": "app/templates/hooks/migrate.yaml"}
    assert "hook" in held["reason"]


def test_already_post_rendered_input_matches_by_base_name_and_content():
    report = _report(FIXTURES / "diff" / "post-rendered")
    long_name = "a-very-long-configuration-object-name-that-is-longer-than-a-label-value-can-be"
    web = _rolls(report)["Deployment/web"]
    assert set(_because(web)) == {"ConfigMap/settings", f"ConfigMap/{long_name}"}
    # The copy OLD kept (postrender.io/copy-of) is no separate object, and the
    # unchanged Secret is no change.
    assert {c["name"] for c in report["configChanges"]} == {"settings", long_name}


def test_kustomize_names_pair_as_one_changed_object_that_rolls_its_workloads():
    """`kubectl kustomize` output: a generator's name ends in its own content
    hash, which postrender keeps, so a changed one has another name in NEW."""
    report = _report(FIXTURES / "diff" / "kustomize-names")
    changes = {f"{c['kind']}/{c['name']}": c for c in report["configChanges"]}
    assert set(changes) == {"ConfigMap/app-config", "Secret/app-secret"}
    assert {c["status"] for c in changes.values()} == {"changed"}
    assert (changes["ConfigMap/app-config"]["oldName"], changes["ConfigMap/app-config"]["newName"]) == (
        "app-config-ttg76c7k7c", "app-config-t292246ffm")
    assert changes["Secret/app-secret"]["keys"] == {"changed": ["password"], "added": [], "removed": []}
    rolls = _rolls(report)
    assert set(rolls) == {"Deployment/web", "CronJob/report"}
    assert set(_because(rolls["Deployment/web"])) == {"ConfigMap/app-config", "Secret/app-secret"}
    assert set(_because(rolls["CronJob/report"])) == {"ConfigMap/app-config"}
    for roll in rolls.values():
        assert roll["podTemplateChangedDirectly"] is False
        assert {(b["change"], b["via"]) for b in roll["because"]} == {("changed", "name")}
    assert report["doesNotRoll"] == []
    # Not postrender's versions: `postrender gc` collects none of kustomize's names.
    assert report["versions"] == {"created": [], "noLongerReferenced": []}


def test_a_config_hash_over_a_kustomize_name_counts_as_a_use_of_its_config():
    """--strategy=annotate hashes a kustomize name without its hash (the
    plan's item, as kustomize hands it to a transformer); the diff must find
    the config it pairs under that name."""
    from postrender.frontends.diff.side import ConfigId, build
    from postrender.options import RenderOptions
    from postrender.pipeline.read.documents import Source

    case = FIXTURES / "diff" / "kustomize-names"
    side = build("new", [Source("new", (case / "new.yaml").read_text())], RenderOptions(strategy="annotate"))
    (web,) = [r for key, r in side.referrers.items() if key.name == "web"]
    assert web.hashed == {ConfigId("ConfigMap", "shop", "app-config"), ConfigId("Secret", "shop", "app-secret")}


def test_annotate_strategy_rolls_by_hash_and_keeps_names():
    report = _report(FIXTURES / "diff" / "annotate-strategy")
    (roll,) = report["rolls"]
    (cause,) = roll["because"]
    assert (cause["kind"], cause["via"], cause["oldName"], cause["newName"]) == (
        "Secret", "postrender.io/config-hash", "creds", "creds")
    assert report["versions"] == {"created": [], "noLongerReferenced": []}


def test_show_values_shows_configmap_values_only():
    case = FIXTURES / "diff" / "show-values"
    report = _report(case)
    changes = {c["kind"]: c for c in report["configChanges"]}
    values = {v["key"]: v for v in changes["ConfigMap"]["values"]}
    assert values["old-key"] == {"key": "old-key", "old": "remove me", "new": None}
    assert values["new-key"]["old"] is None
    assert "worker_processes auto;" in values["nginx.conf"]["new"]
    assert "favicon.ico" not in values  # binaryData: "changed" only
    assert changes["ConfigMap"]["keys"]["changed"] == ["favicon.ico", "nginx.conf"]
    assert "values" not in changes["Secret"]
    assert changes["Secret"]["keys"]["changed"] == ["tls.key"]
    without = json.loads(run_postrender(["diff", "-o", "json", str(case / "old.yaml"), str(case / "new.yaml")]).stdout)
    assert all("values" not in c for c in without["configChanges"])
    text = _diff(case, "table").stdout
    assert "-worker_processes 2;" in text and "+worker_processes auto;" in text


def test_markdown_values_cannot_break_out_of_their_code_block():
    text = _diff(FIXTURES / "diff" / "show-values", "markdown").stdout
    assert "+|pipes| and `ticks` <b>" in text  # inside the fence, verbatim
    assert "<b>" not in text.split("<details>")[0]


def _code_spans(text: str) -> tuple[list[str], str]:
    """The code spans in `text` as CommonMark reads them (a run of n
    backticks, not escaped, opens a span that the next run of exactly n
    closes; one space each side is stripped when both are there), and what
    is outside them."""
    spans, outside, i = [], "", 0
    while i < len(text):
        if text[i] == "\\" and text[i + 1:i + 2] in string.punctuation:
            outside += text[i:i + 2]  # an escaped character: a backtick here opens no span
            i += 2
            continue
        if text[i] != "`":
            outside += text[i]
            i += 1
            continue
        n = len(re.match(r"`+", text[i:]).group())
        close = re.compile(r"(?<!`)`{%d}(?!`)" % n).search(text, i + n)
        if close is None:
            outside += text[i:i + n]  # no closing run: literal backticks
            i += n
            continue
        inner = text[i + n:close.start()]
        if inner.startswith(" ") and inner.endswith(" ") and inner.strip():
            inner = inner[1:-1]
        spans.append(inner)
        i = close.end()
    return spans, outside


HOSTILE = ["web|x`y <b>", "``a", "b`", " c ", "d\\|e", "f**g**_h_[i](j)"]


@pytest.mark.parametrize("hostile", HOSTILE)
def test_markdown_keeps_names_keys_and_fields_from_the_input_in_their_cell_and_span(tmp_path: Path, hostile: str):
    """A custom resource's name, a ConfigMap's name and key and a template's
    annotation key may hold `|`, backticks, `<b>`: each stays inside its
    table cell and its code span, and no HTML or Markdown reaches the comment."""
    sides = {}
    for side, value in (("old", "1"), ("new", "2")):
        config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm{hostile}"},
                  "data": {f"k{hostile}": value}}
        rollout = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "metadata": {"name": hostile},
                   "spec": {"template": {"metadata": {"annotations": {f"a{hostile}": value}},
                                         "spec": {"containers": [{"name": "c", "image": "x", "envFrom": [
                                             {"configMapRef": {"name": f"cm{hostile}"}}]}]}}}}
        sides[side] = tmp_path / f"{side}.yaml"
        sides[side].write_text(json.dumps(config) + "\n---\n" + json.dumps(rollout) + "\n")
    result = run_postrender(["diff", "-o", "markdown", "--show-values", str(sides["old"]), str(sides["new"])])
    assert result.status == 0, result.stderr
    lines = result.stdout.splitlines()
    spans, width = [], 0
    for line in lines:
        if not line.startswith("|"):
            width = 0  # between tables; each header is followed by its |---| line
        elif line.startswith("|---"):
            width = line.count("---|")  # the table's columns: what each row below must keep
        if not line.startswith("| ") or not width:
            continue
        # GFM splits a row at every `|` without a backslash before it, then
        # drops the backslash of `\\|`.
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        assert len(cells) == width, line
        for cell in cells:
            found, outside = _code_spans(cell)
            spans += found
            if found:
                assert set(outside) <= set(", "), (line, cell)  # spans only (a list of field paths)
            else:
                # Plain text: nothing in it may start HTML, code, emphasis or a link.
                assert not re.search(r"<|(?<!\\)[`\[*_]", cell), (line, cell)
    assert f"Rollout/{hostile}" in spans
    assert f"ConfigMap/cm{hostile}" in spans
    # The key in brackets as a JSON string where it holds a space, a quote or a bracket (format_path).
    from postrender.syntax.nodes import format_path

    assert format_path(("spec", "template", "metadata", "annotations", f"a{hostile}")) in spans
    # Outside tables no backslash is dropped: the Values heading's spans hold the name and key as they are.
    (heading,) = [line for line in lines if line.endswith("(changed)")]
    assert _code_spans(heading) == ([f"ConfigMap/cm{hostile}", f"k{hostile}"], "  (changed)")


def test_programs_reading_config_by_name_roll_by_name_or_by_hash_or_are_listed():
    report = _report(FIXTURES / "diff" / "read-by-name")
    rolls = _rolls(report)
    # A flag a field spec covers is rewritten; one no row covers keeps the name and hashes it.
    assert _because(rolls["Deployment/ingress-nginx-controller"])["ConfigMap/ingress-nginx-controller"]["via"] == "name"
    reporter = _because(rolls["Deployment/reporter"])["ConfigMap/reporter-settings"]
    assert (reporter["via"], reporter["oldName"], reporter["newName"]) == (
        "postrender.io/config-hash", "reporter-settings", "reporter-settings")
    (held,) = report["doesNotRoll"]
    assert held["workload"] is None and held["config"]["name"] == "argocd-cm"
    assert "fixed name" in held["reason"]


def test_an_unreferenced_change_rolls_nothing_and_is_listed_first():
    report = _report(FIXTURES / "diff" / "unreferenced-change")
    assert report["rolls"] == []
    (held,) = report["doesNotRoll"]
    assert held["workload"] is None and held["config"]["name"] == "controller-settings"


# --- one side states no namespace, the other does ----------------------------------------------


def test_objects_without_a_namespace_pair_with_the_other_sides_explicit_namespace():
    """A chart upgrade that adds `namespace: {{ .Release.Namespace }}`,
    rendered without -n as the CI recipe does: matched by exact namespace,
    the ConfigMap was removed and added and the Deployment vanished, so a
    change that rolls it said "nothing rolls" and exit 0 under --exit-code."""
    case = FIXTURES / "diff" / "namespace-added"
    report = _report(case)
    rolls = {(r["kind"], r["namespace"], r["name"]): r for r in report["rolls"]}
    assert set(rolls) == {("Deployment", "default", "web"), ("Deployment", None, "worker")}
    web = rolls[("Deployment", "default", "web")]
    (cause,) = web["because"]
    assert (cause["name"], cause["change"], cause["via"], cause["keys"]["changed"]) == (
        "web-settings", "changed", "name", ["greeting"])
    assert web["changedFields"] == ["spec.template.spec.containers[0].image"]
    assert {(c["namespace"], c["name"], c["status"]) for c in report["configChanges"]} == {
        ("default", "web-settings", "changed"), (None, "worker-creds", "changed")}
    (warning,) = report["warnings"]
    assert warning.startswith("OLD gives no namespace to ConfigMap/web-settings, Deployment/web, which NEW puts "
                              "in namespace default") and "--namespace" in warning
    assert report["unpaired"] == []
    # As with -n default, where nothing needs pairing.
    exact = _report(case, extra=("-n", "default"))
    assert {(r["kind"], r["name"]) for r in exact["rolls"]} == {("Deployment", "web"), ("Deployment", "worker")}
    assert exact["warnings"] == []
    # The warning reaches every format's report (a CI comment never shows stderr), and stderr.
    for fmt in ("table", "markdown"):
        result = _diff(case, fmt, extra=("--exit-code",))
        assert result.status == 1
        assert "OLD gives no namespace to ConfigMap/web-settings" in result.stdout
        assert "OLD gives no namespace" in result.stderr


def test_the_reverse_pairs_too_and_names_objects_as_new_does():
    report = _report(FIXTURES / "diff" / "namespace-removed")
    (roll,) = report["rolls"]
    assert (roll["kind"], roll["namespace"], roll["name"]) == ("StatefulSet", None, "db")
    assert roll["because"][0]["keys"]["changed"] == ["greeting"] and roll["changedFields"] == []
    (warning,) = report["warnings"]
    assert warning.startswith("NEW gives no namespace to ConfigMap/settings, StatefulSet/db, which OLD puts "
                              "in namespace shop")


def _documents(namespaces: list[str | None], value: str) -> str:
    docs = []
    for namespace in namespaces:
        meta = {"namespace": namespace} if namespace else {}
        docs.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", **meta},
                     "data": {"k": value}})
        docs.append({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", **meta},
                     "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x", "envFrom": [
                         {"configMapRef": {"name": "settings"}}]}]}}}})
    return "\n---\n".join(json.dumps(d) for d in docs) + "\n"


@pytest.mark.parametrize("implicit", ["old", "new"])
def test_an_object_that_could_pair_with_two_namespaces_is_not_guessed_and_fails_exit_code(
        tmp_path: Path, implicit: str):
    """No namespace on one side, two on the other: either could be it, so
    diff pairs neither, says so in the report, and --exit-code fails, since
    it cannot tell that nothing rolls."""
    sides = {"old": [None], "new": ["a", "b"]} if implicit == "old" else {"old": ["a", "b"], "new": [None]}
    for side, value in (("old", "1"), ("new", "2")):
        (tmp_path / f"{side}.yaml").write_text(_documents(sides[side], value))
    argv = ["diff", "-o", "json", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")]
    report = json.loads(run_postrender(argv).stdout)
    assert report["rolls"] == []
    assert report["unpaired"] == ["ConfigMap/settings", "Deployment/web"]
    assert len(report["warnings"]) == 2
    assert all(w.startswith(f"{implicit.upper()} gives no namespace to ") and "namespaces a, b" in w
               and "--namespace" in w for w in report["warnings"])
    assert run_postrender([*argv[:1], "--exit-code", *argv[1:]]).status == 1
    table = run_postrender(["diff", *argv[3:]]).stdout
    assert "2 objects not compared" in table.splitlines()[0]
    # With --namespace nothing is implicit: the namespace that matches pairs exactly.
    exact = json.loads(run_postrender([*argv[:3], "-n", "a", *argv[3:]]).stdout)
    assert [(r["namespace"], r["name"]) for r in exact["rolls"]] == [("a", "web")] and exact["unpaired"] == []


def test_pairing_is_per_object_and_leaves_exact_matches_alone(tmp_path: Path):
    """Only the objects that moved pair; one with a namespace-less twin on
    both sides matches exactly, and one only on one side is no pair."""
    old = _documents([None, "a"], "1")
    new = _documents(["a", "b"], "2")
    (tmp_path / "old.yaml").write_text(old)
    (tmp_path / "new.yaml").write_text(new)
    report = json.loads(run_postrender(
        ["diff", "-o", "json", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")]).stdout)
    # a matches a exactly; OLD's namespace-less one is left with b alone, and pairs with it.
    assert sorted((r["namespace"], r["name"]) for r in report["rolls"]) == [("a", "web"), ("b", "web")]
    assert report["unpaired"] == []
    (warning,) = report["warnings"]
    assert "which NEW puts in namespace b" in warning


# --- usage and errors ------------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [
    ["diff", "only-one.yaml"],
    ["diff", "a.yaml", "b.yaml", "c.yaml"],
    ["diff", "-", "-"],
    ["diff", "-o", "yaml", "a.yaml", "b.yaml"],
    ["diff", "--retain", "2", "a.yaml", "b.yaml"],
    ["diff", "fixtures/diff/data-change/old.yaml", "no/such/file.yaml"],
])
def test_usage_errors_exit_2_with_nothing_on_stdout(argv):
    result = run_postrender(argv)
    assert result.status == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith("postrender: error: ") and result.stderr.count("\n") == 1


def test_bad_input_names_its_side_and_exits_1_with_nothing_on_stdout(tmp_path: Path):
    bad = tmp_path / "new.yaml"
    bad.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  port: 8080\n")
    result = run_postrender(["diff", "fixtures/diff/data-change/old.yaml", "-"], bad.read_text())
    assert result.status == 1
    assert result.stdout == ""
    # The render's own one-line message, told which side it is about.
    assert result.stderr.startswith("postrender: error: new (-): document 1 (ConfigMap/cm) line 6: data.port ")
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("stage", ["utf-8", "max-bytes", "missing"])
@pytest.mark.parametrize("side", ["old", "new"])
def test_an_error_while_reading_a_side_names_the_side(tmp_path: Path, side: str, stage: str):
    """Reading fails before the render (invalid UTF-8, --max-bytes, no such
    file); the message still says which side, also for standard input,
    which it names nowhere else."""
    good = tmp_path / "good.yaml"
    good.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    path, extra = "-", ["--max-bytes", "100"]
    stdin = {"utf-8": b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caf\xe9\n",
             "max-bytes": b"#" * 101, "missing": b""}[stage]
    if stage == "missing":
        path = str(tmp_path / "missing.yaml")
    old, new = (path, str(good)) if side == "old" else (str(good), path)
    result = run_postrender(["diff", *extra, old, new], stdin)
    assert result.status == (2 if stage == "missing" else 1), result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith(f"postrender: error: {side} ({path}): "), result.stderr
    assert result.stderr.count("\n") == 1


def test_render_warnings_are_shown_once_and_say_which_side():
    result = _diff(FIXTURES / "diff" / "reloader-held", "table")
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert warnings and len(warnings) == len(set(warnings))
    result = _diff(FIXTURES / "diff" / "unrewritable-reference", "table")
    sides = [line.split(": ")[2].split(" ")[0] for line in result.stderr.splitlines() if "still names" in line]
    assert sorted(sides) == ["new", "old"]  # the renamed names differ, so each side says its own


# --- the class: every kind with pod specs in the field-spec table rolls ----------------------------


def _pod_spec_holders() -> list[dict]:
    builtin = YAML(typ="safe").load((ROOT / "postrender" / "fieldspecs" / "builtin.yaml").read_text())
    return builtin["podSpecs"]


def _holder(entry: dict, spec: dict) -> dict:
    group = entry.get("group")
    version = entry.get("version") or "v1"
    api_version = f"{group}/{version}" if group else {
        "Deployment": "apps/v1", "ReplicaSet": "apps/v1", "DaemonSet": "apps/v1", "StatefulSet": "apps/v1",
        "Job": "batch/v1", "CronJob": "batch/v1", "DeploymentConfig": "apps.openshift.io/v1",
    }.get(entry["kind"], version)
    obj: dict = {"apiVersion": api_version, "kind": entry["kind"], "metadata": {"name": "holder"}}
    node = obj
    parts = entry["path"].split("/")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = spec
    return obj


@pytest.mark.parametrize("entry", _pod_spec_holders(), ids=lambda e: f"{e['kind']}-{e.get('group', 'core')}")
def test_every_kind_with_pod_specs_in_the_table_rolls(entry: dict, tmp_path: Path):
    spec = {"containers": [{"name": "c", "image": "registry.example.com/c:1",
                            "envFrom": [{"configMapRef": {"name": "settings"}}]}]}
    holder = _holder(entry, spec)
    sides = {}
    for side, value in (("old", "a"), ("new", "b")):
        config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"k": value}}
        sides[side] = tmp_path / f"{side}.yaml"
        sides[side].write_text(json.dumps(config) + "\n---\n" + json.dumps(holder) + "\n")
    result = run_postrender(["diff", "-o", "json", str(sides["old"]), str(sides["new"])])
    assert result.status == 0, result.stderr
    report = json.loads(result.stdout)
    always = [row["why"] for row in entry.get("waitsWhen") or () if set(row) == {"why"}]
    if entry.get("immutable"):
        # The API server refuses a change to this template: its reference is
        # left as written, and the report says it does not roll.
        assert report["rolls"] == []
        (held,) = report["doesNotRoll"]
        assert (held["workload"]["kind"], held["config"]["keys"]["changed"]) == (entry["kind"], ["k"])
        assert "left as written" in held["reason"]
    elif always:
        # Its controller never replaces a running pod for a new template (a
        # ReplicaSet's): it waits, with why.
        assert report["rolls"] == []
        (held,) = report["doesNotRoll"]
        assert (held["workload"]["kind"], held["reason"]) == (entry["kind"], always[0])
    else:
        assert [(r["kind"], r["name"]) for r in report["rolls"]] == [(entry["kind"], "holder")]
        (cause,) = report["rolls"][0]["because"]
        assert (cause["name"], cause["keys"]["changed"]) == ("settings", ["k"])
    # A change to the same object outside its pod template is no roll.
    holder["metadata"]["labels"] = {"release": "2"}
    sides["new"].write_text(sides["old"].read_text().replace(json.dumps(_holder(entry, spec)), json.dumps(holder)))
    result = run_postrender(["diff", "-o", "json", str(sides["old"]), str(sides["new"])])
    assert result.status == 0, result.stderr
    assert json.loads(result.stdout)["rolls"] == []


PROMETHEUS_WITH = """\
apiVersion: v1
kind: Secret
metadata: {{name: etcd-client-cert, namespace: mon}}
data: {{etcd-ca: {ca}}}
---
apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata: {{name: k8s, namespace: mon}}
spec:
  podMetadata: {{labels: {{app: prometheus}}}}
  secrets: [etcd-client-cert]
"""


def test_a_config_hash_in_a_prometheus_pod_metadata_rolls_it_through_its_config(tmp_path):
    """The hash of a Prometheus lands in spec.podMetadata, which the operator
    copies into its pods: a change there rolls them because the config
    changed, not because someone changed the pod template."""
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(PROMETHEUS_WITH.format(ca="Y2Ex"))
    new.write_text(PROMETHEUS_WITH.format(ca="Y2Ey"))
    result = run_postrender(["diff", "-o", "json", str(old), str(new)])
    assert result.status == 0, result.stderr
    (roll,) = json.loads(result.stdout)["rolls"]
    assert roll["kind"] == "Prometheus" and roll["podTemplateChangedDirectly"] is False
    (cause,) = roll["because"]
    assert (cause["name"], cause["via"]) == ("etcd-client-cert", "postrender.io/config-hash")


# Pairs of spellings of one number as kubectl sends it: each pair in a
# pod template rolls nothing (kubectl's JSON of both is the same text).
SAME_NUMBERS = [("30", "30.0"), ("8080", "8.08e3"), ("8080", "8080."), ("1000", "1_000"), ("31", "0x1F"),
                ("15", "0o17"), ("0.00001", "1e-5"), ("0.5", ".5"), ("100000000000000000000", "1e20"),
                ("1.5e-7", "0.00000015"), ("0", "-0.0")]


@pytest.mark.parametrize("old, new", SAME_NUMBERS)
def test_a_number_spelled_another_way_rolls_nothing(tmp_path: Path, old: str, new: str):
    template = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n"
                "    spec:\n      terminationGracePeriodSeconds: {}\n      containers:\n      - name: c\n"
                "        image: nginx\n        resources:\n          limits:\n            cpu: {}\n")
    (tmp_path / "old.yaml").write_text(template.format(old, old))
    (tmp_path / "new.yaml").write_text(template.format(new, new))
    result = run_postrender(["diff", "--exit-code", "-o", "json", str(tmp_path / "old.yaml"),
                             str(tmp_path / "new.yaml")])
    assert (result.status, json.loads(result.stdout)["rolls"]) == (0, []), result.stdout


_TEMPLATE = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web}}\nspec:\n  template:\n    spec:\n"
             "      containers: [{{name: c, image: x{}}}]\n")


@pytest.mark.parametrize("added, rolls", [
    # Stored as no field at all: a nil pointer, a slice Go leaves out when empty.
    (", args: []", False), (", command: null", False), (", env: [], envFrom: null", False),
    (", resources: null", False),
    # A field with something in it, and a pointer to an empty struct, are stored.
    (", args: [serve]", True), (", securityContext: {}", True), (", env: [{name: A}]", True),
])
def test_an_empty_list_or_null_added_to_a_template_rolls_nothing(tmp_path: Path, added: str, rolls: bool):
    (tmp_path / "old.yaml").write_text(_TEMPLATE.format(""))
    (tmp_path / "new.yaml").write_text(_TEMPLATE.format(added))
    result = run_postrender(["diff", "--exit-code", "-o", "json", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")])
    report = json.loads(result.stdout)
    assert (result.status, bool(report["rolls"])) == (int(rolls), rolls), result.stdout


_TEMPLATE_AT = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web}}\nspec:\n  template:\n"
                "    metadata: {{labels: {{app: web}}{metadata}}}\n    spec:\n      containers: [{{name: c, image: x{container}}}]\n"
                "      volumes: [{{name: v, csi: {{driver: d{volume}}}}}]{spec}\n")


@pytest.mark.parametrize("where, added, rolls", [
    # A Go map (omitempty), or a struct held by value: empty is stored as absent.
    ("metadata", ", annotations: {}", False), ("spec", "\n      nodeSelector: {}", False),
    ("spec", "\n      overhead: {}", False), ("container", ", resources: {limits: {}}", False),
    ("container", ", resources: {limits: {}, requests: {}}", False), ("container", ", resources: {}", False),
    ("volume", ", volumeAttributes: {}", False),
    # A pointer to an empty struct is stored, and a map with something in it.
    ("spec", "\n      securityContext: {}", True), ("spec", "\n      affinity: {}", True),
    ("container", ", resources: {limits: {cpu: 1}}", True), ("spec", "\n      nodeSelector: {a: b}", True),
    ("spec", "\n      resources: {}", True),
])
def test_an_empty_mapping_rolls_only_where_kubernetes_stores_it(tmp_path: Path, where: str, added: str, rolls: bool):
    blank = {"metadata": "", "container": "", "volume": "", "spec": ""}
    (tmp_path / "old.yaml").write_text(_TEMPLATE_AT.format(**blank))
    (tmp_path / "new.yaml").write_text(_TEMPLATE_AT.format(**{**blank, where: added}))
    result = run_postrender(["diff", "--exit-code", "-o", "json", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")])
    report = json.loads(result.stdout)
    assert (result.status, bool(report["rolls"])) == (int(rolls), rolls), result.stdout


def test_an_empty_mapping_where_it_is_absent_rolls_nothing_in_a_bare_pod_either(tmp_path: Path):
    text = "apiVersion: v1\nkind: Pod\nmetadata: {{name: p{}}}\nspec:\n  containers: [{{name: c, image: x}}]{}\n"
    (tmp_path / "old.yaml").write_text(text.format("", ""))
    (tmp_path / "new.yaml").write_text(text.format(", annotations: {}", "\n  nodeSelector: {}"))
    result = run_postrender(["diff", "--exit-code", "-o", "json", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")])
    report = json.loads(result.stdout)
    assert (result.status, report["rolls"], report["doesNotRoll"]) == (0, [], []), result.stdout


@pytest.mark.parametrize("api_version, kind, rolls", [
    ("apps/v1", "Deployment", False), ("apps/v1", "StatefulSet", False), ("batch/v1", "CronJob", False),
    # A custom resource is stored as written, `{}` and all: its controller may hash it otherwise.
    ("argoproj.io/v1alpha1", "Rollout", True),
])
def test_an_empty_map_is_absent_only_in_the_templates_of_kubernetes_own_kinds(tmp_path: Path, api_version, kind,
                                                                              rolls):
    text = (f"apiVersion: {api_version}\nkind: {kind}\nmetadata: {{{{name: w}}}}\nspec:\n"
            + ("  jobTemplate:\n    spec:\n" if kind == "CronJob" else "")
            + "{0}  template:\n{0}    metadata: {{labels: {{app: w}}{1}}}\n"
              "{0}    spec:\n{0}      containers: [{{name: c, image: x}}]\n")
    pad = "    " if kind == "CronJob" else ""
    (tmp_path / "old.yaml").write_text(text.format(pad, ""))
    (tmp_path / "new.yaml").write_text(text.format(pad, ", annotations: {}"))
    result = run_postrender(["diff", "--exit-code", "-o", "json", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")])
    report = json.loads(result.stdout)
    assert (result.status, [r["kind"] for r in report["rolls"]]) == (int(rolls), [kind] if rolls else []), result.stdout


def test_a_workload_whose_pods_wait_is_listed_first_and_never_as_rolling():
    # The class: each podSpecs row's waitsWhen (OnDelete, paused, a
    # StatefulSet's partition above 0), and an immutable template (a Job's)
    # that is no hook; the same kinds without the setting (RollingUpdate,
    # paused: false, partition 0, a hook Job) roll.
    report = _report(FIXTURES / "diff" / "waits")
    held = {(h["workload"]["kind"] + "/" + h["workload"]["name"], (h["config"] or {}).get("name")): h
            for h in report["doesNotRoll"]}
    assert set(held) == {("StatefulSet/db-ondelete", "cfg"), ("DaemonSet/agent-ondelete", "cfg"),
                         ("Deployment/web-paused", "cfg"), ("Rollout/canary-paused", "cfg"),
                         ("StatefulSet/db-partitioned", "cfg"), ("StatefulSet/db-partition-float", "cfg"),
                         ("StatefulSet/cache-ondelete", None), ("Job/migrate", None),
                         # An outside tester's finds: the config's row was lost when the
                         # template changed too; a float partition was no partition; a bare
                         # ReplicaSet's and ReplicationController's pods were said to roll.
                         ("Job/migrate-both", None), ("Job/migrate-both", "cfg"),
                         ("ReplicaSet/rs", "cfg"), ("ReplicationController/rc", "cfg")}
    for partitioned in ("db-partitioned", "db-partition-float"):
        assert held[(f"StatefulSet/{partitioned}", "cfg")]["reason"].startswith(
            "rollingUpdate.partition 2: only pods numbered 2")
    assert "left as written" in held[("Job/migrate-both", "cfg")]["reason"]
    assert held[("ReplicaSet/rs", "cfg")]["reason"].startswith("its controller replaces no running pod")
    assert held[("Job/migrate", None)]["changedFields"] == ["spec.template.spec.containers[0].image"]
    assert set(_rolls(report)) == {"StatefulSet/db-rolling", "StatefulSet/db-partition-zero", "Deployment/web-unpaused",
                                   "Job/hook"}


_BARE_POD = ("apiVersion: v1\nkind: Pod\nmetadata: {{name: p{annotations}}}\nspec:\n"
             "  initContainers: [{{name: i, image: '{init}'}}]\n"
             "  containers: [{{name: c, image: '{image}'{extra}}}]\n")
_BARE_POD_OLD = {"annotations": "", "init": "i:1", "image": "x:1", "extra": ""}


@pytest.mark.parametrize("changed, in_place", [
    # What the API server lets an update of a bare Pod change (UPDATED_IN_PLACE).
    ({"image": "x:2"}, True), ({"init": "i:2"}, True), ({"image": "x:2", "init": "i:2"}, True),
    ({"annotations": ", annotations: {a: b}"}, True),
    # Anything else in its spec is refused, alone or with an image.
    ({"extra": ", args: [serve]"}, False), ({"image": "x:2", "extra": ", args: [serve]"}, False),
])
def test_a_bare_pods_image_change_is_updated_in_place_and_anything_else_refused(
        tmp_path: Path, changed: dict, in_place: bool):
    (tmp_path / "old.yaml").write_text(_BARE_POD.format(**_BARE_POD_OLD))
    (tmp_path / "new.yaml").write_text(_BARE_POD.format(**{**_BARE_POD_OLD, **changed}))
    result = run_postrender(["diff", "--exit-code", "-o", "json", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")])
    report = json.loads(result.stdout)
    # Either way its template changes: --exit-code says so.
    assert result.status == 1, result.stdout
    assert report["rolls"] == []
    if in_place:
        (updated,) = report["updatedInPlace"]
        assert (updated["kind"], updated["name"]) == ("Pod", "p")
        assert report["doesNotRoll"] == []
        table = run_postrender(["diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")]).stdout
        assert "1 workload updated in place (no new pod)" in table and "refuses" not in table
    else:
        assert report["updatedInPlace"] == []
        (held,) = report["doesNotRoll"]
        assert "refuses a change" in held["reason"] and "excepted" not in held["reason"]


def _apps(n: int, value: str) -> str:
    return "".join(
        f"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: app{i}-settings}}\ndata: {{greeting: '{value}'}}\n"
        f"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: app{i}}}\nspec:\n  template:\n    spec:\n"
        f"      containers: [{{name: c, image: x, envFrom: [{{configMapRef: {{name: app{i}-settings}}}}]}}]\n"
        for i in range(n))


def _huge_value(lines: int, word: str) -> str:
    body = "".join(f"    line {i}: {word} and some padding to make it a realistic config line\n" for i in range(lines))
    return ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  app.conf: |\n" + body
            + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n"
              "      containers: [{name: c, image: x, envFrom: [{configMapRef: {name: big}}]}]\n")


@pytest.mark.parametrize("old, new, extra, left_out", [
    # Many apps rolling: rows are cut from the last section back.
    (_apps(400, "hello"), _apps(400, "bonjour"), (), "of 400 rows in Config changes"),
    # More: the rolls are cut too, counted as workloads (a workload's causes
    # take a row each).
    (_apps(1200, "hello"), _apps(1200, "bonjour"), (), "of 1200 workloads in Rolls because its config changed"),
    # One huge value: its diff is shortened first, and nothing else goes.
    (_huge_value(5000, "old"), _huge_value(5000, "new"), ("--show-values",), "the end of the diff of 1 value"),
])
def test_markdown_fits_a_github_comment_and_says_what_it_left_out(tmp_path: Path, old: str, new: str,
                                                                  extra: tuple[str, ...], left_out: str):
    (tmp_path / "old.yaml").write_text(old)
    (tmp_path / "new.yaml").write_text(new)
    args = ["diff", "-o", "markdown", *extra, str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")]
    result = run_postrender(args)
    assert result.status == 0, result.stderr
    markdown = result.stdout
    # GitHub refuses a comment body over 65,536 characters; the report keeps a margin.
    assert len(markdown) <= 60_000
    from postrender.frontends.diff.formats.markdown import MAX_CHARS
    assert run_postrender(args).stdout == markdown, "the same input must give the same bytes"
    full = json.loads(run_postrender([*args[:2], "json", *args[3:]]).stdout)
    table = run_postrender(["diff", *extra, str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")]).stdout
    # The summary line and its counts are the uncut report's.
    assert table.splitlines()[0].removeprefix("postrender diff: ") in markdown.splitlines()[3]
    note = next(line for line in markdown.splitlines() if line.startswith("> **This comment is cut"))
    assert left_out in note and "`-o json`" in note and "run `postrender diff` locally" in note
    # Text and JSON are never cut.
    assert len(table) > MAX_CHARS or len(json.dumps(full)) > MAX_CHARS
    assert len(full["rolls"]) == len(full["configChanges"]) == (old.count("kind: Deployment") if not extra else 1)
    if extra:
        # The workload's row and the shortened value's start are still there.
        assert "`Deployment/web`" in markdown and "-line 0: old" in markdown and "line 4999" not in markdown


def test_markdown_under_the_limit_is_not_cut():
    markdown = _diff(FIXTURES / "diff" / "show-values", "markdown").stdout
    assert "cut" not in markdown


def test_exit_code_help_says_every_case_it_exits_1_for():
    # Rolls, waits (as above) and unpaired objects: the help must not say "rolls" alone.
    result = run_postrender(["diff", "--help"])
    assert result.status == 0
    flat = " ".join(result.stdout.split())
    assert ("when a pod template changes (it rolls, waits or is refused), an object could not be compared, or the "
            "API server refuses a ConfigMap's or Secret's update") in flat


def test_exit_code_is_one_when_only_a_waiting_workload_changes(tmp_path: Path):
    # Its pod template changes: what --exit-code gates on, though no pod rolls.
    text = ("apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\nspec:\n  updateStrategy: {{type: OnDelete}}\n"
            "  template:\n    spec:\n      containers: [{{name: c, image: '{}'}}]\n")
    (tmp_path / "old.yaml").write_text(text.format("x:1"))
    (tmp_path / "new.yaml").write_text(text.format("x:2"))
    result = run_postrender(["diff", "--exit-code", "-o", "json", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")])
    report = json.loads(result.stdout)
    assert (result.status, report["rolls"], len(report["doesNotRoll"])) == (1, [], 1)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("empty", ["old", "new"])
def test_an_empty_side_is_a_warning_in_the_report_itself(fmt: str, empty: str):
    # A render that failed upstream of a pipe (no pipefail) gives an empty
    # side: a CI comment, which shows no stderr, must not say only that
    # nothing rolls.
    case = FIXTURES / "diff" / "data-change"
    other = str(case / ("new.yaml" if empty == "old" else "old.yaml"))
    sides = ("-", other) if empty == "old" else (other, "-")
    result = run_postrender(["diff", "-o", fmt, *sides], "")
    assert result.status == 0, result.stderr
    assert f"{empty} (-): no ConfigMap, Secret or workload in this input" in result.stdout


# (old, new) data entries Kubernetes reads alike: a key in another YAML 1.1
# spelling, a value as !!binary, a merge key. Beside them `b` changes.
SAME_ENTRIES = [("yes: '1'", "'true': '1'"), ("0x1F: v", "'31': v"), ("1_000: v", "'1000': v"),
                ("a: !!binary aGk=", "a: hi"), ("<<: {a: hi}", "a: hi"), ("? a\n: hi", "a: hi")]


@pytest.mark.parametrize("kind, field", [("ConfigMap", "data"), ("Secret", "stringData")])
@pytest.mark.parametrize("old, new", SAME_ENTRIES)
def test_keys_are_reported_as_kubernetes_reads_them(tmp_path: Path, kind: str, field: str, old: str, new: str):
    text = f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: cfg\n{field}:\n  b: '{{}}'\n  {{}}\n"
    (tmp_path / "old.yaml").write_text(text.format("1", old.replace("\n", "\n  ")))
    (tmp_path / "new.yaml").write_text(text.format("2", new.replace("\n", "\n  ")))
    result = run_postrender(["diff", "-o", "json", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")])
    assert result.status == 0, result.stderr
    (change,) = json.loads(result.stdout)["configChanges"]
    assert change["keys"] == {"changed": ["b"], "added": [], "removed": []}


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_control_character_of_a_name_or_key_reaches_the_terminal(tmp_path: Path, fmt: str):
    # Every place a format writes a name from the input, values shown too.
    text = ('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "cfg\\e[31m"\ndata:\n  "k\\e[1m": "VALUE"\n---\n'
            'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: "web\\e[2J"\nspec:\n  template:\n    spec:\n'
            '      containers: [{name: c, image: x, envFrom: [{configMapRef: {name: "cfg\\e[31m"}}]}]\n')
    (tmp_path / "old.yaml").write_text(text.replace("VALUE", "1"))
    (tmp_path / "new.yaml").write_text(text.replace("VALUE", "2"))
    result = run_postrender(["diff", "--show-values", "-o", fmt, str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")])
    assert result.status == 0, result.stderr
    assert "cfg" in result.stdout and "\x1b" not in result.stdout


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_summary_counts_each_rolling_workload_once(case: Path):
    summary = _diff(case, "table").stdout.splitlines()[0]
    found = re.search(r"(\d+) workloads? rolls? \(([^)]*)\)", summary)
    if found is None:
        assert "nothing rolls" in summary
        return
    counts = [int(n) for n in re.findall(r"(?:^|, )(\d+) because", found.group(2))]
    assert sum(counts) == int(found.group(1)), summary


# --- a base an older postrender wrote ---------------------------------------------------------------

_CONFIGS_AND_READER = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: a, namespace: app}
data: {k: "1"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: b, namespace: app%s}
data: {k: "2"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: app}
spec:
  template:
    spec:
      containers:
      - {name: c, image: x, envFrom: [{configMapRef: {name: a}}, {configMapRef: {name: b}}]}
"""


def test_a_base_an_older_version_wrote_is_compared_as_deployed(tmp_path):
    # Written by a postrender that left `b` named as written (0.1.0 versioned
    # less), the base's template names `b`; this version names `b-<hash>`.
    # diff rendered the base again as this version would write it, found
    # the two alike, and said nothing rolls: the Deployment does.
    old = run_postrender([], _CONFIGS_AND_READER % ", annotations: {postrender.io/versioned: 'false'}")
    assert old.status == 0, old.stderr
    base = tmp_path / "base.yaml"
    base.write_text(old.stdout.replace("    postrender.io/versioned: 'false'\n", "").replace(
        ", annotations: {postrender.io/versioned: 'false'}", ""))
    assert "configMapRef: {name: b}" in base.read_text() and "a-" in base.read_text()
    head = tmp_path / "head.yaml"
    head.write_text(_CONFIGS_AND_READER % "")
    rendered = run_postrender([str(head)])
    head_out = tmp_path / "head-out.yaml"
    head_out.write_text(rendered.stdout)
    version = re.search(r"name: (b-[a-z0-9]{10})\b", rendered.stdout).group(1)
    for new in (head, head_out):  # raw, and post-rendered by this version
        result = run_postrender(["diff", "-o", "json", "--exit-code", str(base), str(new)])
        assert result.status == 1, result.stderr
        report = json.loads(result.stdout)
        roll = _rolls(report)["Deployment/d"]
        assert [(b["name"], b["oldName"], b["newName"], b["change"], b["via"]) for b in roll["because"]] == [
            ("b", "b", version, "renamed", "name")]
        assert [v["name"] for v in report["versions"]["created"]] == [version]


def test_a_side_mixing_a_file_postrender_wrote_and_a_raw_one_reads_each_as_deployed(tmp_path):
    # One marked file made the whole side read as given: the raw file's
    # config, which a render versions, was compared by its raw name, and a
    # workload that does not roll was said to.
    raw = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}\ndata: {k: v}\n---\n"
           "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: f}\nspec:\n  template:\n    spec:\n"
           "      containers: [{name: c, image: x, envFrom: [{configMapRef: {name: other}}]}]\n")
    app = _CONFIGS_AND_READER % ""
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    new.mkdir()
    (old / "a.yaml").write_text(run_postrender([], app).stdout)  # post-rendered, by this version
    (new / "a.yaml").write_text(app)
    (old / "b.yaml").write_text(raw)
    (new / "b.yaml").write_text(raw)
    result = run_postrender(["diff", "-o", "json", "--exit-code", str(old), str(new)])
    assert result.status == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["rolls"] == [] and report["configChanges"] == []


# --- an update the API server refuses: the deploy fails ---------------------------------------------

_DEPLOYMENT = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n"
               "      containers: [{name: c, image: x,\n"
               "        envFrom: [{configMapRef: {name: cfg}}, {secretRef: {name: s}}]}]\n")


def _config(kind: str, name: str = "cfg", immutable: str = "immutable: true\n", value: str = "a",
            annotations: str = "{}", extra: str = "") -> str:
    data = f"data: {{k: {value}}}\n" if kind == "ConfigMap" else f"stringData: {{k: SECRET-{value}}}\n"
    return (f"---\napiVersion: v1\nkind: {kind}\nmetadata: {{name: {name}, annotations: {annotations}}}\n"
            f"{immutable}{extra}{data}")


_OPTED_OUT = '{postrender.io/versioned: "false"}'


@pytest.mark.parametrize("case, old, new, args, refused", [
    ("opted out", _config("ConfigMap", annotations=_OPTED_OUT),
     _config("ConfigMap", annotations=_OPTED_OUT, value="b"), [], "ConfigMap/cfg"),
    ("annotate", _config("ConfigMap"), _config("ConfigMap", value="b"), ["--strategy=annotate"], "ConfigMap/cfg"),
    ("the copy --keep-original keeps", _config("Secret", "s"), _config("Secret", "s", value="b"), [], "Secret/s"),
    ("a ConfigMap's copy", _config("ConfigMap"), _config("ConfigMap", value="b"), ["--keep-original=all"],
     "ConfigMap/cfg"),
    ("nothing uses it", _config("ConfigMap", "other"), _config("ConfigMap", "other", value="b"), [],
     "ConfigMap/other"),
    ("immutable taken out", _config("ConfigMap", annotations=_OPTED_OUT),
     _config("ConfigMap", annotations=_OPTED_OUT, immutable=""), [], "ConfigMap/cfg"),
    ("a Secret's type", _config("Secret", "s", annotations=_OPTED_OUT, immutable=""),
     _config("Secret", "s", annotations=_OPTED_OUT, immutable="", extra="type: example.com/token\n"), [],
     "Secret/s"),
])
@pytest.mark.parametrize("fmt", FORMATS)
def test_an_update_the_api_server_refuses_is_a_warning_in_every_format_and_fails_exit_code(
        tmp_path: Path, fmt: str, case: str, old: str, new: str, args: list[str], refused: str):
    """A config stored under one name on both sides (it keeps its name for
    any reason, or is the unsuffixed copy a version keeps) whose OLD says
    `immutable: true` cannot take new data or lose `immutable`; a Secret's
    `type` never changes: the deploy fails (diff61). Said in the report, not
    only on stderr, which a CI comment never shows; never a Secret's value."""
    (tmp_path / "old.yaml").write_text(old + "---\n" + _DEPLOYMENT)
    (tmp_path / "new.yaml").write_text(new + "---\n" + _DEPLOYMENT)
    result = run_postrender(["diff", "--exit-code", "-o", fmt, *args, str(tmp_path / "old.yaml"),
                             str(tmp_path / "new.yaml")])
    assert result.status == 1, result.stderr
    assert "SECRET-" not in result.stdout + result.stderr
    said = [w for w in json.loads(result.stdout)["warnings"]] if fmt == "json" else [result.stdout]
    assert any(f"{refused} " in w and "the API server refuses a change to" in w and "the deploy fails" in w
               for w in said), result.stdout
    assert "the API server refuses" in result.stderr


@pytest.mark.parametrize("case, old, new, args", [
    ("versioned", _config("ConfigMap"), _config("ConfigMap", value="b"), []),
    ("immutable on NEW only", _config("ConfigMap", annotations=_OPTED_OUT, immutable=""),
     _config("ConfigMap", annotations=_OPTED_OUT, value="b"), []),
    ("the same data", _config("ConfigMap", annotations=_OPTED_OUT),
     _config("ConfigMap", annotations=_OPTED_OUT).replace("data: {k: a}", "binaryData: {}\ndata: {k: a}"), []),
    ("no copy kept", _config("Secret", "s"), _config("Secret", "s", value="b"), ["--keep-original=none"]),
])
def test_an_update_the_api_server_takes_is_no_warning(tmp_path: Path, case: str, old: str, new: str,
                                                       args: list[str]):
    (tmp_path / "old.yaml").write_text(old + "---\n" + _DEPLOYMENT)
    (tmp_path / "new.yaml").write_text(new + "---\n" + _DEPLOYMENT)
    result = run_postrender(["diff", "-o", "json", *args, str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")])
    assert result.status == 0, result.stderr
    assert json.loads(result.stdout)["warnings"] == [] and "refuses" not in result.stderr, result.stdout


def test_a_kustomize_name_that_says_immutable_follows_its_content(tmp_path: Path):
    """kustomize names a generator's output by its content: a new content is
    a new name, so `immutable: true` on it is no refusal."""
    for side, value in (("old", "a"), ("new", "b")):
        (tmp_path / f"{side}.yaml").write_text(_config("ConfigMap", value=value) + "---\n" + _DEPLOYMENT)
    rendered = {}
    for side in ("old", "new"):
        out = run_postrender([str(tmp_path / f"{side}.yaml")]).stdout
        name = next(d for d in YAML(typ="safe").load_all(out) if d["kind"] == "ConfigMap")["metadata"]["name"]
        # kubectl kustomize's output: the name ends in its content hash, no postrender marks.
        rendered[side] = tmp_path / f"k-{side}.yaml"
        rendered[side].write_text((tmp_path / f"{side}.yaml").read_text().replace("cfg", name))
    result = run_postrender(["diff", "--exit-code", "-o", "json", str(rendered["old"]), str(rendered["new"])])
    assert result.status == 1, result.stderr  # the Deployment rolls: the name changes
    report = json.loads(result.stdout)
    assert report["warnings"] == [] and len(report["rolls"]) == 1, result.stdout


# --- one object in two groups ----------------------------------------------------------------------

_WORKLOAD = ("apiVersion: {api}\nkind: {kind}\nmetadata: {{name: web}}\nspec:\n  template:\n    spec:\n"
             "      nodeSelector: {selector}\n"
             "      containers: [{{name: c, image: x, envFrom: [{{configMapRef: {{name: cfg}}}}]}}]\n")
_INGRESS = ("apiVersion: {api}\nkind: Ingress\nmetadata: {{name: web}}\nspec:\n  tls: [{{secretName: tls}}]\n")


@pytest.mark.parametrize("kind, old_api, new_api, section", [
    ("Deployment", "extensions/v1beta1", "apps/v1", "rolls"),
    ("DaemonSet", "extensions/v1beta1", "apps/v1", "rolls"),
    ("ReplicaSet", "extensions/v1beta1", "apps/v1", "doesNotRoll"),  # its pods wait
    ("Deployment", "apps/v1", "extensions/v1beta1", "rolls"),
    ("CronJob", "batch/v1beta1", "batch/v1", "rolls"),  # one group: always paired
    ("Ingress", "extensions/v1beta1", "networking.k8s.io/v1", "updated"),
])
def test_an_object_moved_to_another_group_that_serves_its_kind_is_compared_as_itself(
        tmp_path: Path, kind: str, old_api: str, new_api: str, section: str):
    """The API server serves a Deployment in extensions and apps as one
    object (pairing.SAME_OBJECT_GROUPS): a chart moving to apps/v1 updates
    it, and its config change rolls it. It had been dropped silently (diff61).
    An empty nodeSelector is no field in either group's template."""
    for side, api, value, selector in (("old", old_api, "a", "{}"), ("new", new_api, "b", "null")):
        config = (f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cfg}}\ndata: {{k: {value}}}\n---\n"
                  f"apiVersion: v1\nkind: Secret\nmetadata: {{name: tls}}\ntype: kubernetes.io/tls\n"
                  f"stringData: {{tls.crt: {value}, tls.key: {value}}}\n---\n")
        text = _INGRESS if kind == "Ingress" else _WORKLOAD
        if kind == "CronJob":
            text = text.replace("  template:\n", "  schedule: '0 0 * * *'\n  jobTemplate:\n   spec:\n    template:\n")
            text = text.replace("    spec:\n      nodeSelector", "     spec:\n      nodeSelector")
        (tmp_path / f"{side}.yaml").write_text(config + text.format(api=api, kind=kind, selector=selector))
    result = run_postrender(["diff", "--exit-code", "-o", "json", str(tmp_path / "old.yaml"),
                             str(tmp_path / "new.yaml")])
    # An object without a pod template rolls nothing: --exit-code passes it.
    assert result.status == (0 if section == "updated" else 1), result.stderr
    report = json.loads(result.stdout)
    listed = [entry.get("workload", entry) for entry in report[section] if entry.get("workload", entry)]
    assert [(entry["kind"], entry["name"]) for entry in listed] == [(kind, "web")], result.stdout
    assert report["warnings"] == [] and report["unpaired"] == []
    if section == "rolls":
        assert report["rolls"][0]["changedFields"] == [], result.stdout  # only the config's new name


# --- standard input named twice ----------------------------------------------------------------------


@pytest.mark.parametrize("alias", ["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"])
@pytest.mark.parametrize("how", ["pipe", "file"])
@pytest.mark.parametrize("dash_first", [True, False])
def test_a_path_naming_standard_input_beside_dash_is_a_usage_error(tmp_path: Path, alias: str, how: str,
                                                                    dash_first: bool):
    """`/dev/stdin -` reads a pipe twice, as `- -` would: the second side
    found it empty, and the report said everything was removed (diff61).
    Run as a process: standard input is its own. The same device and inode
    count, whatever the path. A regular file given as standard input is read
    whole by each side, as that file named twice is (review61b): no error."""
    if not Path(alias).exists():
        pytest.skip(f"{alias} is not on this system")  # /proc is Linux's
    new = FIXTURES / "diff" / "data-change" / "new.yaml"
    argv = ["diff", "--exit-code", "-", alias] if dash_first else ["diff", "--exit-code", alias, "-"]
    command = [sys.executable, "-m", "postrender", *argv]
    if how == "pipe":
        result = subprocess.run(command, input=new.read_bytes(), capture_output=True, cwd=ROOT)
    else:
        with new.open("rb") as stdin:
            result = subprocess.run(command, stdin=stdin, capture_output=True, cwd=ROOT)
        assert result.returncode == 0 and b"nothing rolls" in result.stdout, result.stderr
        return
    assert (result.returncode, result.stdout) == (2, b""), result.stderr
    named = "- (standard input) and " + alias if dash_first else alias + " and - (standard input)"
    assert result.stderr.decode() == f"postrender: error: diff: {named} name the same input; name each input once\n"


def test_two_paths_naming_one_pipe_are_a_usage_error_and_a_file_named_twice_is_not(tmp_path: Path):
    new = FIXTURES / "diff" / "data-change" / "new.yaml"
    old = FIXTURES / "diff" / "data-change" / "old.yaml"
    command = [sys.executable, "-m", "postrender", "diff", "/dev/stdin", "/dev/fd/0"]
    piped = subprocess.run(command, input=new.read_bytes(), capture_output=True, cwd=ROOT)
    assert (piped.returncode, piped.stdout) == (2, b""), piped.stderr
    # A file redirected to standard input: each path opens it anew and reads it whole.
    with new.open("rb") as stdin:
        redirected = subprocess.run(command, stdin=stdin, capture_output=True, cwd=ROOT)
    assert redirected.returncode == 0, redirected.stderr
    # That file named beside `-` it is given as (review61b: refused, where it had compared).
    with new.open("rb") as stdin:
        beside = subprocess.run([*command[:4], str(new), "-"], stdin=stdin, capture_output=True, cwd=ROOT)
    assert beside.returncode == 0 and b"nothing rolls" in beside.stdout, beside.stderr
    # A side naming the file standard input is, with no `-`: nothing reads standard input.
    with new.open("rb") as stdin:
        plain = subprocess.run([*command[:4], str(old), str(new)], stdin=stdin, capture_output=True, cwd=ROOT)
    assert plain.returncode == 0 and b"3 workloads roll" in plain.stdout, plain.stderr
