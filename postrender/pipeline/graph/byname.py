"""Programs that read a ConfigMap or Secret through the API, by its name.

The field-spec table says where a pod or a custom resource names an object;
a controller that fetches its configuration with a client (Argo CD's
`argocd-cm`, ingress-nginx's `--configmap=$(POD_NAMESPACE)/name`, kyverno's
`INIT_CONFIG`) is invisible to it. Renaming such an object leaves the program
on a name that no longer exists, and it quietly runs with defaults. Four
signals find them, each from data (fieldspecs/fixednames.yaml):

- the fixed-name table: names Kubernetes, installers and common controllers
  know themselves;
- RBAC: a Role or ClusterRole rule on configmaps/secrets with `resourceNames`;
- strings in a pod spec (container args, command, env values) that name an
  object and that no field spec covers, unless the flag or variable that
  holds one says it names another kind (`--publish-service`);
- names in a ConfigMap's data (an operator's configuration naming a Secret).

Each object found keeps its name (plan.py); a workload whose flag or
environment names it gets a postrender.io/config-hash over it (pipeline/plan/config_hash.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache, partial
from typing import Any, TypeVar

from ...records import field, record
from ... import fieldspecs
from ...fieldspecs.guardrules import guard_rules, squeezed
from ...fieldspecs import (
    ARGUMENT_FIELDS, CONFIG_KINDS, NAMESPACE_NAME, ReferenceTable, namespace_told, pod_path_spec, tells_namespace,
)
from ...fieldspecs.walk import SpecIndex
from .references import Found, Graph, Path, Resolution, Scanned, lookup
from ..index.configs import content_of, names_in_data
from ..index.folding import NAMING_FIELDS, NameScan, in_document_order, names_in_field
from ..index.objects import ObjectIndex, across_namespaces
from ...syntax.nodes import Node, ScalarNode, SequenceNode, entries, format_path, get, node_at
from ..read.documents import KubeObject
from ...lazyre import LazyPattern

# The API server refuses a ConfigMap over 1 MiB; larger data is not scanned.
_MAX_SCANNED = 1 << 20
_DNS_NAME = re.compile(r"^[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?\Z")
# `$(POD_NAMESPACE)` (Kubernetes' own expansion) or `${NAMESPACE}` (a shell's):
# a namespace the pod learns at run time, taken to be its own.
_VARIABLE = LazyPattern(r"^\$[({][A-Za-z_][A-Za-z0-9_]*[)}]\Z")
# The words of a flag or variable name (fixednames.yaml nameHints.otherKinds):
# split at anything but letters and digits, and between a lower-case letter
# or digit and an upper-case one (`publishService`).
_WORD_BREAK = LazyPattern(r"(?<=[a-z0-9])(?=[A-Z])|[^A-Za-z0-9]+")
# A name as a config file writes it, maybe `namespace/name` (`configMapName: app/settings`).
_WRITTEN_NAME = r"(?:[a-z0-9][-a-z0-9]*/)?[a-z0-9][-a-z0-9.]*"
# A key starts where a run of key characters starts. Let start anywhere in
# one, a search tried each of its characters in turn, each read on to the
# run's end: a 100 KB line of letters in a config took two minutes (scale60).
_KEY = r"""(?<![A-Za-z0-9_.-])(?P<key>[A-Za-z_][A-Za-z0-9_.-]*)["']?[ \t]*:[ \t]*"""
# `key: value` in YAML, block or flow, or `"key": "value"` in JSON.
_DATA_ENTRY = LazyPattern(
    _KEY + r"""["']?(?P<name>""" + _WRITTEN_NAME + ")"
    r"""(?=["']?[ \t]*(?:[,}\]#\r\n]|$))"""
)
# `key: [a, b]` in YAML or JSON, or `key:` and a block list of `- a` lines:
# the names a list of them gives (the guard's `lists` keys, `configMaps`).
_DATA_LIST = LazyPattern(
    _KEY + r"""(?:\[(?P<flow>[^\]\n]*)\]|(?:#[^\n]*)?\r?\n(?P<block>(?:[ \t]*-[ \t]+[^\n]*(?:\n|$))+))"""
)
_LISTED_NAME = LazyPattern(_WRITTEN_NAME)


@record(frozen=True)
class FixedName:
    kind: str
    name: str | None
    pattern: re.Pattern[str] | None
    namespace: str | None
    type: str | None
    if_label: tuple[str, ...]
    why: str

    def matches(self, obj: KubeObject, namespace: str) -> bool:
        name = obj.name or ""
        # The cheap tests first: most rows with a pattern are asked of every
        # object of their kind, and a namespace or a label rules most out.
        if obj.kind != self.kind or (self.name is not None and name != self.name):
            return False
        if self.namespace is not None and namespace != self.namespace:
            return False
        if self.if_label and not any(key in obj.labels for key in self.if_label):
            return False
        if self.pattern is not None and not self.pattern.fullmatch(name):
            return False
        return self.type is None or content_of(obj).type == self.type


@record(eq=False)
class Reader:
    """One place that names a config object a program then reads by name."""

    target: KubeObject
    referrer: KubeObject
    path: Path
    node: ScalarNode  # the scalar holding the name
    name: str  # as written
    # Why the target keeps its name; "" for a pod string's reader, whose
    # reason is made only for the one ByName.read shows (a Deployment's
    # three flags naming a Secret: 25,000 of them held 8 MiB of reasons).
    why: str
    rolls: bool  # the referrer's pod template gets a config hash over the target
    via: str = ""  # the flag or variable that carries the name, if any
    namespace: str | None = None  # stated with the name (`--flag=ns/name`): where it is looked up

    @property
    def field_path(self) -> str:
        return format_path(self.path)


@record
class ByName:
    fixed: dict[int, str] = field(default_factory=dict)  # id(config object) -> why (the table)
    readers: list[Reader] = field(default_factory=list)
    # How an object is named in a reason (ObjectIndex.describe): a pod
    # string reader's is made here (Reader.why).
    describe: Callable[[KubeObject], str] | None = None

    def read(self) -> dict[int, str]:
        """id(config object) -> why, for objects a reader names. The reason
        shown is the reader most likely meant: a flag or variable whose name
        says the kind (`--configmap=`, `--secret-name`) over one that just
        happens to hold the same word (`--publish-service`)."""
        found: dict[int, tuple[bool, Reader]] = {}
        for reader in self.readers:
            likely = says_kind(reader.via, reader.target.kind)
            if id(reader.target) not in found or (likely and not found[id(reader.target)][0]):
                found[id(reader.target)] = (likely, reader)
        return {key: reader.why or self._pod_why(reader) for key, (_, reader) in found.items()}

    def _pod_why(self, reader: Reader) -> str:
        # (find_readers gives it the index's describe; without, the object's own.)
        described = self.describe(reader.referrer) if self.describe is not None else reader.referrer.describe()
        field_path = format_path(reader.path)
        where = f"{field_path} ({reader.via})" if reader.via else field_path
        return f"{described} {where} names it: the program reads it by that name"


T = TypeVar("T")


@cache
def _data() -> dict[str, Any]:
    return fieldspecs.data("fixednames.yaml")


@cache
def _setting_words() -> tuple[frozenset[str], frozenset[str]]:
    """(words that say a flag holds a setting, words that may go with them)."""
    hints = _data().get("nameHints") or {}
    return (frozenset(w.lower() for w in hints.get("settingWords") or ()),
            frozenset(w.lower() for w in hints.get("settingCompanions") or ()))


@cache
def _name_hints() -> tuple[dict[str, tuple[str, ...]], dict[str, str]]:
    """(config kind -> its words, word of another kind -> that kind), from
    fixednames.yaml nameHints."""
    hints = _data().get("nameHints") or {}
    config = {kind: tuple(w.lower() for w in words) for kind, words in (hints.get("configKinds") or {}).items()}
    assert set(config) == set(CONFIG_KINDS), config
    other = {w.lower(): kind for kind, words in (hints.get("otherKinds") or {}).items() for w in words}
    assert not set(other) & {w for words in config.values() for w in words}, other
    return config, other


def says_kind(via: str, kind: str) -> bool:
    """Whether a flag or variable name holds a word of config kind `kind`
    (`--tcp-services-configmap` says ConfigMap), ignoring case, `-`, `_`, `.`."""
    words = squeezed(via)
    return any(word in words for word in _name_hints()[0][kind])


def other_kind(via: str) -> str | None:
    """The kind a flag or variable name says it names when that is no
    ConfigMap or Secret (`--publish-service`: Service), "setting" when its
    every word says it holds a setting (`--preset`, `--log-level`), else
    None: one with a config word, or with no word of either (`--source`),
    may name one."""
    if not via or any(says_kind(via, kind) for kind in CONFIG_KINDS):
        return None
    words = [word.lower() for word in _WORD_BREAK.split(via) if word]
    settings, companions = _setting_words()
    if any(word in settings for word in words) and all(word in settings or word in companions for word in words):
        return "setting"
    other = _name_hints()[1]
    for word in _WORD_BREAK.split(via):
        word = word.lower()
        for stem in (word, word[:-1] if word.endswith("s") else "", word[:-2] if word.endswith("es") else ""):
            if stem in other:
                return other[stem]
    return None


def kinds_named_by(via: str) -> tuple[str, ...]:
    """The config kinds a flag or variable may name: none when it says
    another kind (`--publish-service=ns/name`, a Service sharing a config's
    name), only the one it spells out (`--configmap`, `--tls-secret`), else
    either (a looser word, `--config`, `--cert`, or none)."""
    if other_kind(via) is not None:
        return ()
    words = squeezed(via)
    return tuple(kind for kind in CONFIG_KINDS if kind.lower() in words) or CONFIG_KINDS


@cache
def fixed_names() -> tuple[FixedName, ...]:
    rows = []
    for raw in _data().get("fixedNames") or []:
        assert raw["kind"] in CONFIG_KINDS, raw
        assert raw.get("name") or raw.get("namePattern") or raw.get("type"), raw
        pattern = raw.get("namePattern")
        rows.append(FixedName(
            kind=raw["kind"], name=raw.get("name"), pattern=re.compile(pattern) if pattern else None,
            namespace=raw.get("namespace"), type=raw.get("type"), if_label=tuple(raw.get("ifLabel") or ()),
            why=str(raw["why"]),
        ))
    return tuple(rows)


@cache
def _fixed_rows() -> tuple[dict[tuple[str, str], tuple[FixedName, ...]], dict[str, tuple[FixedName, ...]]]:
    """The fixed-name rows an object may match, in table order (the first
    match gives the reason): by (kind, exact name), and by kind for a name
    no row states. An object then meets a handful of rows, not all forty."""
    rows = fixed_names()
    unnamed = {row.kind: tuple(r for r in rows if r.kind == row.kind and r.name is None) for row in rows}
    named = {(row.kind, row.name): tuple(r for r in rows if r.kind == row.kind and r.name in (None, row.name))
             for row in rows if row.name is not None}
    return named, unnamed


def _fixed_rows_for(obj: KubeObject) -> tuple[FixedName, ...]:
    named, unnamed = _fixed_rows()
    return named.get((obj.kind, obj.name or "")) or unnamed.get(obj.kind, ())


def find_readers(graph: Graph, strings: list[Scanned]) -> ByName:
    """`strings`: the ones graph.build found at pod_string_specs."""
    index = graph.index
    found = ByName(describe=index.describe)
    for obj in graph.config_objects:
        for row in _fixed_rows_for(obj):
            if row.matches(obj, index.namespace_of(obj)):
                found.fixed[id(obj)] = f"read by a fixed name: {row.why}"
                break
    found.readers.extend(_rbac_readers(graph, found.fixed))
    found.readers.extend(_pod_readers(graph, strings))
    found.readers.extend(_data_readers(graph))
    return found


# --- RBAC ---------------------------------------------------------------------


def _rbac_readers(graph: Graph, fixed: dict[int, str]) -> Iterator[Reader]:
    """The configs a Role or ClusterRole grants access to by name; those it
    grants a write (`writeVerbs`) are also added to `fixed`, kept even
    where opted in."""
    rules = _data().get("rbac") or {}
    kinds = _rbac_kinds()
    resources = rules.get("resources") or {}
    verbs = set(rules.get("verbs") or ())
    writes = set(rules.get("writeVerbs") or ())
    for ref in graph.references:
        referrer = ref.referrer
        if (referrer.kind, referrer.group) not in kinds or len(ref.path) < 2:
            continue
        rule = node_at(referrer.node, ref.path[:2])
        granted = sorted(verbs & set(_strings(get(rule, "verbs"))))
        on = _strings(get(rule, "resources"))
        # `*` is every resource of the rule's groups: configmaps and secrets among them.
        if not granted or resources.get(ref.target_kind) not in on and "*" not in on:
            continue
        why = (f"{graph.index.describe(referrer)} grants {'/'.join(granted)} on it by name "
               f"({ref.field_path}): a program reads it by that name")
        written = writes.intersection(granted)
        for target in [ref.target] if ref.target is not None else ref.candidates:
            yield Reader(target, referrer, ref.path, ref.node, ref.name, why, rolls=False, via=ref.target_kind,
                         namespace=ref.namespace)
            if written and id(target) not in fixed:
                fixed[id(target)] = (f"{graph.index.describe(referrer)} grants {'/'.join(sorted(written))} on it"
                                     f" by name ({ref.field_path}): a program writes it by that name, which an"
                                     " immutable version under another name would break")


def grants_by_name(kind: str, group: str) -> bool:
    """Whether objects of this kind and group grant access by name (`reads`
    keeps each rule that names a config whole)."""
    return (kind, group) in _rbac_kinds()


@cache
def _rbac_kinds() -> frozenset[tuple[str, str]]:
    """(kind, group) of the objects that grant access by name."""
    return frozenset((k["kind"], k.get("group", "")) for k in (_data().get("rbac") or {}).get("kinds") or ())


def _strings(node: Node | None) -> list[str]:
    if isinstance(node, ScalarNode):
        return [node.value]
    if isinstance(node, SequenceNode):
        return [item.value for item in node.value if isinstance(item, ScalarNode)]
    return []


# --- flags and environment values in pod specs -------------------------------


def pod_string_specs(table: ReferenceTable) -> SpecIndex:
    """The podSpecStrings paths under every PodSpec holder: the pod strings
    find_readers looks at, for graph's Finder to collect in its walk (a
    holder of a kind the stream lacks is never walked)."""
    index = SpecIndex()
    for holder in table.pod_holders():
        for path in _data().get("podSpecStrings") or ():
            make = partial(pod_path_spec, "ConfigMap", holder, {"path": path}, "fixednames.yaml")
            kind = holder.get("kind")
            if kind:  # built when a holder of its kind is walked, as the table's own pod paths
                index.add_later(str(kind), make)
            else:
                index.add(make())
    return index


def may_name_config(index: ObjectIndex) -> Callable[[str, str | None], bool]:
    """Whether a pod string may name a config object of the stream, as
    find_readers reads it: the strings graph.build need keep for it. (A
    string's context, which names_in is not given here, only skips a
    program's name: the names it yields without one are a superset.)"""
    # The index's own tables of names, not a set of every config's name: a
    # stream of 20,000 ConfigMaps held 2 MiB more for the walk that asks,
    # its peak, and most streams ask of few strings.
    names = index.names_of_kinds(CONFIG_KINDS)
    bases = index.version_bases(CONFIG_KINDS)  # (_earlier_version)
    if bases:
        names.append(bases)
    # A `--namespace` flag's parts are kept too: where the program reads
    # the names (_told_namespaces). Asked of every pod string: the word is
    # looked for first, in C (a call each was +0.3% instructions at N=1000).
    return lambda text, context: (
        ("namespace" in text or context is not None and "namespace" in context) and tells_namespace(text, context)
        or any(name in held for _, _, name in names_in(text) for held in names))


def reads(obj: KubeObject, found: Found) -> Iterator[tuple[Path, bool]]:
    """What this stage reads of an object after read (see references.reads):
    the rule of an RBAC grant by name, whose verbs and resources say whether
    a program reads the object it names. The pod strings it reads were
    found as the object was read (`found`)."""
    if (obj.kind, obj.group) not in _rbac_kinds():
        return
    for ref in found.references:
        if len(ref.path) >= 2:
            yield ref.path[:2], True


def _pod_readers(graph: Graph, strings: list[Scanned]) -> Iterator[Reader]:
    """From the pod strings graph.build found (at pod_string_specs) that no
    field spec covers."""
    index = graph.index
    covered = {id(ref.node) for ref in graph.references}
    told = _told_namespaces(strings)
    for obj, node, context, path in strings:
        if id(node) in covered or tells_namespace(node.value, context):
            continue
        for via, namespace, name in names_in(node.value, context):
            if namespace is None and path[-2:-1] in (("args",), ("command",)):
                namespace = told.get((id(obj), path[:-2]))
            via, at = _shared_via(via), _shared_path(path)
            for target in _targets(index, obj, namespace, name, kinds_named_by(via)):
                # The name as written is the target's own name, mostly: that
                # string, not one more for each reader.
                written = target.name if target.name == name else name
                yield Reader(target, obj, at, node, written, "", rolls=True, via=via, namespace=namespace)


def _shared_via(via: str) -> str:
    """One string for each flag or variable name readers are found by: a
    stream's workloads repeat a few (25,000 Deployments with two flags
    naming a Secret each held 2.8 MiB of them)."""
    return _held_once(via, _VIAS)


def _shared_path(path: Path) -> Path:
    """One tuple for each path readers are found at: workloads alike repeat
    theirs (25,000 Deployments whose flags name a Secret each held 50,000
    tuples, 4.8 MiB)."""
    return _held_once(path, _PATHS)


def _held_once(value: T, table: dict[T, T]) -> T:
    """`value`, or the equal one `table` holds. Bounded: the table is
    emptied once it holds _HELD."""
    shared = table.get(value)
    if shared is None:
        if len(table) >= _HELD:
            table.clear()
        shared = table[value] = value
    return shared


_VIAS: dict[str, str] = {}
_PATHS: dict[Path, Path] = {}
_HELD = 1 << 10


def _told_namespaces(strings: list[Scanned]) -> dict[tuple[int, Path], str]:
    """(object, container path) -> the namespace its `--namespace` flag
    tells the program (fieldspecs.namespace_told, over its `command` and
    `args` in that order, as argument_items gives them), where its other
    flags' names are read."""
    flags: dict[tuple[int, Path], list[tuple[int, str | int, str]]] = {}
    for obj, node, context, path in strings:
        if path[-2:-1] in (("args",), ("command",)) and tells_namespace(node.value, context):
            order = (ARGUMENT_FIELDS[::-1].index(path[-2]), path[-1], node.value)  # command first, then by index
            flags.setdefault((id(obj), path[:-2]), []).append(order)
    told = {key: namespace_told(value for _, _, value in sorted(given)) for key, given in flags.items()}
    return {key: namespace for key, namespace in told.items() if namespace is not None}


def names_in(text: str, context: str | None = None) -> Iterator[tuple[str, str | None, str]]:
    """(flag or variable, stated namespace or None, name) for each word of a
    flag or value that could name an object: `--flag=name`, `--flag=ns/name`,
    `$(VAR)/name`, a bare word (not one a port number follows: a host),
    comma-separated lists. `context`: the flag
    before this string (`--flag value` as two args) or the variable it sets;
    "" when the string starts with a program's name, which is skipped."""
    words = text.split()
    flag = context or ""
    ends: frozenset[int] | None = None  # (_ends_of_commands, found once a flag may reach past one)
    for i, word in enumerate(words):
        if context == "" and i == 0:
            continue
        if flag:
            if ends is None:
                ends = _ends_of_commands(text) if "\n" in text or ";" in text or "|" in text or "&" in text \
                    else frozenset()
            if i in ends:
                flag = ""  # a script's next line or command: the flag before is not this word's
        if word in _COMMAND_SEPARATORS:
            continue
        word = word.strip("'\";")  # a script's `... name;` too
        if word.startswith("-"):
            flag, equals, word = word.partition("=")
            if not equals:
                continue  # its value, if any, is the next word
        elif i + 1 < len(words) and _is_port(words[i + 1]):
            continue  # `host port`: a script waiting for a Service (`nc -z db 5432`, `check_host db 443`)
        for part in word.split(","):
            part = part.strip("'\"")
            namespace, slash, name = part.rpartition("/")
            if slash:
                if _VARIABLE.match(namespace):
                    namespace = ""
                elif not NAMESPACE_NAME.fullmatch(namespace):
                    continue  # a path or a URL
            if _DNS_NAME.match(name):
                yield flag, namespace or None, name


def _is_port(word: str) -> bool:
    """Whether a word is a port number (1-65535), as a script writes one."""
    word = word.strip("'\";")
    return word.isdigit() and word.isascii() and 0 < int(word) < 65536


# Shell words that end a command: a flag before one is no later word's.
_COMMAND_SEPARATORS = frozenset({";", "&&", "||", "|", "&"})


def _ends_of_commands(text: str) -> frozenset[int]:
    """The indexes in text.split() of the words that start a line of `text`
    after its first (unless the line before ends in `\\`, which goes on),
    or come after a command's end (_COMMAND_SEPARATORS, a word ending in
    `;`): a script's (`sh -c`), where a flag's reach ends with its command."""
    starts: set[int] = set()
    at = 0
    goes_on = True
    for line in text.split("\n"):
        if not goes_on:
            starts.add(at)
        words = line.split()
        for word in words:
            if word in _COMMAND_SEPARATORS or word.endswith(";"):
                starts.add(at + 1)
            at += 1
        goes_on = bool(words) and words[-1].endswith("\\") or not at
    return frozenset(starts)


def _targets(index: ObjectIndex, referrer: KubeObject, namespace: str | None, name: str,
             kinds: Iterable[str] = CONFIG_KINDS) -> list[KubeObject]:
    found = []
    for kind in kinds:
        target, resolution, _ = lookup(index, referrer, kind, name, namespace)
        if resolution is Resolution.DANGLING:
            target = _earlier_version(index, referrer, kind, name, namespace)
        if target is not None and target is not referrer:
            found.append(target)
    return found


def _earlier_version(index: ObjectIndex, referrer: KubeObject, kind: str, name: str,
                     namespace: str | None) -> KubeObject | None:
    """The one version a previous run made of an object of the name no
    object has now, where the name is looked up (in its namespace, then
    across the implicit one), as a declared dependency finds it
    (dependencies.py): read again, a program reading a config by a name the
    first run versioned away (an allowed broken reference) reads what it
    read then, and the config hash it gave covers the same configs."""
    looked_up = index.lookup_namespace(referrer, namespace)
    for matches in (lambda ns: looked_up is None or ns == looked_up, lambda ns: across_namespaces(looked_up, ns)):
        named = [v for v in index.versions_named("", kind, name, matches) if v.api_version == "v1"]
        if len(named) == 1:
            return named[0]
        if named:
            return None
    return None


# --- names in a ConfigMap's or Secret's data -------------------------------------


@cache
def _data_keys() -> tuple[frozenset[str], tuple[str, ...]]:
    keys = {k.lower() for k in _data().get("configDataKeys") or ()}
    suffixes: list[str] = []
    for rules in guard_rules().values():
        keys |= rules["keys"]
        suffixes.extend(rules["suffixes"])
    return frozenset(keys), tuple(suffixes)


def names_itself(key: str) -> bool:
    """Whether a config's entry of one line under `key` is itself a name
    (entry_names): a key of configDataKeys or the guard's rules, or one
    ending as theirs do, compared without case, `-`, `_` and `.`
    (`tls-secret`, `SECRET_NAME`); not a bare `name`, which a file of
    settings nests under what it names (`accessKeySecret: {name: x}`) and a
    program's settings use for anything. Asked of every short entry of every
    config (a large one's as it is composed): most keys end in a letter none
    of those ends in, and are passed over at that."""
    keys, suffixes, last = _own_keys()
    if key[-1:] not in last:
        return False
    squeezed_key = key.lower().translate(_SEPARATORS)
    return squeezed_key in keys or squeezed_key.endswith(suffixes)


_SEPARATORS = str.maketrans("", "", "-_.")


@cache
def _own_keys() -> tuple[frozenset[str], tuple[str, ...], frozenset[str]]:
    """(the keys, the suffixes, and the last letters of any, in either case)."""
    keys, suffixes = _data_keys()
    own = frozenset(k.translate(_SEPARATORS) for k in keys) - {"name"}
    ends = tuple(s.translate(_SEPARATORS) for s in suffixes)
    last = frozenset(c for word in (*own, *ends) for c in (word[-1], word[-1].upper()))
    return own, ends, last


def _data_readers(graph: Graph) -> Iterator[Reader]:
    index = graph.index
    # An entry a field spec covers (`--config`: data/configmap) is a
    # reference, rewritten: no program reads the old name there.
    covered = {(id(ref.referrer), ref.node.start_mark) for ref in graph.references}
    for holder in graph.config_objects:
        for path, value, written, via in data_names(holder):
            if (id(holder), value.start_mark) in covered:
                continue
            namespace, _, name = written.rpartition("/")  # (`add-headers: ns/name`)
            for target in _targets(index, holder, namespace or None, name):
                # A Secret's text is never quoted, not even the `key: name`
                # that names the object (whose name is the stream's anyway).
                quoted = f" ({via}: {written})" if holder.kind != "Secret" else ""
                why = (f"{index.describe(holder)} {format_path(path)} names it{quoted}: "
                       "the program configured there reads it by name")
                yield Reader(target, holder, path, value, name, why, rolls=False, via=via,
                             namespace=namespace or None)


# A name a config's data entry gives a program: where ((field, key)), the
# entry's scalar, the name, and the key in the entry's text that gives it.
DataName = tuple[Path, ScalarNode, str, str]


def data_names(holder: KubeObject) -> tuple[DataName, ...]:
    """What a ConfigMap's or Secret's data entries name (folding.NAMING_FIELDS:
    a Secret's `data` decoded), by the keys configDataKeys and the guard's
    rules list (`secretName: web-tls` in an embedded config file): an
    operator's configuration is as often a Secret as a ConfigMap. Found once,
    while the object is whole (the read stage asks, pipeline/needs.py), and
    kept with its content: read keeps no data. Only a name an object of the
    stream has is ever shown (_data_readers): never other text of a Secret."""
    fields = NAMING_FIELDS.get(holder.kind)
    if fields is None:
        return ()
    named = names_in_data(holder)
    if named is None:
        named = content_of(holder).named = tuple(sorted(_scan_data(holder, fields), key=in_document_order))
    return named


def _scan_data(holder: KubeObject, fields: Mapping[str, bool]) -> Iterator[DataName]:
    for field, encoded in fields.items():
        yield from names_in_field(get(holder.node, field), encoded, NAMES, field)


def entry_names(field: str, key: str, value: ScalarNode, text: str) -> Iterator[DataName]:
    """What one entry of a config's `field` names (data_names): `value` its
    scalar, `text` its string (a Secret's `data` decoded, folding.naming_text).
    Holding a `:`, the names its own entries give (`key: name`, a file of
    settings); one line, the name it is itself where its key says so
    (`configMapName: x`, ingress-nginx's `add-headers: ns/x`), as the program
    given the config's entries as its settings or environment reads it. The
    read stage asks of each entry of a large config as it is composed
    (index/folding.py)."""
    if ":" not in text:  # (folding.naming_text asked names_itself(key))
        for _, namespace, name in names_in(text, key):
            yield (field, key), value, name if namespace is None else f"{namespace}/{name}", key
        return
    if len(text) > _MAX_SCANNED:
        return
    keys, suffixes = _data_keys()
    for match in _DATA_ENTRY.finditer(text):
        entry_key = match.group("key").lower()
        if entry_key not in keys and not entry_key.endswith(suffixes):
            continue
        yield (field, key), value, match.group("name"), match.group("key")
    if "[" in text or "- " in text:
        lists = _list_keys()
        for match in _DATA_LIST.finditer(text):
            if not squeezed(match.group("key")).endswith(lists):
                continue
            if match.group("flow") is not None:
                items = match.group("flow").split(",")
            else:
                items = [line.strip()[1:] for line in match.group("block").splitlines()]
            for item in items:
                item = item.partition(" #")[0].strip().strip("'\"")
                if _LISTED_NAME.fullmatch(item):
                    yield (field, key), value, item, match.group("key")


@cache
def _list_keys() -> tuple[str, ...]:
    """The guard's `lists` key endings, of both kinds (squeezed)."""
    return tuple(ending for rules in guard_rules().values() for ending in rules["lists"])


# How data_names reads a config's entries (index/folding.py).
NAMES = NameScan(entry_names, names_itself)
