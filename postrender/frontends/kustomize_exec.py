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
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError
from ..fieldspecs import SECTIONS, load_yaml_file
from ..hostflags import CHANNELS, PLUGIN_CONFIG, refused
from ..options import RenderOptions, by_config_key, with_values
from ..pipeline.read import Source
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


@dataclass(frozen=True)
class PluginConfig:
    origin: str
    # RenderOptions fields (options.OPTIONS rows with a config key) set by the config.
    values: dict[str, Any] = field(default_factory=dict)
    field_specs: dict[str, Any] | None = None

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
    if kind == KIND:
        if api_version != API_VERSION:
            raise UsageError(f"{where}: apiVersion must be {API_VERSION}, not {api_version!r}")
        return _from_postrender(data, where, exec_plugin)
    if kind == "ConfigMap" and api_version == "v1":
        return _from_configmap(data, where)
    raise UsageError(f"{where}: expected kind {KIND} ({API_VERSION}) or a v1 ConfigMap, found {kind!r}")


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
        raise UsageError(f"{where}: metadata.name must be a string, not {metadata['name']!r}")


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
    entries = data.get("data") or {}
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
    return PluginConfig(where, values)


def check_arguments(args: argparse.Namespace) -> None:
    """kustomize passes argsOneLiner/argsFromFile words after the config file:
    flags only, and none that moves the stream. Read as input, a word would
    replace the resources kustomize sends; `-o FILE` left kustomize 0 bytes,
    exit 0, and every resource gone; a second --plugin-config would be read
    instead of kustomize's."""
    if args.paths or args.filenames:
        raise UsageError(
            f"--plugin-config reads the resources from standard input, not from {', '.join(args.filenames + args.paths)} "
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
    options = replace(load_file(path).apply(options), kustomize_maps_names=True)  # kustomize maps names after it
    for source in sources:
        # Standard input is kustomize's own writing of the resources, which
        # the user never sees: a line of it must not pass for a line of
        # theirs (an object's origin annotation names its file, read.file_annotated).
        source.name = source.name or KUSTOMIZE_STREAM
    return render(sources, options, reporter, release=True).written


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
