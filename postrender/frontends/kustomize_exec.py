"""Options carried by a config object: kustomize's `PostRender` plugin config
or a KRM `functionConfig` (a `PostRender`, or a kpt-style ConfigMap).

kustomize runs a legacy exec transformer as `<plugin> <config file> [args]`
with the resources on stdin and KUSTOMIZE_PLUGIN_CONFIG_STRING set; the
`PostRender` wrapper under integrations/kustomize passes that file as
`--plugin-config`, and so does postrender itself when linked as the plugin.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..printable import quoted
from ..errors import UsageError
from ..fieldspecs import CONFIG_KINDS, SECTIONS, load_yaml_file
from ..fieldspecs.paths import kustomize_keys, value_add_keys
from ..hostflags import CHANNELS, PLUGIN_CONFIG, refused
from ..options import POSTRENDER_CONFIG, RenderOptions, by_config_key, with_values
from ..pipeline.read.documents import Source
from ..records import replace
from ..report import Reporter
from ..vocabulary import CONFIG_API_VERSION

API_VERSION = CONFIG_API_VERSION
# What messages call the stream kustomize hands the exec transformer.
KUSTOMIZE_STREAM = "the stream kustomize passed"
KIND = "PostRender"

# Field-spec sections in kustomize's nameReference format (see fieldspecs).
FIELD_SPEC_SECTIONS = SECTIONS
# kustomize reads these itself, for an exec plugin only (its extra arguments);
# they reach us in the file too. A KRM function gets no arguments from them.
_KUSTOMIZE_OWN = ("argsOneLiner", "argsFromFile")
_ENVELOPE = ("apiVersion", "kind", "metadata")
# A v1 ConfigMap's own fields: options are read from `data` alone.
_CONFIGMAP_FIELDS = (*_ENVELOPE, "data", "binaryData", "immutable")


@dataclass(frozen=True)
class PluginConfig:
    origin: str
    # RenderOptions fields (options.OPTIONS rows with a config key) set by the config.
    values: dict[str, Any] = field(default_factory=dict)
    field_specs: dict[str, Any] | None = None
    # PostRender, or ConfigMap (kpt's --fn-config): its data takes no field specs.
    kind: str = KIND

    def apply(self, options: RenderOptions) -> RenderOptions:
        """The config is the more specific instruction: its fields win."""
        changed = with_values(options, self.values)
        if self.field_specs:
            changed = replace(
                changed, inline_configs=[*options.inline_configs, (self.origin, self.field_specs)]
            )
        return changed


def load_file(path: str) -> PluginConfig:
    documents = load_yaml_file(path, "--plugin-config")
    if len(documents) != 1:
        raise UsageError(f"--plugin-config {path}: expected one {KIND} object, found {len(documents)} documents")
    return parse(documents[0], f"--plugin-config {path}", exec_plugin=True)


def parse(data: Any, origin: str, exec_plugin: bool = False) -> PluginConfig:
    """`exec_plugin`: the config of kustomize's exec plugin, not a KRM functionConfig."""
    if not isinstance(data, dict):
        raise UsageError(f"{origin}: the config must be a mapping")
    api_version, kind = data.get("apiVersion"), data.get("kind")
    name = _name(data)
    where = f"{origin} ({kind}/{name})" if name else origin
    _check_metadata(data.get("metadata"), where)
    wanted = {KIND: API_VERSION, "ConfigMap": "v1"}.get(kind)
    if wanted is None:
        found = "no kind" if kind is None else quoted(kind)
        raise UsageError(f"{where}: expected kind {KIND} ({API_VERSION}) or a v1 ConfigMap, found {found}")
    if api_version != wanted:
        # Said of either kind alike (review62a: a ConfigMap without one was
        # told "found 'ConfigMap'").
        said = "is missing" if api_version is None else f"is not {quoted(api_version)}"
        raise UsageError(f"{where}: a {kind}'s apiVersion must be {wanted}; it {said}")
    if kind == KIND:
        return _from_postrender(data, where, exec_plugin)
    return _from_configmap(data, where)


def _name(data: dict[str, Any]) -> str | None:
    metadata = data.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return name if isinstance(name, str) else None


def _check_metadata(metadata: Any, where: str) -> None:
    """An object's metadata: a mapping, its name text. Only the name is read
    (for messages); the rest is kustomize's and the orchestrator's (annotations)."""
    if metadata is None:
        return
    if not isinstance(metadata, dict):
        raise UsageError(f"{where}: metadata must be a mapping, not {type(metadata).__name__}")
    if metadata.get("name") is not None and not isinstance(metadata["name"], str):
        raise UsageError(f"{where}: metadata.name must be a string, not {quoted(metadata['name'])}")


def _from_postrender(data: dict[str, Any], where: str, exec_plugin: bool) -> PluginConfig:
    keys = by_config_key()
    if not exec_plugin:
        own = sorted(key for key in _KUSTOMIZE_OWN if key in data)
        if own:
            # Accepted and ignored, `argsOneLiner: --mutable` had no effect.
            raise UsageError(f"{where}: {', '.join(own)}: kustomize passes it to an exec plugin only, not to a "
                             "KRM function; set the options as fields of the functionConfig (mutable: true, ...)")
    known = {*_ENVELOPE, *keys, *FIELD_SPEC_SECTIONS, *(_KUSTOMIZE_OWN if exec_plugin else ())}
    unknown = sorted(str(k) for k in data if k not in known)
    if unknown:
        raise UsageError(f"{where}: unknown field(s) {', '.join(unknown)}")
    values = {
        option.field: option.convert_config(data[key], f"{where}: {key}")
        for key, option in keys.items()
        if data.get(key) is not None
    }
    specs = {key: data[key] for key in FIELD_SPEC_SECTIONS if data.get(key) is not None}
    return PluginConfig(where, values, specs or None)


def _from_configmap(data: dict[str, Any], where: str) -> PluginConfig:
    """kpt passes `--fn-config`/`configMap:` options as a ConfigMap of strings."""
    # A field a ConfigMap does not have (`spec:`, an option written beside
    # `data`) was ignored, and the run went on without the option asked for.
    unknown = sorted(str(k) for k in data if k not in _CONFIGMAP_FIELDS)
    if unknown:
        raise UsageError(f"{where}: unknown field(s) {', '.join(unknown)} (a ConfigMap's options go under data)")
    if data.get("binaryData"):
        # As an option under binaryData was ignored (review62a).
        raise UsageError(f"{where}: binaryData holds no options; a ConfigMap's options go under data, as strings")
    entries = data.get("data")
    if entries is None:
        entries = {}
    if not isinstance(entries, dict):
        raise UsageError(f"{where}: data must be a mapping")
    keys = by_config_key()
    unknown = sorted(str(k) for k in entries if k not in keys)
    if unknown:
        raise UsageError(f"{where}: unknown key(s) {', '.join(unknown)} (field specs need kind {KIND})")
    # An empty string is "not set", as kpt writes an option left blank. A
    # value written unquoted (`mutable: true`, `maxNodes: 5000`) reaches us
    # typed, as a PostRender's does, and is read as one: str(True) is
    # "True", which no choice's alias spells (keepOriginal: true).
    values = {
        option.field: (option.convert_text(value, f"{where}: data.{key}") if isinstance(value, str)
                       else option.convert_config(value, f"{where}: data.{key}"))
        for key, option in keys.items()
        if (value := entries.get(key)) not in (None, "")
    }
    return PluginConfig(where, values, kind="ConfigMap")


def check_arguments(args: argparse.Namespace) -> None:
    """kustomize passes argsOneLiner/argsFromFile words after the config file:
    flags only, and none that moves the stream. Read as input, a word would
    replace the resources kustomize sends; `-o FILE` left kustomize 0 bytes,
    exit 0, and every resource gone; a second --plugin-config would be read
    instead of kustomize's."""
    if args.paths or args.filenames:
        raise UsageError(
            "--plugin-config reads the resources from standard input, "
            f"not from {', '.join(args.filenames + args.paths)} "
            "(a word in argsOneLiner/argsFromFile that is not a postrender flag?)"
        )
    flag = refused(args, CHANNELS)
    if flag is None and len(args.plugin_config) > 1:
        flag = f"a second {PLUGIN_CONFIG['plugin_config']}"
    if flag is not None:
        raise UsageError(
            f"{flag} is not available with --plugin-config: as kustomize's exec plugin, postrender reads the "
            "resources from standard input, writes them to standard output and takes the config kustomize "
            "passes (a flag in argsOneLiner/argsFromFile?)"
        )


def run(path: str, sources: list[Source], options: RenderOptions, reporter: Reporter) -> Iterable[str]:
    """The legacy exec transformer: plain stream in and out (part by part, as
    a plain render), options from the file."""
    from . import render

    reporter.keep_warnings = False  # said as they come; nothing reads them again
    # The kustomization that lists the plugin, read once for both questions asked of it below.
    root = os.environ.get("KUSTOMIZE_PLUGIN_CONFIG_ROOT")
    kustomization = _kustomization(root)
    edits, unknown, caution = transformers_after(root, kustomization,
                                                 os.environ.get("KUSTOMIZE_PLUGIN_CONFIG_STRING", ""))
    if caution:
        reporter.warn(caution)
    if edits:
        raise UsageError(
            f"the kustomization lists {', '.join(edits)} after postrender under transformers: it may edit a"
            " ConfigMap or Secret postrender has named by its content (it finds the version by the name it had),"
            " so the name would no longer say what it holds; list it before postrender"
        )
    if unknown:
        reporter.warn(f"the kustomization lists {', '.join(unknown)} after postrender under transformers: should it"
                      " edit a ConfigMap's or Secret's data, the version's name would no longer say what it holds;"
                      " list postrender last")
    # kustomize maps names after it; its options are the config's fields.
    config = load_file(path)
    options = replace(config.apply(options), kustomize_maps_names=True,
                      written_in=POSTRENDER_CONFIG.of_kind(config.kind))
    configurations, skipped = kustomization_name_references(root, kustomization)
    for problem in skipped:
        reporter.warn(problem)
    if configurations:
        options = replace(options, kustomize_configurations=configurations)
    for source in sources:
        # Standard input is kustomize's own writing of the resources, which
        # the user never sees: a line of it must not pass for a line of
        # theirs (an object's origin annotation names its file, read.documents.file_annotated).
        source.name = source.name or KUSTOMIZE_STREAM
    return render(sources, options, reporter, release=True).written


_KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


# kustomize's builtin transformers that never touch what a config's hash
# covers (its data, binaryData, stringData, type): labels, annotations and
# names are outside it, and kustomize maps a new name itself. Their
# fieldSpecs may still lead one there (_fieldspecs_edit).
_LEAVES_CONTENT = frozenset({
    "LabelTransformer", "AnnotationsTransformer", "NamespaceTransformer", "PrefixSuffixTransformer",
    "PrefixTransformer", "SuffixTransformer", "ImageTagTransformer", "ReplicaCountTransformer",
    "HashTransformer", "SortOrderTransformer",
})
# kustomize's builtin generators: listed under transformers:, kustomize
# refuses the build itself ("not a transformer") before any plugin runs.
_GENERATORS = frozenset({"ConfigMapGenerator", "SecretGenerator", "HelmChartInflationGenerator",
                         "IAMPolicyGenerator"})
_PATCHES = frozenset({"PatchTransformer", "PatchStrategicMergeTransformer", "PatchJson6902Transformer"})


def transformers_after(root: str | None, kustomization: dict[str, Any] | None,
                       config: str) -> tuple[list[str], list[str], str | None]:
    """What `kustomization`, the one at `root` (kustomize's
    KUSTOMIZE_PLUGIN_CONFIG_ROOT, the folder of the kustomization that lists
    the plugin) runs after this PostRender (`config`, as kustomize passed it)
    under `transformers:`. kustomize runs them after the kustomization's own
    fields (patches, replacements, ...): first every inline entry, in order,
    then every file or folder entry, in order (kusttarget.go,
    configureExternalTransformers). Returned as (those that may edit a
    ConfigMap's or Secret's content: a patch or a replacement that may
    target one; those postrender cannot tell of: an exec plugin, a function,
    a folder; what else to say: a Component's edits come before those of
    the kustomization including it, or this config was not found among the
    entries), each named as kind/name or by its entry. A check, never a new
    way to fail: nothing where the kustomization cannot be read."""
    ours = _identity(_load_documents(config, strings=True))
    if root is None or ours is None or kustomization is None:
        return [], [], None
    component = ("postrender is listed in a Component: the kustomization that includes it runs its own fields"
                 " (patches, replacements, generators with behavior: merge) after it, and an edit of a ConfigMap or"
                 " Secret there lands on a version named by other content; list postrender in the including"
                 " kustomization's transformers instead") if kustomization.get("kind") == "Component" else None
    entries = kustomization.get("transformers")
    if not isinstance(entries, list):
        return [], [], component
    inline: list[tuple[str, tuple | None, Any]] = []  # (how a message names it, its identity, the config)
    paths: list[tuple[str, tuple | None, Any]] = []
    for entry in entries:
        if not isinstance(entry, str):
            return [], [], component
        # kustomize's own test: an entry that reads as resources is inline, else a path.
        documents = _load_documents(entry, strings=True)
        if documents and all(isinstance(d, dict) and d.get("kind") for d in documents):
            inline.extend(_named_entries(documents, entry))
            continue
        text = _read_text(os.path.join(root, entry))
        # A folder, or nothing we read: a transformer all the same.
        documents = _load_documents(text, strings=True) if text is not None else None
        paths.extend(_named_entries(documents, entry) if documents else [(entry, None, None)])
    seen = inline + paths
    at = [i for i, (_, identity, _) in enumerate(seen) if identity == ours]
    if not at:
        # Not in a folder entry either (it may be there, from its resources): then it cannot tell.
        unread = any(identity is None for _, identity, _ in seen)
        return [], [], component or (
            f"postrender did not find its own config among the kustomization's transformers ({len(seen)}), so it"
            " cannot tell what runs after it; list it last" if len(seen) > 1 and not unread else None)
    edits, unknown = [], []
    for label, identity, document in seen[at[-1] + 1:]:
        verdict = _edits_configs(identity, document, root)
        if verdict is True:
            edits.append(label)
        elif verdict is None:
            unknown.append(label)
    return edits, unknown, component


def _named_entries(documents: list[Any], entry: str) -> list[tuple[str, tuple | None, Any]]:
    named = []
    for document in documents:
        items = document.get("items") if isinstance(document, dict) else None
        if isinstance(items, list) and str(document.get("kind", "")).endswith("List"):
            # kustomize reads a List's items as the configs (inlineAnyEmbeddedLists).
            named.extend(_named_entries(items, entry))
            continue
        identity = _identity([document])
        label = f"{identity[1]}/{identity[2]}" if identity and identity[2] else (identity[1] if identity else entry)
        named.append((label, identity, document))
    return named


def _edits_configs(identity: tuple | None, document: Any, root: str) -> bool | None:
    """Whether a transformer config may edit a ConfigMap's or Secret's
    content: True, False, or None where postrender cannot tell (an exec
    plugin, a KRM function, a builtin it does not know). Each builtin
    kustomize has is judged by what its config says it edits."""
    if identity is None or identity[0] != "builtin" or not isinstance(document, dict):
        return None
    judge = _JUDGES.get(identity[1])
    return None if judge is None else judge(document, root)


def _fieldspecs_edit(document: dict[str, Any], root: str) -> bool:
    """A transformer of labels, names, images...: only its fieldSpecs may
    lead it into a config's content (an annotation transformer told to
    write under data); its defaults never do."""
    specs = document.get("fieldSpecs")
    return bool(specs) and (not isinstance(specs, list) or any(
        not isinstance(spec, dict) or _may_select_config(spec.get("kind"))
        and _enters_content(kustomize_keys(str(spec.get("path") or ""))) for spec in specs))


def _replacements_edit(document: dict[str, Any], root: str) -> bool:
    """A replacement edits what its targets select; one read from a file
    (kustomize's ReplacementField.Path) may target anything."""
    replacements = document.get("replacements")
    if not isinstance(replacements, list):
        return True
    targets = []
    for replacement in replacements:
        if not isinstance(replacement, dict) or "path" in replacement:
            return True
        targets.extend(replacement.get("targets") or [])
    return any(not isinstance(t, dict) or not isinstance(t.get("select"), dict)
               or _may_select_config(t["select"].get("kind")) for t in targets)


def _value_add_edit(document: dict[str, Any], root: str) -> bool:
    """A ValueAddTransformer writes its value at each target's fieldPath in
    the objects its selector selects (every object, without one); targets
    may also come from its targetFilePath. kustomize splits the fieldPath
    at each unescaped `/` and skips empty keys (`/data/y` is `data/y`), but
    keeps `[]` as part of a key (api/filters/valueadd)."""
    targets = document.get("targets") or []
    if document.get("targetFilePath") is not None:
        text = _read_text(os.path.join(root, str(document["targetFilePath"])))
        documents = _load_documents(text, strings=True) if text is not None else None
        if not documents or not isinstance(documents[0], dict):
            return True  # what kustomize reads of it, we cannot tell
        targets = [*(targets if isinstance(targets, list) else [targets]), *(documents[0].get("targets") or [])]
    if not isinstance(targets, list):
        return True
    return any(not isinstance(t, dict) or _value_add_target_edits(t) for t in targets)


def _value_add_target_edits(target: dict[str, Any]) -> bool:
    selector = target.get("selector")
    if selector is not None and not isinstance(selector, dict):
        return True
    keys = value_add_keys(str(target.get("fieldPath") or ""))
    return _may_select_config((selector or {}).get("kind")) and _enters_content(keys)


def _patch_edit(document: dict[str, Any], root: str) -> bool:
    """A patch edits what its target selects, or else the kinds its patches
    name (read from their files too): one of a known kind that is no config
    leaves configs alone."""
    target = document.get("target")
    if isinstance(target, dict):
        return _may_select_config(target.get("kind"))
    texts: list[Any] = [document.get("patch")]
    patches = document.get("patches")
    texts.extend(patches if isinstance(patches, list) else [patches])
    for path in [document.get("path"), *(document.get("paths") or [])]:
        if path is not None:
            texts.append(_read_text(os.path.join(root, str(path))) or "")
    kinds = []
    for text in texts:
        if text is None:
            continue
        documents = _load_documents(text) if isinstance(text, str) else [text]
        kinds.extend(d.get("kind") if isinstance(d, dict) else None for d in documents or [None])
    return not kinds or any(_may_select_config(k) for k in kinds)


def _refused_by_kustomize(document: dict[str, Any], root: str) -> bool:
    return False


_JUDGES = {
    **dict.fromkeys(_LEAVES_CONTENT, _fieldspecs_edit),
    **dict.fromkeys(_PATCHES, _patch_edit),
    **dict.fromkeys(_GENERATORS, _refused_by_kustomize),
    "ReplacementTransformer": _replacements_edit,
    "ValueAddTransformer": _value_add_edit,
}


# What a config's content hash covers.
_CONTENT_FIELDS = frozenset({"data", "binaryData", "stringData", "type"})


def _enters_content(keys: tuple[str, ...]) -> bool:
    """Whether a path, as the keys kustomize reads of it, leads into what a
    config's hash covers."""
    return bool(keys) and keys[0] in _CONTENT_FIELDS


def _may_select_config(kind: Any) -> bool:
    """Whether a selector's kind may select a ConfigMap or a Secret: kustomize
    anchors it as a regular expression, and an empty one selects any kind."""
    if not kind:
        return True
    try:
        pattern = re.compile(f"(?:{kind})")
    except (re.error, TypeError):
        return True  # what kustomize reads of it, we cannot tell
    return any(pattern.fullmatch(config) for config in CONFIG_KINDS)


def _read_text(path: str) -> str | None:
    """A file's text as go-yaml reads it: UTF-8, or UTF-16 by its byte-order
    mark; None where there is none or it does not decode."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    try:
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            return data.decode("utf-16")
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def _kustomization(root: str | None) -> dict[str, Any] | None:
    """The kustomization at `root`, as kustomize finds it there; None where none reads."""
    if root is None:
        return None
    for name in _KUSTOMIZATION_FILES:
        text = _read_text(os.path.join(root, name))
        if text is None:
            continue
        documents = _load_documents(text)
        return documents[0] if documents and isinstance(documents[0], dict) else None
    return None


def kustomization_name_references(root: str | None, kustomization: dict[str, Any] | None
                                  ) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    """The `nameReference` rows of the `configurations:` files of the
    kustomization at `root` and of the local kustomizations it builds on
    (`resources:` and `components:` folders: kustomize merges theirs into
    the build's), as field specs of postrender's own: a field only they name
    (a custom resource's) is then rewritten by postrender too, and its guard
    does not call it left naming nothing. Returned with what postrender
    skips of them: a row (or file) its reader refuses is passed over alone,
    and said, as kustomize reads it still and a check of ours must not fail
    a build kustomize makes."""
    found: list[tuple[str, dict[str, Any]]] = []
    skipped: list[str] = []
    for folder, read in _kustomizations_under(root, kustomization):
        files = read.get("configurations")
        for entry in files if isinstance(files, list) else []:
            if not isinstance(entry, str):
                continue
            text = _read_text(os.path.join(folder, entry))
            if text is None:
                continue  # a URL, or nothing there: kustomize's to read
            where = entry if folder == root else os.path.relpath(os.path.join(folder, entry), root)
            origin = f"the kustomization's configurations: {where}"
            documents = _load_documents(text)
            if documents is None:
                skipped.append(f"{origin}: postrender cannot read it as YAML, so it skips it"
                               f" (kustomize reads it still){_UNREWRITTEN}")
            for document in documents or []:
                rows = document.get("nameReference") if isinstance(document, dict) else None
                readable, problems = _readable_rows(rows or [], origin)
                skipped.extend(problems)
                if readable:
                    found.append((origin, {"nameReference": readable}))
    return found, skipped


_UNREWRITTEN = ": a field only it names is rewritten by kustomize alone, not to postrender's versions"


def _readable_rows(rows: Any, origin: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The nameReference entries for ConfigMaps and Secrets in a
    configurations document, each fieldSpec postrender's reader refuses
    taken out alone, and a message for each one taken out (other kinds'
    entries are kustomize's alone)."""
    if not isinstance(rows, list):
        return [], [f"{origin}: nameReference: must be a list; postrender skips it (kustomize reads it still)"]
    kept: list[dict[str, Any]] = []
    problems: list[str] = []
    for i, entry in enumerate(rows):
        # kustomize matches the kind exactly: `configmap` names no ConfigMap.
        if isinstance(entry, dict) and entry.get("kind") not in CONFIG_KINDS:
            continue
        specs = entry.get("fieldSpecs") if isinstance(entry, dict) else None
        # The entry's own fields first, said once at its own place (review61b:
        # an unknown key was pinned on each of its fieldSpecs in turn); the
        # reader takes an entry of no fieldSpecs (test_kustomize_spellings holds it to that).
        problem = _row_problem({**entry, "fieldSpecs": []} if isinstance(specs, list) else entry, origin,
                               f"nameReference[{i}]")
        if problem is not None or not isinstance(specs, list):
            if problem is None:
                kept.append(entry)
            else:
                problems.append(problem)
            continue
        readable = []
        for j, spec in enumerate(specs):
            problem = _row_problem({**entry, "fieldSpecs": [spec]}, origin, f"nameReference[{i}].fieldSpecs[{j}]")
            if problem is None:
                readable.append(spec)
            else:
                problems.append(problem)
        if readable:
            kept.append({**entry, "fieldSpecs": readable})
    return kept, problems


def _row_problem(entry: Any, origin: str, where: str) -> str | None:
    """What postrender's reader says of one nameReference entry (holding
    one fieldSpec at most), named at its place in the file; None: it reads."""
    from ..fieldspecs import ReferenceTable

    try:
        ReferenceTable().extend({"nameReference": [entry]}, origin)
    except (UsageError, ValueError, TypeError) as exc:
        # ValueError, TypeError: a value the reader meets of a type no check foresaw.
        said = str(exc).removeprefix(f"{origin}: ") if isinstance(exc, UsageError) else "unreadable"
        # The check saw the entry alone, as the file's first: name its own place.
        for alone in ("nameReference[0].fieldSpecs[0]", "nameReference[0]"):
            if said.startswith(alone):
                said = where + said[len(alone):]
                break
        else:
            said = f"{where}: {said}"
        return f"{origin}: {said}; postrender skips this row (kustomize reads it still){_UNREWRITTEN}"
    return None


def _kustomizations_under(root: str | None, first: dict[str, Any] | None,
                          limit: int = 100) -> list[tuple[str, dict[str, Any]]]:
    """The kustomization at `root` (`first`, read already) and the local
    ones its resources and components name (folders that hold one), each
    once, as far as `limit`."""
    out: list[tuple[str, dict[str, Any]]] = []
    seen: set[str] = set()
    pending = [root] if root is not None else []
    while pending and len(out) < limit:
        folder = pending.pop(0)
        real = os.path.realpath(folder)
        if real in seen:
            continue
        seen.add(real)
        kustomization = first if folder == root else _kustomization(folder)
        if kustomization is None:
            continue
        out.append((folder, kustomization))
        for key in ("resources", "components", "bases"):
            entries = kustomization.get(key)
            for entry in entries if isinstance(entries, list) else []:
                if isinstance(entry, str) and "://" not in entry and os.path.isdir(os.path.join(folder, entry)):
                    pending.append(os.path.join(folder, entry))
    return out


def _load_documents(text: str, strings: bool = False) -> list[Any] | None:
    """`strings`: every scalar as the text it is written as (YAML's base
    schema), as kustomize keeps a name like `010` or `2024-01-01`."""
    from ruamel.yaml import YAML, YAMLError

    try:
        loader = YAML(typ="base" if strings else "safe", pure=True)
        return [document for document in loader.load_all(text) if document is not None]
    except (YAMLError, ValueError, RecursionError):
        return None


def _identity(documents: list[Any] | None) -> tuple | None:
    """A transformer config's apiVersion, kind and name, as kustomize keys it."""
    if not documents or not isinstance(documents[0], dict):
        return None
    document = documents[0]
    metadata = document.get("metadata") if isinstance(document.get("metadata"), dict) else {}
    return (str(document.get("apiVersion")), str(document.get("kind")), str(metadata.get("name") or ""))


def exec_plugin_argv(argv: list[str], config: str) -> list[str]:
    """kustomize's arguments for an exec plugin as postrender's: the config
    file first, then argsOneLiner/argsFromFile, which are postrender flags.
    Called only when KUSTOMIZE_PLUGIN_CONFIG_STRING (`config`) says kustomize
    may run us. Reading the config file as input would replace the whole
    stream with it. kustomize writes that string to the file it names
    first: a first word that is no such file is postrender's own (a script
    kustomize runs passes the variable on to what it runs, `postrender
    FILE` among them)."""
    if not argv or argv[0].startswith("-") or argv[0] in ("render", "graph", "gc"):
        return list(argv)
    if not _holds(argv[0], config):
        return list(argv)
    return ["--plugin-config", argv[0], *argv[1:]]


def _holds(path: str, text: str) -> bool:
    """Whether the file at `path` holds exactly `text` (its size first: an
    input of any size is never read for this)."""
    data = text.encode("utf-8", "surrogateescape")
    try:
        if os.path.getsize(path) != len(data):
            return False
        with open(path, "rb") as handle:
            return handle.read(len(data) + 1) == data
    except OSError:
        return False
