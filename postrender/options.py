"""Everything a render can be told, from flags, plugin config or functionConfig.

`OPTIONS` is the one table of render options. Each row is a `RenderOptions`
field and says how it is spelled on the command line (cli.py builds argparse
from it, for `render` and `graph` alike), under which key a kustomize
`PostRender` config or a KRM `functionConfig` sets it (frontends/kustomize_exec.py
reads it from there), what values it takes, and where `--help` lists it.
A new option is one `RenderOptions` field and one row.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from enum import Enum
from typing import Any

from .printable import quoted
from .records import field, record, replace
from .errors import UsageError
from .vocabulary import KEEP_POLICIES, STRATEGIES, is_label_value
from .limits import (
    BYTES_PER_NODE,
    BYTES_PER_OBJECT,
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_NODES,
    MAX_BYTES_CEILING,
    MAX_DEPTH_CEILING,
    MAX_NODES_CEILING,
    NODES_PER_OBJECT,
    Limits,
)

# Which versioned objects also keep an unsuffixed, mutable copy (plan.py).
KEEP_ORIGINAL_MODES = ("auto", "all", "secrets", "none")



class Frontend(Enum):
    """What hands postrender its options: a command line's flags, or a
    config's fields (a KRM function's functionConfig, kustomize's exec
    transformer's config), which take no flags."""

    COMMAND_LINE = "command line"
    KRM_FUNCTION = "KRM function"
    KUSTOMIZE_EXEC = "kustomize exec transformer"


@record(frozen=True)
class WrittenIn:
    """Where a render's options are written (RenderOptions.written_in), so
    that advice names what the user can set there (Spelling): the frontend,
    and whether its config is a ConfigMap (kpt's --fn-config), whose data
    takes the plain options as strings but no field specs (kind PostRender)."""

    frontend: Frontend = Frontend.COMMAND_LINE
    configmap: bool = False

    def of_kind(self, kind: str) -> WrittenIn:
        """The same frontend, its config of this kind (PostRender, ConfigMap)."""
        return replace(self, configmap=kind == "ConfigMap")


FLAGS = WrittenIn()
FUNCTION_CONFIG = WrittenIn(Frontend.KRM_FUNCTION)
POSTRENDER_CONFIG = WrittenIn(Frontend.KUSTOMIZE_EXEC)


@record
class RenderOptions:
    namespace: str | None = None
    mutable: bool = False
    # auto: every versioned Secret (Helm `lookup` finds it), and every
    # versioned object when hooks_hidden; all; secrets; none.
    keep_original: str = "auto"
    # Helm 3 is the parent: it never shows hooks to a post-renderer, so a
    # hook can only find what keeps its original name. Set by the Helm
    # integration; no flag of its own.
    hooks_hidden: bool = False
    config_files: list[str] = field(default_factory=list)
    # Field-spec configuration given inline (kustomize plugin, KRM functionConfig).
    inline_configs: list[tuple[str, dict]] = field(default_factory=list)
    # The kustomization's own `configurations:` (their nameReference rows),
    # read by the exec transformer: field specs of postrender's like
    # inline_configs, and fields where kustomize, which reads them too,
    # rewrites a reference to its generator output (check/broken.py).
    kustomize_configurations: list[tuple[str, dict]] = field(default_factory=list)
    limits: Limits = field(default_factory=Limits)
    # Retention (keep.py, cluster/retain.py). `retain` is the N of --retain;
    # None keeps the render cluster-free.
    scope: str | None = None
    keep_previous: str | None = None
    retain: int | None = None
    kubeconfig: str | None = None
    context: str | None = None
    # "rename" versions names; "annotate" keeps them and rolls workloads by
    # postrender.io/config-hash alone (annotate.py).
    strategy: str = "rename"
    # Fields still naming a renamed object stay an error even with allow_broken (guard.py).
    strict: bool = False
    # Version every ConfigMap and Secret, referenced or not (plan.py).
    version_all: bool = False
    # Names left on an object that no longer exists are warnings, not errors (broken.py).
    allow_broken: bool = False
    # graph and diff show such names (as --allow-broken-references would)
    # instead of failing; the advice a failure gives is still for the
    # render these options make. Set by those commands; no flag of its own.
    show_broken: bool = False
    # kustomize is the parent and maps names after this render (its
    # name-reference pass, for the fields of its `configurations:` too):
    # each version records the name it had among kustomize's earlier names
    # (rewrite.py). Set by the exec transformer front end; no flag of its own.
    kustomize_maps_names: bool = False
    # An input without any Kubernetes object fails (render.analyse): a
    # deployer that prunes would delete everything it deployed before.
    require_objects: bool = False
    # Where the options are written, so that advice names what the user can
    # set there (Spelling). Set by the KRM and exec-transformer front ends;
    # no flag of its own.
    written_in: WrittenIn = FLAGS


# --- numbers as people write them ---------------------------------------------

_COUNT = r"[0-9]+"  # patterns compiled (by re's cache) when an option is first read
# Kubernetes quantity suffixes: decimal k/M/G/T, binary Ki/Mi/Gi/Ti.
_SIZE = r"([0-9]+)(k|K|M|G|T|Ki|Mi|Gi|Ti)?"
_SIZE_UNITS = {
    "": 1, "k": 1000, "K": 1000, "M": 1000**2, "G": 1000**3, "T": 1000**4,
    "Ki": 1024, "Mi": 1024**2, "Gi": 1024**3, "Ti": 1024**4,
}


def parse_count(text: str, name: str, minimum: int, maximum: int) -> int:
    """A whole number in [minimum, maximum], written in ASCII digits."""
    value = text.strip()
    # int() also takes "1_000", " +3" and non-ASCII digits; a flag should not.
    if not re.fullmatch(_COUNT, value):
        raise UsageError(f"{name} {quoted(text)}: expected a whole number from {minimum} to {maximum}")
    number = int(value)
    if not minimum <= number <= maximum:
        raise UsageError(f"{name} {quoted(text)}: expected a whole number from {minimum} to {maximum}")
    return number


def parse_size(text: str, name: str, maximum: int = MAX_BYTES_CEILING) -> int:
    """Bytes in `1048576`, `10M` (10^7) or `256Mi` (2^28), as kubectl writes quantities."""
    match = re.fullmatch(_SIZE, text.strip())
    number = int(match.group(1)) * _SIZE_UNITS[match.group(2) or ""] if match else None
    if number is None or not 1 <= number <= maximum:
        raise UsageError(
            f"{name} {quoted(text)}: expected a size from 1 byte to {format_size(maximum)}, "
            "such as 1048576, 10M or 256Mi"
        )
    return number


# A namespace is a DNS-1123 label (apimachinery's ValidateNamespaceName).
_NAMESPACE = re.compile(r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?")


def check_namespace(namespace: str, name: str = "namespace") -> str:
    """`name`: where the value was written (a flag, a config's key), as the message says."""
    # Refused up front: a misspelt one (`Prod`) would quietly pair no
    # implicit namespace with the objects that state `prod`.
    if not _NAMESPACE.fullmatch(namespace):
        raise UsageError(f"{name} {quoted(namespace)} is not a valid namespace name "
                         "(at most 63 characters of a-z, 0-9 and '-', starting and ending with a letter or digit)")
    return namespace


def check_scope(scope: str, name: str = "--scope") -> str:
    if not scope or not is_label_value(scope):
        raise UsageError(f"{name} {quoted(scope)} is not a valid label value (63 characters of [-A-Za-z0-9_.])")
    return scope


def non_empty(flag: str, what: str = "path") -> Callable[[str], str]:
    """An argparse type for a flag whose value may not be empty: an unset
    variable (`--config "$CFG"`) is refused as such, rather than read as
    the current folder ("Is a directory"), a file named '', or no flag."""
    def checked(text: str) -> str:
        if not text:
            raise UsageError(f"{flag}: an empty {what} (an unset variable?)")
        return text
    return checked


def format_size(number: int) -> str:
    for unit in ("Ti", "Gi", "Mi", "Ki"):
        if number >= _SIZE_UNITS[unit] and number % _SIZE_UNITS[unit] == 0:
            return f"{number // _SIZE_UNITS[unit]}{unit}"
    return str(number)


# --- the table -----------------------------------------------------------------

# Sections of `--help`, in order; cli.py adds its own rows to the same names.
INPUT, OUTPUT, VERSIONING, REFERENCES, PREVIOUS, CLUSTER, LIMITS, DIAGNOSTICS, INTEGRATIONS = (
    "Input", "Output", "Versioning", "References", "Keeping previous versions", "Cluster (--retain)",
    "Limits", "Diagnostics", "Integrations",
)
HELP_GROUPS = (INPUT, OUTPUT, VERSIONING, REFERENCES, PREVIOUS, CLUSTER, LIMITS, DIAGNOSTICS, INTEGRATIONS)


@record(frozen=True)
class Option:
    """One render option: a `RenderOptions` field, its flag and its config key.

    kind: "bool" (a flag without value; config true/false), "text", "choice",
    "count" (a whole number), "size" (bytes, 10M/256Mi), "files" (repeatable).
    """

    field: str  # RenderOptions attribute; "limits.max_bytes" reaches into Limits
    flags: tuple[str, ...]
    help: str
    group: str
    kind: str = "bool"
    config: str | None = None  # key in a PostRender config / KRM functionConfig; None: flag only
    choices: tuple[str, ...] = ()
    bounds: tuple[int, int] = (1, 1 << 62)  # for count and size
    metavar: str | None = None
    default: Any = None  # shown in --help; the RenderOptions default is what applies
    env: str | None = None  # the default comes from this variable when set
    # A choice flag given without `=VALUE` means this (--keep-original alone =
    # all); its value is then only ever taken as `--flag=VALUE`, so the word
    # after it stays a path (cli.parse, and completion offers no value there).
    bare: Any = None
    # Config values that stand for a choice (keepOriginal: true -> "all").
    aliases: dict[Any, Any] = field(default_factory=dict)
    # The last word on a value: check(value, where it was written) raises UsageError.
    check: Callable[[Any, str], Any] | None = None
    # Reads a cluster (--retain and how to reach the cluster): `diff` compares
    # two renders and reads none, so its --help does not list these.
    cluster: bool = False
    # Acts only on the objects a render renames: set under
    # --strategy=annotate, which renames none, it is refused (check_strategy).
    renames_only: bool = False

    @property
    def flag(self) -> str:
        return self.flags[-1]

    def convert_text(self, text: str, name: str | None = None) -> Any:
        """A value written as text: a flag's argument or a kpt ConfigMap entry."""
        name = name or self.flag
        if self.kind == "count":
            return self._checked(parse_count(text, name, *self.bounds), name)
        if self.kind == "size":
            return self._checked(parse_size(text, name, self.bounds[1]), name)
        if self.kind == "bool":
            lowered = text.lower()
            if lowered not in ("true", "false"):
                raise UsageError(f'{name} must be "true" or "false"')
            return lowered == "true"
        value = self.aliases.get(text, text)
        if self.kind == "choice" and value not in self.choices:
            raise UsageError(f"{name} must be one of {', '.join(self.choices)}, not {quoted(text)}")
        if self.kind == "text" and not value:
            raise UsageError(f"{name} must be a non-empty string")
        return self._checked(value, name)

    def convert_config(self, value: Any, name: str) -> Any:
        """A value from a PostRender config or functionConfig (typed YAML)."""
        # 1 == True in Python: only a real bool may match a bool alias.
        if isinstance(value, (str, bool)) and (isinstance(value, bool) or value not in (True, False)):
            value = self.aliases.get(value, value)
        if self.kind == "bool":
            if isinstance(value, str):
                # "must be true or false, not 'true'" read as a contradiction (newcomer60).
                raise UsageError(f"{name} must be true or false unquoted (a boolean), not the string {quoted(value)}")
            if not isinstance(value, bool):
                raise UsageError(f"{name} must be true or false, not {quoted(value)}")
            return value
        if self.kind in ("count", "size") and isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str):
            what = {"text": "a non-empty string",
                    "choice": f"one of {', '.join(self.choices)}"}.get(self.kind, "a number")
            raise UsageError(f"{name} must be {what}, not {quoted(value)}")
        return self.convert_text(value, name)

    def _checked(self, value: Any, name: str) -> Any:
        return self.check(value, name) if self.check is not None else value


OPTIONS: tuple[Option, ...] = (
    Option("namespace", ("-n", "--namespace"), "namespace of objects without metadata.namespace",
           INPUT, "text", config="namespace", metavar="NS", env="HELM_NAMESPACE", check=check_namespace),
    Option("config_files", ("--config",), "extra field specs in kustomize nameReference format (repeatable)",
           REFERENCES, "files", metavar="FILE"),
    Option("strategy", ("--strategy",),
           "rename: version ConfigMaps and Secrets by content; annotate: keep names, roll pod templates "
           "by a postrender.io/config-hash annotation",
           VERSIONING, "choice", config="strategy", choices=STRATEGIES, default="rename"),
    Option("mutable", ("--mutable",), "do not set immutable: true on versions", VERSIONING, config="mutable",
           renames_only=True),
    Option("keep_original", ("--keep-original",),
           "which versioned objects also keep an unsuffixed, mutable copy, for readers postrender cannot see: "
           "auto (Secrets, for Helm `lookup`; everything under Helm 3, whose hooks never reach postrender), "
           "all (also the bare flag: write a mode as --keep-original=MODE), secrets, none",
           VERSIONING, "choice", config="keepOriginal", choices=KEEP_ORIGINAL_MODES, metavar="MODE",
           default="auto", bare="all", aliases={True: "all", False: "none", "true": "all", "false": "none"},
           renames_only=True),
    Option("version_all", ("--version-all",),
           "version every ConfigMap and Secret, not only those a known field references",
           VERSIONING, config="versionAll", renames_only=True),
    Option("strict", ("--strict",),
           "fail when a field no field spec covers still names a renamed object, even with --allow-broken-references",
           REFERENCES, config="strict"),
    Option("require_objects", ("--require-objects",),
           "fail when the input holds no Kubernetes object (a chart whose values turn every template off): a "
           "deployer that prunes would delete the whole application",
           INPUT, config="requireObjects"),
    Option("allow_broken", ("--allow-broken-references",),
           "warn, instead of failing, when a name is left on an object the render renames",
           REFERENCES, config="allowBrokenReferences"),
    Option("scope", ("--scope",),
           "postrender.io/scope label of versioned objects (default: under Helm the release name, else their "
           "app.kubernetes.io/instance label)",
           PREVIOUS, "text", config="scope", metavar="NAME", check=check_scope),
    Option("keep_previous", ("--keep-previous",),
           "mark versions so this deployer never prunes them (then run `postrender gc`)",
           PREVIOUS, "choice", config="keepPrevious", choices=tuple(sorted(KEEP_POLICIES)), renames_only=True),
    Option("retain", ("--retain",),
           "read the cluster and carry forward the previous versions still in use, plus the newest N-1 "
           "others, so the deployer keeps exactly those",
           PREVIOUS, "count", metavar="N", bounds=(1, 1000), cluster=True, renames_only=True),
    Option("kubeconfig", ("--kubeconfig",), "kubeconfig file (default: $KUBECONFIG, ~/.kube/config)",
           CLUSTER, "text", metavar="PATH", cluster=True),
    Option("context", ("--context",), "kubeconfig context (default: the current one)", CLUSTER, "text",
           metavar="NAME", cluster=True),
    Option("limits.max_bytes", ("--max-bytes",), "largest input accepted, all inputs together (diff: each side)",
           LIMITS, "size", metavar="SIZE", default=format_size(DEFAULT_MAX_BYTES), bounds=(1, MAX_BYTES_CEILING)),
    Option("limits.max_depth", ("--max-depth",), f"deepest nesting accepted (at most {MAX_DEPTH_CEILING})",
           LIMITS, "count", metavar="N", default=DEFAULT_MAX_DEPTH, bounds=(1, MAX_DEPTH_CEILING)),
    Option("limits.max_nodes", ("--max-nodes",),
           f"YAML nodes accepted at any density; beyond them, one per {BYTES_PER_NODE} characters of input "
           f"(and N/{NODES_PER_OBJECT} documents and List items, beyond one per {BYTES_PER_OBJECT} characters)",
           LIMITS, "count", config="maxNodes", metavar="N", default=DEFAULT_MAX_NODES, bounds=(1, MAX_NODES_CEILING)),
)


def dest(option: Option) -> str:
    """The argparse attribute of an option."""
    return option.field.replace(".", "_")


def with_values(options: RenderOptions, values: dict[str, Any]) -> RenderOptions:
    """options with fields (dotted for Limits) replaced."""
    top: dict[str, Any] = {}
    nested: dict[str, dict[str, Any]] = {}
    for name, value in values.items():
        outer, _, inner = name.partition(".")
        if inner:
            nested.setdefault(outer, {})[inner] = value
        else:
            top[name] = value
    for outer, changes in nested.items():
        top[outer] = replace(getattr(options, outer), **changes)
    return replace(options, **top)


def check_strategy(options: RenderOptions) -> None:
    """Refuses an option that acts only on renamed objects under
    --strategy=annotate, which renames none: it would do nothing, without a
    word. (The scope is left alone: under Helm it defaults to the release.)"""
    if options.strategy != "annotate":
        return
    default = RenderOptions()
    for option in OPTIONS:
        if option.renames_only and getattr(options, option.field) != getattr(default, option.field):
            named = option.flag + (f" ({option.config} in a config)" if option.config else "")
            raise UsageError(f"{named} acts only on renamed objects, and --strategy=annotate renames none: "
                             "drop one of them")


def check_cluster(options: RenderOptions) -> None:
    """Refuses a cluster option without --retain, the one render that reads
    a cluster: `--context prod` alone would render without a word, as if the
    cluster had been read. (Under Helm, Helm's own are read from its command
    line, not from these.)"""
    given = cluster_flag_given(options)
    if given is not None and options.retain is None:
        raise UsageError(f"{given} is read only with --retain (a render reads no cluster otherwise): "
                         "add --retain N, or drop it")


def cluster_flag_given(options: RenderOptions) -> str | None:
    """The first flag given that reads a cluster (--retain, and where it
    reads from), for commands that read none (graph, diff) to refuse."""
    for option in OPTIONS:
        if option.cluster and getattr(options, option.field) is not None:
            return option.flag
    return None


def by_config_key() -> dict[str, Option]:
    return {option.config: option for option in OPTIONS if option.config}


def bare_values() -> dict[str, tuple[str, ...]]:
    """Each flag that may stand alone (Option.bare), and the words it takes
    as a value, only ever written `--flag=VALUE`."""
    return {flag: (*option.choices, *(a for a in option.aliases if isinstance(a, str)))
            for option in OPTIONS if option.bare is not None for flag in option.flags}


def bare_flags() -> dict[str, str]:
    """Each flag that may stand alone (Option.bare), and what it then means."""
    return {flag: f"{flag}={option.bare}" for option in OPTIONS if option.bare is not None for flag in option.flags}


# --- advice: an option as the user writes it -----------------------------------


# What advice says a config's field is set in, and where field-spec rows go,
# for each config (WrittenIn of a frontend that takes no flags).
_FIELDS_IN = {
    FUNCTION_CONFIG: "in the functionConfig",
    FUNCTION_CONFIG.of_kind("ConfigMap"): "under the functionConfig's data",
    POSTRENDER_CONFIG: "in the PostRender config",
    POSTRENDER_CONFIG.of_kind("ConfigMap"): "under the ConfigMap config's data",
}
_ROWS_IN = {
    FUNCTION_CONFIG: "in the functionConfig",
    FUNCTION_CONFIG.of_kind("ConfigMap"): "in a functionConfig of kind PostRender (a ConfigMap's data takes no field "
                                          "specs)",
    POSTRENDER_CONFIG: "in the PostRender config",
    POSTRENDER_CONFIG.of_kind("ConfigMap"): "in a config of kind PostRender (a ConfigMap's data takes no field specs)",
}


@record(frozen=True)
class Spelling:
    """How advice names an option of the table (OPTIONS) to set: its flag on
    a command line, its config field where the options are a config's
    fields (a KRM function and kustomize's exec transformer get no flags)."""

    written_in: WrittenIn = FLAGS

    def named(self, name: str, value: Any = True) -> str:
        """The option `name` (a RenderOptions field) set to `value`, as
        written there: `--keep-original`; `keepOriginal: true in the
        functionConfig`. None: any value (`--namespace`, `namespace: NS`)."""
        return self._as_written(name, value) + ("" if self._flags(name) else f" {self._fields_in}")

    def called(self, name: str) -> str:
        """The option itself, no value: `--keep-original`; `keepOriginal in
        the functionConfig`."""
        option = _option(name)
        return option.flag if self._flags(name) else f"{option.config} {self._fields_in}"

    def takes(self, name: str) -> bool:
        """Whether the option can be set where these options are written: a
        flag-only option (--retain) cannot be in a config."""
        return self.written_in == FLAGS or _option(name).config is not None

    def setting(self, *changes: tuple[str, Any]) -> str:
        """What the user does to make these changes: `drop --strict and pass
        --allow-broken-references`; `set strict: false and
        allowBrokenReferences: true in the functionConfig`."""
        if self._flags(*(name for name, _ in changes)):
            return " and ".join(f"drop {_option(name).flag}" if value is False else
                                f"pass {self._as_written(name, value)}" for name, value in changes)
        return "set " + " and ".join(self._as_written(name, value) for name, value in changes) + \
            f" {self._fields_in}"

    def field_specs(self, rows: str, keeps_name: bool = False) -> str:
        """Where field-spec rows (`nameReference: [...]`) go: a --config
        file; the config's own fields (a PostRender's: a ConfigMap's data
        takes none); under kustomize, also the kustomization's
        configurations:, whose nameReference rows kustomize and postrender
        both read. Not a row that keeps the name (`keeps_name`): kustomize
        refuses keepsName there, and would rewrite the field besides."""
        if self.written_in == FLAGS:
            option = _option("config_files")
            return f"{option.flag} {option.metavar} with `{rows}`"
        also = " or the kustomization's configurations:" if self.written_in.frontend == Frontend.KUSTOMIZE_EXEC \
            and rows.startswith("nameReference:") and not keeps_name else ""
        return f"`{rows}` {_ROWS_IN[self.written_in]}{also}"

    @property
    def _fields_in(self) -> str:
        return _FIELDS_IN[self.written_in]

    def _flags(self, *names: str) -> bool:
        return self.written_in == FLAGS or any(_option(name).config is None for name in names)

    def _as_written(self, name: str, value: Any) -> str:
        option = _option(name)
        if self._flags(name):
            if value is None or value is True or value == option.bare:
                return option.flag
            return f"{option.flag}={value}"
        if value is None:
            return f"{option.config}: {option.metavar or 'VALUE'}"
        shown = "true" if value is True else "false" if value is False else str(value)
        # A ConfigMap's data holds strings (kpt and the API server take no other).
        return f"{option.config}: {json.dumps(shown) if self.written_in.configmap else shown}"


def _option(name: str) -> Option:
    return next(option for option in OPTIONS if option.field == name)


def spelling(options: RenderOptions) -> Spelling:
    return Spelling(options.written_in)
