"""Options carried by a config object: kustomize's `PostRender` plugin config
or a KRM `functionConfig` (a `PostRender`, or a kpt-style ConfigMap).

kustomize runs a legacy exec transformer as `<plugin> <config file> [args]`
with the resources on stdin and KUSTOMIZE_PLUGIN_CONFIG_STRING set; the
`PostRender` wrapper under integrations/kustomize passes that file as
`--plugin-config`, and so does postrender itself when linked as the plugin.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from .errors import UsageError
from .keep import KEEP_POLICIES
from .options import RenderOptions
from .read import Source
from .report import Reporter

API_VERSION = "postrender.io/v1alpha1"
KIND = "PostRender"

# Field-spec sections in kustomize's nameReference format (see fieldspecs).
FIELD_SPEC_SECTIONS = ("nameReference", "podSpecs", "podSpecReferences", "clusterScoped")
_BOOLEANS = {"mutable": "mutable", "keepOriginal": "keep_original", "strict": "strict"}
# String options with a fixed set of values, as on the command line.
_CHOICES = {
    "strategy": ("strategy", ("rename", "annotate")),
    "keepPrevious": ("keep_previous", tuple(sorted(KEEP_POLICIES))),
}
# kustomize reads these itself (extra exec arguments); they reach us in the file too.
_KUSTOMIZE_OWN = ("argsOneLiner", "argsFromFile")
_ENVELOPE = ("apiVersion", "kind", "metadata")


@dataclass(frozen=True)
class PluginConfig:
    origin: str
    namespace: str | None = None
    mutable: bool | None = None
    keep_original: bool | None = None
    strict: bool | None = None
    strategy: str | None = None
    keep_previous: str | None = None
    scope: str | None = None
    field_specs: dict[str, Any] | None = None

    def apply(self, options: RenderOptions) -> RenderOptions:
        """The config is the more specific instruction: its fields win."""
        changes: dict[str, Any] = {}
        if self.namespace is not None:
            changes["namespace"] = self.namespace
        if self.mutable is not None:
            changes["mutable"] = self.mutable
        if self.keep_original is not None:
            changes["keep_original"] = self.keep_original
        if self.strict is not None:
            changes["strict"] = self.strict
        for attribute in ("strategy", "keep_previous", "scope"):
            if getattr(self, attribute) is not None:
                changes[attribute] = getattr(self, attribute)
        if self.field_specs:
            changes["inline_configs"] = [*options.inline_configs, (self.origin, self.field_specs)]
        return dataclasses.replace(options, **changes)


def load_file(path: str) -> PluginConfig:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--plugin-config {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"--plugin-config {path}: not UTF-8") from None
    try:
        documents = [d for d in YAML(typ="safe").load_all(text) if d is not None]
    except YAMLError as exc:
        raise UsageError(f"--plugin-config {path}: invalid YAML: {' '.join(str(exc).split())}") from None
    if len(documents) != 1:
        raise UsageError(f"--plugin-config {path}: expected one {KIND} object, found {len(documents)} documents")
    return parse(documents[0], f"--plugin-config {path}")


def parse(data: Any, origin: str) -> PluginConfig:
    if not isinstance(data, dict):
        raise UsageError(f"{origin}: the config must be a mapping")
    api_version, kind = data.get("apiVersion"), data.get("kind")
    name = _name(data)
    where = f"{origin} ({kind}/{name})" if name else origin
    if kind == KIND:
        if api_version != API_VERSION:
            raise UsageError(f"{where}: apiVersion must be {API_VERSION}, not {api_version!r}")
        return _from_postrender(data, where)
    if kind == "ConfigMap" and api_version == "v1":
        return _from_configmap(data, where)
    raise UsageError(f"{where}: expected kind {KIND} ({API_VERSION}) or a v1 ConfigMap, found {kind!r}")


def _name(data: dict[str, Any]) -> str | None:
    metadata = data.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return name if isinstance(name, str) else None


def _from_postrender(data: dict[str, Any], where: str) -> PluginConfig:
    known = {*_ENVELOPE, "namespace", "scope", *_BOOLEANS, *_CHOICES, *FIELD_SPEC_SECTIONS, *_KUSTOMIZE_OWN}
    unknown = sorted(str(k) for k in data if k not in known)
    if unknown:
        raise UsageError(f"{where}: unknown field(s) {', '.join(unknown)}")
    values: dict[str, Any] = {"origin": where}
    for key in ("namespace", "scope"):
        value = data.get(key)
        if value is not None:
            if not isinstance(value, str) or not value:
                raise UsageError(f"{where}: {key} must be a non-empty string")
            values[key] = value
    for key, attribute in _BOOLEANS.items():
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, bool):
            raise UsageError(f"{where}: {key} must be true or false, not {value!r}")
        values[attribute] = value
    values.update(_choices(data, where))
    specs = {key: data[key] for key in FIELD_SPEC_SECTIONS if data.get(key) is not None}
    if specs:
        values["field_specs"] = specs
    return PluginConfig(**values)


def _from_configmap(data: dict[str, Any], where: str) -> PluginConfig:
    """kpt passes `--fn-config`/`configMap:` options as a ConfigMap of strings."""
    entries = data.get("data") or {}
    if not isinstance(entries, dict):
        raise UsageError(f"{where}: data must be a mapping")
    unknown = sorted(str(k) for k in entries if k not in ("namespace", "scope") and k not in _BOOLEANS and k not in _CHOICES)
    if unknown:
        raise UsageError(f"{where}: unknown key(s) {', '.join(unknown)} (field specs need kind {KIND})")
    values: dict[str, Any] = {"origin": where}
    for key in ("namespace", "scope"):
        if entries.get(key):
            values[key] = str(entries[key])
    for key, attribute in _BOOLEANS.items():
        if key not in entries:
            continue
        text = str(entries[key]).lower()
        if text not in ("true", "false"):
            raise UsageError(f"{where}: data.{key} must be \"true\" or \"false\"")
        values[attribute] = text == "true"
    values.update(_choices(entries, where))
    return PluginConfig(**values)


def _choices(data: dict[str, Any], where: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for key, (attribute, allowed) in _CHOICES.items():
        value = data.get(key)
        if value is None:
            continue
        if value not in allowed:
            raise UsageError(f"{where}: {key} must be one of {', '.join(allowed)}, not {value!r}")
        values[attribute] = value
    return values


def run(path: str, paths: list[str], sources: list[Source], options: RenderOptions, reporter: Reporter) -> str:
    """The legacy exec transformer: plain stream in and out, options from the file."""
    from .render import render

    if paths:
        # Read as input, a file would replace the resources kustomize sends.
        raise UsageError(
            f"--plugin-config reads the resources from standard input, not from {', '.join(paths)} "
            "(a word in argsOneLiner/argsFromFile that is not a postrender flag?)"
        )
    return render(sources, load_file(path).apply(options), reporter).output


def exec_plugin_argv(argv: list[str]) -> list[str]:
    """kustomize's arguments for an exec plugin as postrender's: the config
    file first, then argsOneLiner/argsFromFile, which are postrender flags.
    Called only when KUSTOMIZE_PLUGIN_CONFIG_STRING says kustomize runs us.
    Reading the config file as input would replace the whole stream with it."""
    if not argv or argv[0].startswith("-") or argv[0] in ("render", "graph", "gc"):
        return list(argv)
    return ["--plugin-config", argv[0], *argv[1:]]
