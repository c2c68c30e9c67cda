"""kustomize legacy exec transformer, run by the real `kubectl kustomize --enable-alpha-plugins`.

The plugin is installed as a user would, both ways the README gives: the
PostRender wrapper copied to
$KUSTOMIZE_PLUGIN_HOME/postrender.io/v1alpha1/postrender/PostRender, or the
postrender binary itself linked there.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, require_tool, run_cli, run_postrender
from manifests import all_references, configs, documents, ident, tool_env, unresolved, venv_bin, versioned
from postrender.errors import UsageError
from postrender.frontends.kustomize_exec import PluginConfig, parse
from postrender.options import RenderOptions

WRAPPER = ROOT / "integrations" / "kustomize" / "postrender.io" / "v1alpha1" / "postrender" / "PostRender"
OVERLAY = FIXTURES / "kustomize" / "overlay"


@pytest.fixture(params=["wrapper", "binary"])
def plugin_home(tmp_path: Path, request) -> Path:
    home = tmp_path / "plugins"
    target = home / "postrender.io" / "v1alpha1" / "postrender" / "PostRender"
    target.parent.mkdir(parents=True)
    if request.param == "wrapper":
        shutil.copy2(WRAPPER, target)
    else:
        target.symlink_to(Path(venv_bin()) / "postrender")
    return home


@pytest.fixture
def overlay(tmp_path: Path) -> Path:
    """A writable copy of fixtures/kustomize (base and overlay)."""
    shutil.copytree(FIXTURES / "kustomize" / "base", tmp_path / "base")
    shutil.copytree(OVERLAY, tmp_path / "overlay")
    return tmp_path / "overlay"


def build(path: Path, plugin_home: Path | None, alpha: bool = True, **extra: str) -> subprocess.CompletedProcess[str]:
    kubectl = require_tool("kubectl")
    command = [kubectl, "kustomize", str(path)] + (["--enable-alpha-plugins"] if alpha else [])
    plugin: dict[str, str] = {}
    if plugin_home:
        # kustomize writes each exec plugin's config to a temporary file and
        # removes it only when the plugin succeeds: a refused stream leaves
        # one behind, in the test's own folder rather than the machine's.
        temporary = plugin_home.parent / "tmp"
        temporary.mkdir(exist_ok=True)
        plugin = {"KUSTOMIZE_PLUGIN_HOME": str(plugin_home), "XDG_CACHE_HOME": str(plugin_home.parent / "cache"),
                  "TMPDIR": str(temporary)}
    env = tool_env(**plugin, **extra)
    # No controlling terminal: postrender's diagnostics stay out of the developer's.
    return subprocess.run(command, capture_output=True, text=True, env=env, start_new_session=True)


def by_ident(docs):
    return {ident(d): d for d in docs}


def test_overlay_is_versioned_and_generators_are_hashed_once(plugin_home, overlay):
    result = build(OVERLAY, plugin_home)
    assert result.returncode == 0, result.stderr
    docs = documents(result.stdout)
    assert unresolved(docs) == []
    assert {d["metadata"]["namespace"] for d in docs} == {"shop"}

    plain = {name: d for (_, name), d in configs(docs).items() if not name.startswith("generated")}
    # The Secret also keeps an unsuffixed copy (--keep-original=auto).
    copies = {name for name, d in plain.items() if "postrender.io/copy-of" in d["metadata"].get("annotations", {})}
    assert copies == {"credentials"}
    plain = {name: d for name, d in plain.items() if name not in copies}
    assert {re.sub(r"-[a-z0-9]{10}$", "", n) for n in plain} == {"settings", "features", "credentials"}
    assert all(versioned(d) for d in plain.values())

    # kustomize's own generator output: the name kustomize gives it without
    # postrender, and none of postrender's marks.
    (overlay / "kustomization.yaml").write_text(
        (overlay / "kustomization.yaml").read_text().replace("transformers:\n  - postrender.yaml\n", "")
    )
    without = build(overlay, None, alpha=False)
    assert without.returncode == 0, without.stderr
    kustomize_names = {name for (_, name) in configs(documents(without.stdout)) if name.startswith("generated")}
    generated = {name: d for (_, name), d in configs(docs).items() if name.startswith("generated")}
    assert set(generated) == kustomize_names
    assert all(re.fullmatch(r"generated(-secret)?-[a-z0-9]{10}", n) for n in generated)
    for d in generated.values():
        assert "labels" not in d["metadata"] and "immutable" not in d

    # The Deployment names postrender's versions and kustomize's generated names.
    web = by_ident(docs)["Deployment/web"]
    assert {r.name for r in all_references([web])} == set(plain) | set(generated)


def test_inline_name_reference_reaches_custom_resources(plugin_home):
    result = build(OVERLAY, plugin_home)
    assert result.returncode == 0, result.stderr
    docs = documents(result.stdout)
    widget = by_ident(docs)["Widget/gadget"]
    settings = next(name for (_, name) in configs(docs) if name.startswith("settings-"))
    assert widget["spec"]["configMapName"] == settings


def test_a_field_no_field_spec_covers_fails_the_build(plugin_home, overlay):
    # Gizmo's spec.configMapName looks like a reference, but only Widget's is
    # declared in the config: Gizmo would keep naming a ConfigMap that is gone.
    base = overlay.parent / "base" / "app.yaml"
    base.write_text(
        base.read_text() + "---\napiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g}\n"
        "spec: {configMapName: settings}\n"
    )
    result = build(overlay, plugin_home)
    assert result.returncode != 0 and result.stdout == ""
    assert "(the stream kustomize passed, Gizmo/g) line" in result.stderr
    assert "spec.configMapName: still names ConfigMap 'settings'" in result.stderr

    # strict: false changes nothing (a vanished name fails anyway);
    # allowBrokenReferences: true renders, and the warning goes to the log.
    config = overlay / "postrender.yaml"
    config.write_text(config.read_text().replace("strict: true", "strict: false"))
    assert build(overlay, plugin_home).returncode != 0
    config.write_text(config.read_text().replace("strict: false", "allowBrokenReferences: true"))
    log = overlay / "postrender.log"
    relaxed = build(overlay, plugin_home, POSTRENDER_LOG_FILE=str(log))
    assert relaxed.returncode == 0, relaxed.stderr
    assert by_ident(documents(relaxed.stdout))["Gizmo/g"]["spec"]["configMapName"] == "settings"
    # kustomize drops a successful plugin's stderr; the warning is in the log.
    assert "still names ConfigMap 'settings'" not in relaxed.stderr
    assert "still names ConfigMap 'settings'" in log.read_text()


def test_a_field_the_kustomizations_configurations_name_is_rewritten_by_postrender_too(plugin_home, overlay):
    """A Gizmo field only the kustomization's `configurations:` names: postrender
    reads the file, rewrites the field to the version and raises no guard
    hit (the build failed, "will point at nothing", though kustomize maps it)."""
    base = overlay.parent / "base" / "app.yaml"
    base.write_text(base.read_text() + "---\napiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g}\n"
                    "spec: {configMapName: settings}\n")
    (overlay / "gizmo.yaml").write_text("nameReference:\n- kind: ConfigMap\n  version: v1\n  fieldSpecs:\n"
                                        "  - {kind: Gizmo, group: example.com, path: spec/configMapName}\n")
    kustomization = overlay / "kustomization.yaml"
    kustomization.write_text(kustomization.read_text() + "configurations:\n  - gizmo.yaml\n")
    result = build(overlay, plugin_home)
    assert result.returncode == 0, result.stderr
    docs = by_ident(documents(result.stdout))
    settings = next(name for (_, name) in configs(list(docs.values())) if name.startswith("settings-"))
    assert docs["Gizmo/g"]["spec"]["configMapName"] == settings
    # A row postrender's reader refuses (a field spec without a path) is kustomize's alone: passed over
    # with a warning, never an error of its own (the build fails here on the field the row no longer covers).
    (overlay / "gizmo.yaml").write_text("nameReference:\n- kind: ConfigMap\n  fieldSpecs: [{kind: Gizmo}]\n")
    passed_over = build(overlay, plugin_home)
    assert ("postrender: warning: the kustomization's configurations: gizmo.yaml: nameReference[0].fieldSpecs[0]:"
            " takes path or paths (a list of them): exactly one; postrender skips this row") in passed_over.stderr
    assert "postrender: error: the kustomization's configurations" not in passed_over.stderr


def test_a_reference_to_generator_output_the_configurations_cover_builds_under_strict(plugin_home, overlay):
    """A Widget field (the PostRender config's own field spec) naming the
    overlay's generated ConfigMap: kustomize suffixes it after postrender
    and rewrites the field only where a `configurations:` row names it.
    Without the row, strict fails naming the row to add; with it, strict
    builds and the Widget names kustomize's output (it failed, asking for
    the row that was there)."""
    base = overlay.parent / "base" / "app.yaml"
    base.write_text(base.read_text() + "---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"
                    "spec: {configMapName: generated}\n")
    refused = build(overlay, plugin_home)
    assert refused.returncode != 0 and refused.stdout == ""
    row = "{kind: Widget, group: example.com, path: spec/configMapName}"
    assert f"fieldSpecs: [{row}]}}]); none that postrender read does" in refused.stderr
    (overlay / "widget.yaml").write_text(f"nameReference:\n- kind: ConfigMap\n  fieldSpecs:\n  - {row}\n")
    kustomization = overlay / "kustomization.yaml"
    kustomization.write_text(kustomization.read_text() + "configurations:\n  - widget.yaml\n")
    result = build(overlay, plugin_home)
    assert result.returncode == 0, result.stderr
    docs = documents(result.stdout)
    (generated,) = [name for (_, name) in configs(docs) if re.fullmatch(r"generated-[a-z0-9]{10}", name)]
    assert by_ident(docs)["Widget/w"]["spec"]["configMapName"] == generated


def test_a_transformer_listed_after_postrender_fails_the_build(plugin_home, overlay):
    """A transformer after postrender could edit a version's data by the
    name it had (its previousNames), leaving a name that no longer says
    what it holds: refused, naming it; listed before postrender, it builds."""
    config_patch = ("apiVersion: builtin\nkind: PatchTransformer\nmetadata: {name: late-patch}\npatch: |-\n"
                    "  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: settings}\n  data: {color: red}\n")
    (overlay / "patch.yaml").write_text(config_patch)
    kustomization = overlay / "kustomization.yaml"
    text = kustomization.read_text()
    late_listing = text.replace("transformers:\n  - postrender.yaml\n", "transformers:\n  - postrender.yaml\n  - patch.yaml\n")
    kustomization.write_text(late_listing)
    late = build(overlay, plugin_home)
    assert late.returncode != 0 and late.stdout == ""
    assert "the kustomization lists PatchTransformer/late-patch after postrender" in late.stderr
    assert "list it before postrender" in late.stderr
    # A replacement that writes a config's data is refused alike; one that only reads a config's name, a
    # patch of a Deployment and a label transformer never touch what a hash covers: they build.
    for harmless, transformer in ((False, "apiVersion: builtin\nkind: ReplacementTransformer\nmetadata: {name: r}\n"
                                          "replacements:\n- source: {kind: Deployment, name: web, fieldPath: metadata.name}\n"
                                          "  targets:\n  - select: {kind: ConfigMap, name: settings}\n"
                                          "    fieldPaths: [data.owner]\n    options: {create: true}\n"),
                                  (True, "apiVersion: builtin\nkind: ReplacementTransformer\nmetadata: {name: r}\n"
                                         "replacements:\n- source: {kind: ConfigMap, name: settings, fieldPath: metadata.name}\n"
                                         "  targets:\n  - select: {kind: Deployment, name: web}\n"
                                         "    fieldPaths: [metadata.annotations.settings]\n    options: {create: true}\n"),
                                  (True, "apiVersion: builtin\nkind: PatchTransformer\nmetadata: {name: p}\n"
                                         "target: {kind: Deployment}\npatch: '[{\"op\": \"add\", \"path\": \"/spec/replicas\", \"value\": 2}]'\n"),
                                  (True, "apiVersion: builtin\nkind: LabelTransformer\nmetadata: {name: l}\nlabels: {team: a}\n"
                                         "fieldSpecs: [{path: metadata/labels, create: true}]\n")):
        (overlay / "patch.yaml").write_text(transformer)
        kustomization.write_text(late_listing)
        result = build(overlay, plugin_home)
        assert (result.returncode == 0) is harmless, (transformer, result.stderr)
    (overlay / "patch.yaml").write_text(config_patch)
    kustomization.write_text(text.replace("transformers:\n  - postrender.yaml\n",
                                          "transformers:\n  - patch.yaml\n  - postrender.yaml\n"))
    first = build(overlay, plugin_home)
    assert first.returncode == 0, first.stderr
    (settings,) = [d for d in documents(first.stdout) if d["metadata"]["name"].startswith("settings-")
                   and "postrender.io/copy-of" not in (d["metadata"].get("annotations") or {})]
    assert settings["data"]["color"] == "red"
    # Its name is the hash of what it holds: a second run over the output renames nothing.
    again = run_cli(["--version-all"], first.stdout)
    assert settings["metadata"]["name"] in again.stdout


def _settings_built_without_postrender(overlay: Path) -> dict:
    """ConfigMap/settings as kustomize alone builds the overlay, postrender
    taken out of its transformers: what a transformer after it writes."""
    alone = overlay.parent / "alone"
    shutil.rmtree(alone, ignore_errors=True)
    shutil.copytree(overlay, alone)
    kustomization = (overlay / "kustomization.yaml").read_text()
    (alone / "kustomization.yaml").write_text(kustomization.replace("  - postrender.yaml\n", ""))
    plain = build(alone, None, alpha=False)
    assert plain.returncode == 0, plain.stderr
    return by_ident(documents(plain.stdout))["ConfigMap/settings"]


def test_a_late_transformers_path_is_read_as_kustomize_reads_it(plugin_home, overlay):
    """kustomize reads a fieldSpec path `/data/greeting` as `data/greeting`
    (and `data[]/greeting` alike): a transformer told to write there after
    postrender edits a version's data. It built, exit 0, the name no longer
    saying what the ConfigMap held; now it is refused, naming it."""
    kustomization = overlay / "kustomization.yaml"
    kustomization.write_text(kustomization.read_text().replace(
        "transformers:\n  - postrender.yaml\n", "transformers:\n  - postrender.yaml\n  - late.yaml\n"))
    for path in ("/data/greeting", "data[]/greeting"):
        (overlay / "late.yaml").write_text("apiVersion: builtin\nkind: PrefixSuffixTransformer\nmetadata: {name: ps}\n"
                                           f"prefix: zz-\nfieldSpecs: [{{kind: ConfigMap, path: '{path}'}}]\n")
        # Without postrender, kustomize itself writes into the data: the path is one it follows.
        assert _settings_built_without_postrender(overlay)["data"]["greeting"] == "zz-hello"
        refused = build(overlay, plugin_home)
        assert refused.returncode != 0 and refused.stdout == "", (path, refused.stdout)
        assert "the kustomization lists PrefixSuffixTransformer/ps after postrender" in refused.stderr


def test_a_late_value_add_transformer_is_judged_by_its_targets(plugin_home, overlay):
    """A ValueAddTransformer states the kinds (selector.kind) and the field
    (fieldPath) it writes: one into a ConfigMap's data after postrender was
    only warned of (the warning in a log kustomize hides), and the version's
    name no longer said what it held. Now refused, naming it; one writing an
    annotation builds."""
    kustomization = overlay / "kustomization.yaml"
    kustomization.write_text(kustomization.read_text().replace(
        "transformers:\n  - postrender.yaml\n", "transformers:\n  - postrender.yaml\n  - late.yaml\n"))

    def value_add(field_path: str) -> None:
        (overlay / "late.yaml").write_text("apiVersion: builtin\nkind: ValueAddTransformer\nmetadata: {name: va}\n"
                                           "value: two\ntargets:\n- selector: {kind: ConfigMap, name: settings}\n"
                                           f"  fieldPath: {field_path}\n")

    value_add("/data/extra")
    # Without postrender, kustomize itself writes into the data: the path is one it follows.
    assert _settings_built_without_postrender(overlay)["data"]["extra"] == "two"
    refused = build(overlay, plugin_home)
    assert refused.returncode != 0 and refused.stdout == ""
    assert "the kustomization lists ValueAddTransformer/va after postrender" in refused.stderr
    value_add("metadata/annotations/extra")
    harmless = build(overlay, plugin_home)
    assert harmless.returncode == 0, harmless.stderr
    (settings,) = [d for d in documents(harmless.stdout) if d["metadata"]["name"].startswith("settings-")]
    assert settings["metadata"]["annotations"]["extra"] == "two" and "extra" not in settings["data"]


def test_the_order_checked_is_the_order_kustomize_runs_transformers_in(plugin_home, overlay):
    """kustomize runs every inline entry of `transformers:` first, then every
    file: an inline PostRender runs before a file patch listed above it (the
    patch then edits a version: refused), and an inline patch runs before a
    file PostRender listed above it (it builds). A one-line flow entry is
    inline too."""
    config = (overlay / "postrender.yaml").read_text()
    patch = ("apiVersion: builtin\nkind: PatchTransformer\nmetadata: {name: late-patch}\npatch: |-\n"
             "  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: settings}\n  data: {color: red}\n")
    (overlay / "patch.yaml").write_text(patch)
    kustomization = overlay / "kustomization.yaml"
    text = kustomization.read_text()

    def listing(*entries: str) -> None:
        block = "".join(f"  - {json.dumps(e)}\n" for e in entries)
        kustomization.write_text(text.replace("transformers:\n  - postrender.yaml\n", "transformers:\n" + block))

    listing("patch.yaml", config)
    refused = build(overlay, plugin_home)
    assert refused.returncode != 0 and "PatchTransformer/late-patch after postrender" in refused.stderr
    listing("postrender.yaml", patch)
    assert build(overlay, plugin_home).returncode == 0
    one_line = "{apiVersion: postrender.io/v1alpha1, kind: PostRender, metadata: {name: postrender}, namespace: shop}"
    listing(one_line, "patch.yaml")
    refused = build(overlay, plugin_home)
    assert refused.returncode != 0 and "PatchTransformer/late-patch after postrender" in refused.stderr


KUSTOMIZE_SPELLINGS = """\
nameReference:
  - kind: ConfigMap
    fieldSpecs:
      - {kind: Gadget, path: "spec/sources[]/cm"}
      - {kind: Widget, path: /spec/cm}
      - {path: spec/any}
      - {kind: Gadget, path: "spec/odd[x]"}
"""
SPELLED_STREAM = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: b}
data: {x: "2"}
---
apiVersion: example.com/v1
kind: Gadget
metadata: {name: g}
spec:
  sources: [{cm: b}]
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
spec: {cm: b, any: b}
"""


def test_configurations_in_kustomizes_own_spellings_are_read_as_kustomize_reads_them(plugin_home, tmp_path):
    """`[]` after a list's key, a leading `/`, a fieldSpec without a kind:
    kustomize maps a name through each (its namePrefix, here). One such row
    had postrender skip the whole file, without a word: the ConfigMap was
    never versioned. Now each is read; a row postrender still refuses
    (`spec/odd[x]`, which kustomize reads as a key of that name) is
    skipped alone, and said in the log."""
    folder = tmp_path / "spelled"
    folder.mkdir()
    (folder / "all.yaml").write_text(SPELLED_STREAM)
    (folder / "kc.yaml").write_text(KUSTOMIZE_SPELLINGS)
    (folder / "postrender.yaml").write_text("apiVersion: postrender.io/v1alpha1\nkind: PostRender\n"
                                            "metadata: {name: postrender}\n")
    listing = "namePrefix: p-\nresources: [all.yaml]\nconfigurations: [kc.yaml]\n"
    (folder / "kustomization.yaml").write_text(listing)
    alone = build(folder, None, alpha=False)
    assert alone.returncode == 0, alone.stderr
    docs = by_ident(documents(alone.stdout))
    assert [docs["Gadget/p-g"]["spec"]["sources"][0]["cm"], docs["Widget/p-w"]["spec"]["cm"],
            docs["Widget/p-w"]["spec"]["any"]] == ["p-b"] * 3
    (folder / "kustomization.yaml").write_text(listing + "transformers: [postrender.yaml]\n")
    log = tmp_path / "postrender.log"
    result = build(folder, plugin_home, POSTRENDER_LOG_FILE=str(log))
    assert result.returncode == 0, result.stderr
    docs = by_ident(documents(result.stdout))
    (version,) = [name for (_, name) in configs(list(docs.values()))]
    assert re.fullmatch(r"p-b-[a-z0-9]{10}", version)
    assert [docs["Gadget/p-g"]["spec"]["sources"][0]["cm"], docs["Widget/p-w"]["spec"]["cm"],
            docs["Widget/p-w"]["spec"]["any"]] == [version] * 3
    assert ("configurations: kc.yaml: nameReference[0].fieldSpecs[3].path: bad filter [x] in path 'spec/odd[x]';"
            " postrender skips this row") in log.read_text()


def test_a_bases_configurations_are_read_as_the_overlays(plugin_home, overlay):
    """kustomize merges a base's `configurations:` into the build's: a field
    only they name is rewritten by postrender in the overlay too."""
    base = overlay.parent / "base"
    (base / "app.yaml").write_text((base / "app.yaml").read_text() + "---\napiVersion: example.com/v1\nkind: Gizmo\n"
                                   "metadata: {name: g}\nspec: {configMapName: settings}\n")
    (base / "gizmo.yaml").write_text("nameReference:\n- kind: ConfigMap\n  fieldSpecs:\n"
                                     "  - {kind: Gizmo, group: example.com, path: spec/configMapName}\n")
    (base / "kustomization.yaml").write_text((base / "kustomization.yaml").read_text() + "configurations: [gizmo.yaml]\n")
    result = build(overlay, plugin_home)
    assert result.returncode == 0, result.stderr
    docs = by_ident(documents(result.stdout))
    settings = next(name for (_, name) in configs(list(docs.values())) if name.startswith("settings-"))
    (gizmo,) = [d for d in docs.values() if d["kind"] == "Gizmo"]
    assert gizmo["spec"]["configMapName"] == settings


def test_postrender_in_a_component_is_warned_of(plugin_home, overlay):
    """A Component's transformers run before the including kustomization's
    own fields, whose edits postrender cannot see."""
    component = overlay.parent / "component"
    component.mkdir()
    shutil.move(str(overlay / "postrender.yaml"), component / "postrender.yaml")
    (component / "kustomization.yaml").write_text("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
                                                  "transformers: [postrender.yaml]\n")
    kustomization = overlay / "kustomization.yaml"
    kustomization.write_text(kustomization.read_text().replace("transformers:\n  - postrender.yaml\n",
                                                               "components: [../component]\n"))
    log = overlay.parent / "postrender.log"
    result = build(overlay, plugin_home, POSTRENDER_LOG_FILE=str(log))
    assert result.returncode == 0, result.stderr
    assert "postrender is listed in a Component" in log.read_text()


def test_keep_original_and_mutable_from_the_config(plugin_home, overlay):
    config = overlay / "postrender.yaml"
    config.write_text(config.read_text() + "keepOriginal: true\nmutable: true\n")
    result = build(overlay, plugin_home)
    assert result.returncode == 0, result.stderr
    docs = documents(result.stdout)
    names = {name for (_, name) in configs(docs)}
    assert {"settings", "features", "credentials"} <= names
    assert not any(d.get("immutable") for d in configs(docs).values())
    assert unresolved(docs) == []


def test_args_one_liner_carries_flags_and_never_replaces_the_stream(plugin_home, overlay):
    config = overlay / "postrender.yaml"
    original = config.read_text()
    config.write_text(original + "argsOneLiner: --mutable -v\n")
    result = build(overlay, plugin_home)
    assert result.returncode == 0, result.stderr
    docs = documents(result.stdout)
    assert "Deployment/web" in {ident(d) for d in docs} and "PostRender" not in {d["kind"] for d in docs}
    plain = [d for (_, name), d in configs(docs).items() if not name.startswith("generated")]
    assert plain and not any(d.get("immutable") for d in plain)

    # A word that is no flag would be read as input: refused, never a silent
    # replacement of the whole stream by that file.
    (overlay / "other.yaml").write_text(original)
    config.write_text(original + f"argsOneLiner: {overlay / 'other.yaml'}\n")
    result = build(overlay, plugin_home)
    assert result.returncode != 0 and result.stdout == ""
    assert "reads the resources from standard input" in result.stderr


def test_args_one_liner_cannot_divert_the_output(plugin_home, overlay, tmp_path):
    # -o FILE wrote the stream to the file and kustomize got 0 bytes, exit 0:
    # a build with every resource gone.
    config = overlay / "postrender.yaml"
    diverted = tmp_path / "diverted.yaml"
    config.write_text(config.read_text() + f"argsOneLiner: -o {diverted}\n")
    result = build(overlay, plugin_home)
    assert result.returncode != 0 and result.stdout == ""
    assert "-o/--output is not available with --plugin-config" in result.stderr
    assert not diverted.exists()


def test_a_bad_config_stops_kustomize_with_a_clear_message(plugin_home, overlay):
    config = overlay / "postrender.yaml"
    config.write_text(config.read_text() + "keepOrignal: true\n")
    result = build(overlay, plugin_home)
    assert result.returncode != 0 and result.stdout == ""
    assert "unknown field(s) keepOrignal" in result.stderr
    # What kustomize leaves of a failed plugin run (README, kustomize): the
    # plugin's config, which names no value of the stream.
    left = list((plugin_home.parent / "tmp").glob("kust-plugin-config-*"))
    assert len(left) == 1 and "keepOrignal: true" in left[0].read_text()


@pytest.mark.parametrize("origins", [True, False], ids=["origin-annotations", "none"])
def test_an_error_names_the_file_kustomize_says_and_calls_its_line_kustomizes(plugin_home, overlay, origins):
    """kustomize hands the transformer its own writing of the resources
    (keys sorted, its id annotations added): a line of that is no line of
    the user's file. With `buildMetadata: [originAnnotations]` the message
    names the object's file; either way it says whose line it gives."""
    (overlay / "bad.yaml").write_text(
        "# a comment, and blank lines kustomize drops\n\napiVersion: v1\nkind: Secret\nmetadata:\n  name: bad\n"
        "data:\n  tok: not*base64\n")
    kustomization = overlay / "kustomization.yaml"
    kustomization.write_text(kustomization.read_text().replace("  - ../base\n", "  - ../base\n  - bad.yaml\n")
                             + ("buildMetadata: [originAnnotations]\n" if origins else ""))
    result = build(overlay, plugin_home)
    assert result.returncode != 0 and result.stdout == ""
    [said] = [line for line in result.stderr.splitlines() if "postrender: error:" in line]
    where = "bad.yaml" if origins else "the stream kustomize passed"
    assert re.search(rf"document \d+ \({re.escape(where)}, Secret/bad\) {'stream line' if origins else 'line'} \d+: "
                     r"data\.tok is not valid base64", said), said
    assert "not*base64" not in result.stderr


# --- the config object itself ------------------------------------------------


def test_postrender_config_fields_become_render_options():
    config = parse(
        {
            "apiVersion": "postrender.io/v1alpha1",
            "kind": "PostRender",
            "metadata": {"name": "p"},
            "namespace": "shop",
            "mutable": True,
            "keepOriginal": True,
            "strict": True,
            "nameReference": [{"kind": "Secret", "fieldSpecs": [{"kind": "Widget", "path": "spec/secret"}]}],
        },
        "test",
    )
    options = config.apply(RenderOptions(namespace="other"))
    assert (options.namespace, options.mutable, options.keep_original, options.strict) == ("shop", True, "all", True)
    ((origin, data),) = options.inline_configs
    assert "PostRender/p" in origin and data["nameReference"][0]["kind"] == "Secret"


def test_kpt_style_configmap_function_config():
    config = parse({"apiVersion": "v1", "kind": "ConfigMap", "data": {"namespace": "a", "mutable": "true"}}, "fc")
    # Its kind kept: advice sends field specs, which its data takes not, to a PostRender.
    assert config == PluginConfig(origin="fc", values={"namespace": "a", "mutable": True}, kind="ConfigMap")
    # A ConfigMap's other fields are its own, not options, and not refused.
    assert parse({"apiVersion": "v1", "kind": "ConfigMap", "immutable": True, "binaryData": {}, "data": {}}, "fc") == (
        PluginConfig(origin="fc", values={}, kind="ConfigMap"))


@pytest.mark.parametrize(
    "data,message",
    [
        ({"apiVersion": "postrender.io/v1", "kind": "PostRender"}, "apiVersion must be postrender.io/v1alpha1; it is not"),
        ({"apiVersion": "postrender.io/v1alpha1", "kind": "PostRender", "mutable": "yes"}, "mutable must be true or false"),
        ({"apiVersion": "postrender.io/v1alpha1", "kind": "PostRender", "namespace": ""}, "namespace must be"),
        ({"apiVersion": "example.com/v1", "kind": "Other"}, "expected kind PostRender"),
        ({"apiVersion": "v1", "kind": "ConfigMap", "data": {"strict": "maybe"}}, 'data.strict must be "true" or "false"'),
        ({"apiVersion": "v1", "kind": "ConfigMap", "data": {"nameReference": "x"}}, "unknown key(s) nameReference"),
        ({"apiVersion": "postrender.io/v1alpha1", "kind": "PostRender", "strategy": "both"}, "strategy must be one of"),
        ({"apiVersion": "postrender.io/v1alpha1", "kind": "PostRender", "keepPrevious": "kapp"}, "keepPrevious must be one of"),
        ({"apiVersion": "postrender.io/v1alpha1", "kind": "PostRender", "metadata": [1]},
         "test: metadata must be a mapping, not list"),
        ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": True}}, "metadata.name must be a string"),
        # A ConfigMap's options go under data: beside it, or under a spec a
        # ConfigMap does not have, they were ignored and the run went on (krm62).
        ({"apiVersion": "v1", "kind": "ConfigMap", "spec": {"mutable": "true"}},
         "test: unknown field(s) spec (a ConfigMap's options go under data)"),
        ({"apiVersion": "v1", "kind": "ConfigMap", "data": {"mutable": "true"}, "mutable": False},
         "test: unknown field(s) mutable"),
        ({"apiVersion": "v1", "kind": "ConfigMap", "data": []}, "test: data must be a mapping"),
        # Absent is said in words, not as Python's None.
        ({}, "expected kind PostRender (postrender.io/v1alpha1) or a v1 ConfigMap, found no kind"),
        ({"kind": "PostRender"}, "a PostRender's apiVersion must be postrender.io/v1alpha1; it is missing"),
        ({"kind": "ConfigMap", "data": {"mutable": "true"}}, "a ConfigMap's apiVersion must be v1; it is missing"),
        ({"apiVersion": "v2", "kind": "ConfigMap"}, "a ConfigMap's apiVersion must be v1; it is not 'v2'"),
        ({"apiVersion": "v1", "kind": "ConfigMap", "binaryData": {"mutable": "dHJ1ZQ=="}},
         "binaryData holds no options; a ConfigMap's options go under data, as strings"),
    ],
)
def test_bad_configs_are_usage_errors(data, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        parse(data, "test")


def test_strategy_from_either_config_shape_keeps_names_and_annotates(tmp_path):
    stream = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n---\n"
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n"
        "      containers: [{name: x, envFrom: [{configMapRef: {name: c}}]}]\n"
    )
    shapes = {
        "postrender.yaml": "apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {name: p}\nstrategy: annotate\n",
        "configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: p}\ndata: {strategy: annotate}\n",
    }
    for file, text in shapes.items():
        config = tmp_path / file
        config.write_text(text)
        out = run_postrender(["--plugin-config", str(config)], stream)
        assert out.status == 0, out.stderr
        assert "name: c}" in out.stdout and "postrender.io/config-hash" in out.stdout


def test_keep_previous_and_scope_from_the_config(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text(
        "apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {name: p}\n"
        "keepPrevious: argocd\nscope: shop\nversionAll: true\n"
    )
    stream = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n"
    out = run_postrender(["--plugin-config", str(config)], stream)
    assert out.status == 0, out.stderr
    (cm,) = documents(out.stdout)
    assert cm["metadata"]["annotations"]["argocd.argoproj.io/sync-options"] == "Prune=false"
    assert cm["metadata"]["labels"]["postrender.io/scope"] == "shop"


def test_plugin_config_flag_exit_status(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {name: p}\nmutable: true\n"
                      "versionAll: true\n")
    stream = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n"
    ok = run_postrender(["--plugin-config", str(config)], stream)
    assert ok.status == 0 and "immutable" not in ok.stdout and "name: c-" in ok.stdout
    # Without versionAll nothing references c: it keeps its name.
    config.write_text(config.read_text().replace("versionAll: true", "versionAll: false"))
    assert "name: c}" in run_postrender(["--plugin-config", str(config)], stream).stdout
    missing = run_postrender(["--plugin-config", str(tmp_path / "nope.yaml")], stream)
    assert missing.status == 2 and missing.stdout == ""


def test_the_wrapper_copied_over_postrender_says_so_rather_than_run_itself(tmp_path):
    # `cp PostRender "$dir/"` over `ln -s $(command -v postrender) "$dir/PostRender"`
    # writes the wrapper into postrender's own file: it then ran itself for ever.
    overwritten = tmp_path / "bin" / "postrender"
    overwritten.parent.mkdir()
    shutil.copy(WRAPPER, overwritten)
    config = tmp_path / "postrender.yaml"
    config.write_text("apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {name: p}\n")
    result = subprocess.run([str(overwritten), str(config)], input="", capture_output=True, text=True, timeout=30,
                            env={"PATH": f"{overwritten.parent}:/usr/bin:/bin"})
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("PostRender: error: postrender is this wrapper, not postrender"), result.stderr
