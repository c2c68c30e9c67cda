"""Stage 4: decide, per ConfigMap and Secret, whether and how it is versioned.

Naming rules (documented in the README):
- the versioned name is `<base>-<hash>`, the hash being kustomize's;
- a name stays within 253 characters: a base longer than 242 characters is
  cut to 236, trailing `-`/`.` dropped, and `-<5 characters of the hash of
  the full base>` appended, so distinct long names stay distinct;
- the `postrender.io/base-name` label holds the base when it is a valid label
  value, else its first 52 characters plus `-<10-character hash>`; the full
  base then also goes in the `postrender.io/original-name` annotation;
- a name kustomize already suffixed with the content hash keeps it
  (suffixed_by_kustomize).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence

from ...errors import PostrenderError
from ...records import record, replace
from ..graph.references import Graph, Reference, is_config_object
from ..index.configs import ConfigContent, content_of, hash_as_written_out, hash_of, in_content
from ..index.folding import STRING_FIELDS
from ..index.hashing import hash_suffix, short_hash
from ..index.objects import ObjectIndex, base_name_of, suffixed_later_by_kustomize
from ..read.documents import KubeObject
from .new_values import new_value
from ...vocabulary import (
    ANNOTATION_COPY_OF,
    ANNOTATION_KEEP_ORIGINAL,
    ANNOTATION_VERSIONED,
    KEEP_POLICIES,
    LABEL_CONTENT_HASH,
    LABEL_VERSIONED,
    is_label_value,
)

MAX_NAME = 253
HASH_SUFFIX_LENGTH = 11  # "-" + 10 characters


@record(frozen=True, eq=False)
class Version:
    obj: KubeObject
    hash: str
    base_name: str
    name: str  # the name it ends with
    excluded: str | None = None  # why it keeps its name
    unchanged: bool = False  # already versioned with this content
    keep_original: bool = False
    # Excluded because kustomize suffixes it with its content hash: its name
    # changes with its content all the same.
    kustomized: bool = False

    @property
    def versioned(self) -> bool:
        # Written out in renamed and name_follows_content: change the three together.
        return self.excluded is None

    # (Both ask `excluded` themselves, not `versioned`: a property call
    # less each, asked of every config by several stages.)
    @property
    def renamed(self) -> bool:
        return self.excluded is None and not self.unchanged and self.name != self.obj.name

    @property
    def name_follows_content(self) -> bool:
        """New content gives a new name: postrender's or kustomize's suffix."""
        return self.excluded is None or self.kustomized


@record
class Options:
    keep_original: str = "auto"  # options.KEEP_ORIGINAL_MODES
    hooks_hidden: bool = False
    # Version every object, referenced or not (--version-all).
    version_all: bool = False
    # A run that keeps previous versions (--retain, --keep-previous) takes a
    # name kustomize suffixed with its content hash (configMapGenerator
    # output, built before postrender) as a version of its own: marked as
    # postrender marks its versions, not renamed, so its previous versions
    # are kept and collected as theirs are (kustomized_version).
    versions_kustomized: bool = False

    def keeps_original(self, obj: KubeObject) -> bool:
        """Whether a versioned object also keeps an unsuffixed, mutable copy.

        `auto` copies every Secret, so a chart's `lookup` of its own Secret
        (the generated-password idiom) finds last release's value and a
        no-change upgrade keeps it; under Helm 3 (hooks_hidden) every object,
        since hooks, which Helm 3 never shows a post-renderer, name originals.
        The object's own annotation wins either way.
        """
        marked = obj.annotations.get(ANNOTATION_KEEP_ORIGINAL)
        if marked in ("true", "false"):
            return marked == "true"
        return self.copies_kind(obj.kind)

    def copies_kind(self, kind: str) -> bool:
        """Whether an object of this kind keeps a copy unless its own
        annotation says otherwise (keeps_original)."""
        mode = self.keep_original
        if mode == "auto":
            return kind == "Secret" or self.hooks_hidden
        return mode == "all" or (mode == "secrets" and kind == "Secret")


UNREFERENCED = (
    "no field postrender rewrites references it, so a new name would roll nothing "
    f'(opt in: {LABEL_VERSIONED}: "true" or --version-all)'
)
EMPTY = "no data: a placeholder a controller fills in; kept mutable"
# The chart's own `helm.sh/resource-policy: keep`: Helm keeps such an object
# when it leaves the release, untracked. Each version would be kept so, and
# the first `helm rollback` to a release that used an earlier one fails
# (helm62; the README's "Keeping previous versions").
((_HELM_POLICY, _HELM_KEEP),) = KEEP_POLICIES["helm"].items()
HELM_KEPT = (f"{_HELM_POLICY}: {_HELM_KEEP}: Helm would keep each version untracked, and the first helm rollback to "
             "a release that used an earlier one would fail")
KUSTOMIZE_GENERATOR = "kustomize generator output: kustomize adds its own suffix"
KUSTOMIZE_SUFFIXED = (
    "its name already ends in its content hash (-{hash}), as kustomize names "
    "configMapGenerator and secretGenerator output: new content already gives a new name"
)


class Plan:
    """Final once made: every stage after the plan reads it, none changes it.

    A config that keeps its name as written, and its hash as read, for a
    reason alone (no reference reads it, say: most configs of a stream
    nothing references) is held as that reason, and its Version made again
    when asked (`_kept`): a Version and its place in a tuple were 104 bytes
    each (100,000 tiny ConfigMaps: 10 MiB). `versioned` holds the versions
    that take a new name or marks, which most stages read alone."""

    def __init__(self, versions: Iterable[Version], configs: Sequence[KubeObject] | None = None):
        # Keyed by the object itself (it hashes by identity): an id would be
        # an int object of its own per version. Given `configs` (every
        # config the versions are of, in order), one nothing references is
        # held as nothing at all: it is what a config the table does not
        # hold is.
        by_object: dict[KubeObject, Version | str] = {}
        versioned: list[Version] = []
        for version in versions:
            if version.excluded is None:
                versioned.append(version)
            if not _kept_plainly(version):
                by_object[version.obj] = version
            elif configs is None or version.excluded != UNREFERENCED:
                by_object[version.obj] = version.excluded  # type: ignore[assignment]
        self._by_object = by_object
        self._configs = configs
        self.versioned: tuple[Version, ...] = tuple(versioned)

    @property
    def versions(self) -> Iterator[Version]:
        """Every config's version, in the stream's order."""
        if self._configs is None:
            for obj, held in self._by_object.items():
                yield _kept(obj, held) if held.__class__ is str else held  # type: ignore[arg-type, misc]
            return
        get = self._by_object.get
        for obj in self._configs:
            held = get(obj, UNREFERENCED)
            yield _kept(obj, held) if held.__class__ is str else held  # type: ignore[arg-type, misc]

    def of(self, obj: KubeObject) -> Version | None:
        held = self._by_object.get(obj)
        if held is None and self._configs is not None and is_config_object(obj):
            held = UNREFERENCED
        return _kept(obj, held) if held.__class__ is str else held  # type: ignore[arg-type, return-value]

    def versioned_by(self, ref: Reference) -> list[Version]:
        """The versions a reference names once rewritten: its target's; of
        a grant by name that matched several objects (RBAC resourceNames, a
        cluster-wide rule), each candidate's, by the name the grant gains
        beside its own (rewrite._grant) or by its own."""
        if ref.target is None and not ref.spec.grants:
            return []
        targets = [ref.target] if ref.target is not None else ref.candidates
        return [version for target in targets if (version := self.of(target)) is not None and version.versioned]

    def alive_names(self, index: ObjectIndex) -> set[tuple[str, str, str]]:
        """(kind, namespace, name) of every ConfigMap and Secret the output holds:
        final names, and original names an object keeps or a copy carries on."""
        return set(self.each_alive_name(index))

    def each_alive_name(self, index: ObjectIndex) -> Iterator[tuple[str, str, str]]:
        """alive_names one at a time (some twice): for a caller that only
        tests each against what it holds, where the set of them all (75,000
        names over 25,000 apps: 9 MiB) set the guard's peak."""
        held = self._by_object.get
        for obj, version in ((obj, held(obj, UNREFERENCED)) for obj in self._configs) \
                if self._configs is not None else self._by_object.items():
            namespace = index.namespace_of(obj)
            if version.__class__ is str:  # kept as written (_kept)
                yield (obj.kind, namespace, obj.name or "")
                continue
            yield (obj.kind, namespace, version.name)  # type: ignore[union-attr]
            if not version.versioned or version.keep_original:  # type: ignore[union-attr]
                yield (obj.kind, namespace, obj.name or "")


def _kept_plainly(version: Version) -> bool:
    """Whether `_kept` makes this version again from its object and its reason."""
    obj = version.obj
    return (version.excluded is not None and not (version.unchanged or version.keep_original or version.kustomized)
            and version.name == version.base_name == (obj.name or "") and version.hash == hash_of(obj))


def _kept(obj: KubeObject, reason: str) -> Version:
    """The version of a config the plan holds as the reason it keeps its name (Plan)."""
    name = obj.name or ""
    return Version(obj, hash_of(obj), name, name, excluded=reason)


def plan(
    graph: Graph,
    options: Options,
    excluded_by_producers: dict[int, str] | None = None,
    held: Collection[int] = (),
    fixed: dict[int, str] | None = None,
    read_by_name: dict[int, str] | None = None,
    copies: Collection[int] = (),
) -> Plan:
    """`excluded_by_producers`: objects that keep their names whatever happens
    (produced, Reloader, --strategy=annotate), with why; `held`: ids of
    references left as written; `fixed` and `read_by_name`: objects a program
    reads by name (byname.py) — the fixed-name table wins over an opt-in, the
    other signals do not; `copies`: objects a reference left as written still
    needs, so a renamed one also keeps an unsuffixed copy (reloader.py)."""
    produced = excluded_by_producers or {}
    fixed = fixed or {}
    read_by_name = read_by_name or {}
    consumed = consumed_objects(graph, held)

    def version_of(obj: KubeObject, content: ConfigContent, digest: str | None = None) -> Version:
        key = id(obj)
        version = _version(obj, options, content, produced.get(key), fixed.get(key), read_by_name.get(key),
                           key in consumed, digest)
        if key in copies and version.renamed:
            version = replace(version, keep_original=True)
        return version

    def planned() -> Iterator[Version]:
        for obj in graph.config_objects:
            content = content_of(obj)
            if content.refused is not None:
                raise content.refused
            version = version_of(obj, content)
            if not version.versioned:
                # Its marks, made ahead as it was read (rewrite.Prepared), are
                # never asked for: dropped as its version is made, so the
                # versions take their place rather than adding to them.
                obj.prepared = None
            yield version

    in_data = _configs_naming_configs(graph)
    if in_data:
        versions = list(planned())
        _hash_data_as_written_out(graph, in_data, versions, held,
                                  lambda obj, digest: version_of(obj, content_of(obj), digest))
        made = Plan(versions, graph.config_objects)
    else:
        # Most streams: each version taken into the plan as it is made, so
        # that those it holds as their reason alone are never all held.
        made = Plan(planned(), graph.config_objects)
    _check_new_names_are_free(made, graph.index)
    return made


def _configs_naming_configs(graph: Graph) -> dict[KubeObject, list[Reference]]:
    """The configs whose own data holds a reference the rewrite may change
    (a `--config` field spec into a ConfigMap's data, naming another
    config), each with those references."""
    in_data: dict[KubeObject, list[Reference]] = {}
    for ref in graph.references:
        # Most references are in a spec: one look at the path's first key.
        if ref.path[0] in _DATA_FIELDS:
            referrer = ref.referrer
            if (ref.target is not None and not ref.spec.grants and is_config_object(referrer)
                    and in_content(referrer, ref.path)):
                in_data.setdefault(referrer, []).append(ref)
    return in_data


def _hash_data_as_written_out(graph: Graph, in_data: dict[KubeObject, list[Reference]], made: list[Version],
                              held: Collection[int], remake: Callable[[KubeObject, str], Version]) -> None:
    """Names again each config whose own data holds a reference the rewrite
    changes (`in_data`: _configs_naming_configs) by the hash of its data as
    written out: hashed as written, new data would keep its immutable name,
    and a second run would rename it. So the configs its data names are
    named first, and a loop of such configs, whose names would each follow
    the others', is refused. A reference held as written (reloader.py), or
    naming an object whose name does not follow its content, waits for
    nothing."""
    at = {version.obj: i for i, version in enumerate(made)}
    versions = {version.obj: version for version in made}
    settled: set[KubeObject] = set()
    for first in in_data:
        if first in settled:
            continue
        # Depth first, without recursion: a long chain of configs naming
        # the next in their data must not exhaust Python's stack.
        path: list[tuple[KubeObject, Iterator[Reference]]] = [(first, iter(in_data[first]))]
        while path:
            obj, refs = path[-1]
            ref = next((r for r in refs if _waits_for(r, in_data, versions, held)), None)
            if ref is not None:
                target = ref.target
                assert target is not None
                if target in settled:
                    continue
                on_path = [o for o, _ in path]
                if target in on_path:
                    raise _loop(on_path[on_path.index(target):], ref)
                path.append((target, iter(in_data[target])))
                continue
            path.pop()
            settled.add(obj)
            texts: dict[int, str] = {}
            beside: dict[tuple[str, str], str] = {}
            for each in in_data[obj]:
                value = new_value(each, versions.get, id(each) in held, graph.index)
                if value is None:
                    continue
                texts[id(each.node)], namespace = value
                if namespace is not None and each.spec.namespace_field is not None and len(each.path) == 2:
                    beside[(each.path[0], each.spec.namespace_field)] = namespace
            if texts:
                digest = hash_as_written_out(obj, texts, beside)
                if digest != versions[obj].hash:
                    versions[obj] = made[at[obj]] = remake(obj, digest)


_DATA_FIELDS = frozenset(field for fields in STRING_FIELDS.values() for field in fields)


def _waits_for(ref: Reference, in_data: dict[KubeObject, list[Reference]], versions: dict[KubeObject, Version],
               held: Collection[int]) -> bool:
    """Whether the new text of `ref`, in a config's data, waits for its
    target's name: one that follows the target's content, itself holding
    references in its data."""
    target = ref.target
    return target in in_data and id(ref) not in held and versions[target].versioned  # type: ignore[index]


def _loop(configs: list[KubeObject], ref: Reference) -> PostrenderError:
    names = " -> ".join(obj.describe() for obj in [*configs, configs[0]])
    return PostrenderError(
        f"configs name each other in their data ({names}, {ref.field_path} here): each one's versioned name "
        "would follow the others' content, which holds its name; version one of them no more "
        '(postrender.io/versioned: "false"), or drop the field spec that reads the name',
        ref.referrer.location(ref.node),
    )


def _check_new_names_are_free(made: Plan, index: ObjectIndex) -> None:
    """Refuses a new name that another ConfigMap or Secret of the stream
    keeps (its own, or its copy's), or that another object is renamed to
    (two objects renamed from different old versions of one base, to the
    same content): applied, the later of two objects of one name overwrites
    the earlier, and a reference would read the other's data. Only renamed
    objects are looked at: a name written in the input is unique already
    (ObjectIndex refuses a duplicate)."""
    taken: dict[tuple[str, str, str, str], KubeObject] = {}
    for version in made.versioned:
        if not version.renamed:
            continue
        obj = version.obj
        group, namespace = obj.group, index.namespace_of(obj)
        holder = taken.setdefault((group, obj.kind, namespace, version.name), obj)
        how = "is renamed to it too"
        if holder is obj:
            holder = next((other for other in index.named(group, obj.kind, version.name)
                           if index.namespace_of(other) == namespace), None)
            held = made.of(holder) if holder is not None else None
            if holder is None or held is not None and held.renamed and not held.keep_original:
                continue  # no object of that name, or it leaves the name for a new one
            how = "keeps it"
        raise PostrenderError(
            f"{obj.describe()} would be renamed {version.name}, and {holder.describe()} "
            f"(document {holder.document.index}) {how}: two objects of one name in the output; "
            "rename one of them",
            obj.location(),
        )


def consumed_objects(graph: Graph, held: Collection[int] = ()) -> set[int]:
    """Objects a rewritable reference that reads their content resolves to:
    the ones a new name rolls something for."""
    return {
        id(ref.target) for ref in graph.references
        if ref.target is not None and ref.spec.consumes and id(ref) not in held
    }


def opted_in(obj: KubeObject) -> bool:
    return obj.annotations.get(ANNOTATION_VERSIONED) == "true" or obj.labels.get(LABEL_VERSIONED) == "true"


def opted_out(obj: KubeObject) -> bool:
    return obj.annotations.get(ANNOTATION_VERSIONED) == "false" or obj.labels.get(LABEL_VERSIONED) == "false"


def _version(
    obj: KubeObject,
    options: Options,
    content: ConfigContent,
    produced_by: str | None,
    fixed: str | None,
    read_by_name: str | None,
    consumed: bool,
    digest: str | None = None,
) -> Version:
    """`content`: the object's, as read (index/configs.py); `digest`: its
    hash as written out, where the rewrite changes a reference in its data
    (_hash_data_as_written_out), else content's."""
    written = content.hash
    digest = digest or written
    name = obj.name or ""
    kept = kept_as_written(obj, content)
    base: str | None = None
    if kept is not None:
        if not (kept.kustomized and takes_as_version(obj, kept)):
            if digest == written:
                return kept
            # Its data as written out is not what kustomize named it by: its
            # name follows its content no more (but for a name kustomize is
            # yet to give, from the content postrender writes).
            return replace(kept, hash=digest, kustomized=kept.kustomized and suffixed_later_by_kustomize(obj))
        if digest == written and not options.versions_kustomized:
            return kept
        # kustomize named it by its content: in a run that keeps previous
        # versions it is one (kustomized_version, by the rules below), and
        # where the rewrite changes that content (a reference in its data)
        # its name no longer follows it: named anew from kustomize's base.
        base = name[:-HASH_SUFFIX_LENGTH]
    if produced_by:
        return Version(obj, digest, name, name, excluded=produced_by)
    # A controller writes into an empty object under its name; an immutable,
    # renamed copy would stay empty while the controller writes elsewhere.
    if content.empty:
        return Version(obj, digest, name, name, excluded=EMPTY)
    if fixed:
        return Version(obj, digest, name, name, excluded=fixed)
    if obj.annotations.get(_HELM_POLICY) == _HELM_KEEP and LABEL_CONTENT_HASH not in obj.labels:
        # The chart's, not --keep-previous=helm's on a version a run made:
        # known by the content-hash label, which only a run writes (an opt-in
        # label `versioned: "true"` is a chart's too; review62e).
        return Version(obj, digest, name, name, excluded=HELM_KEPT)
    if base is not None and digest == written:
        # A name kustomize gave by its content is taken as it is: marking it
        # renames nothing, so a program reading it by name (a flag), or no
        # field postrender rewrites, keeps no marks away from it, and a run
        # that keeps previous versions keeps its previous ones (an outside
        # tester's find: read by a flag alone, the version a rollback
        # returns to was pruned). One a program writes to (`fixed`) stays
        # mutable, above.
        return kustomized_version(obj)
    if not (opted_in(obj) or options.version_all):
        if read_by_name:
            return Version(obj, digest, name, name, excluded=read_by_name)
        if not consumed:
            return Version(obj, digest, name, name, excluded=UNREFERENCED)
    base = base if base is not None else base_name_of(obj)
    # A copy keeps the name a chart gave, its base name. An earlier version
    # whose content changed (a GitOps repo's committed output, edited) is
    # under another: a copy there came back holding the new data under the
    # old version's name, immutable, which the API server refuses (modes61).
    # Its copy, if it keeps one, is in the stream already, under the base.
    keep = options.keeps_original(obj) and name == base
    target = renamed_around(obj, base, digest) or versioned_name(base, digest)
    if marked_with(obj, digest) and name == target:
        return Version(obj, digest, base, name, unchanged=True, keep_original=False)
    return Version(obj, digest, base, target, keep_original=keep)


def kept_as_written(obj: KubeObject, content: ConfigContent) -> Version | None:
    """The version of an object that keeps its name whatever the rest of
    the stream holds, as far as it says itself (asked ahead by
    rewrite.prepare too); None when other objects decide. Asked first, in
    this order."""
    digest = content.hash
    name = obj.name or ""
    if suffixed_later_by_kustomize(obj):
        return Version(obj, digest, name, name, excluded=KUSTOMIZE_GENERATOR, kustomized=True)
    if suffixed_by_kustomize(obj, content):
        return Version(obj, digest, name, name, excluded=KUSTOMIZE_SUFFIXED.format(hash=name[-10:]), kustomized=True)
    if opted_out(obj):
        reason = ("a keep-original copy" if ANNOTATION_COPY_OF in obj.annotations
                  else "opted out (postrender.io/versioned: \"false\")")
        return Version(obj, digest, name, name, excluded=reason)
    if content.token:
        return Version(obj, digest, name, name,
                       excluded="service-account token Secret (filled in by the token controller)")
    return None


def takes_as_version(obj: KubeObject, kept: Version) -> bool:
    """Whether a run that keeps previous versions takes an object that keeps
    its name as written (kept_as_written) as a version all the same: a name
    kustomize suffixed with its content hash already, not opted out."""
    return kept.kustomized and not suffixed_later_by_kustomize(obj) and not opted_out(obj)


def kustomized_version(obj: KubeObject) -> Version:
    """A name kustomize suffixed (`<base>-<hash>`) as a version: its name
    already follows its content, so it keeps it, and gets the marks (its
    base, kustomize's hash) that --retain and gc group versions by. No
    unsuffixed copy: kustomize's output never had one."""
    name = obj.name or ""
    return Version(obj, name[-10:], name[:-HASH_SUFFIX_LENGTH], name, kustomized=True)



def suffixed_by_kustomize(obj: KubeObject, content: ConfigContent) -> bool:
    """Whether the name is `<base>-<hash>`, its own content hash, as
    `kustomize build` names a configMapGenerator's or secretGenerator's output.

    kustomize's HashTransformer runs after every other transformer
    (namePrefix and nameSuffix included) and appends `-<hash>` to the final
    name. Its hasher (api/hasher) reads kind and content only: it looks the
    name up as one key `metadata/name`, which finds nothing, so the name
    counts as "", and namespace, labels and annotations not at all. So the
    suffix is content.hash, or for a Secret kustomize hashes otherwise
    (stringData, no type) content.kustomize_hash. postrender's own output
    has that shape too: its marks (a content-hash label equal to the hash)
    leave it to the previous-run rule. A name that merely ends in ten such
    characters, not its hash, is no kustomize name.
    """
    suffix = hash_suffix(obj.name or "")
    if suffix is None or (suffix != content.hash and suffix != content.kustomize_hash):
        return False
    return not marked_with(obj, content.hash)


def renamed_around(obj: KubeObject, base: str, digest: str) -> str | None:
    """For an object a previous run versioned that was renamed around its
    versioned name since (an overlay's namePrefix or nameSuffix over
    postrender's output: `o-plain-<hash>`, `plain-<hash>-s`): the name it
    gets, that name with the versioned name for `digest` in place of the
    one its marks say, so what was put around it stays (it is itself with
    the same content). None for any other object: it is named from its base
    name."""
    written = name_written_within(obj, base)
    return None if written is None else (obj.name or "").replace(written, versioned_name(base, digest))


def name_written_within(obj: KubeObject, base: str) -> str | None:
    """The versioned name a previous run gave an object (its marks say
    which), where its name holds it once with something put around it
    since; None where it is that name itself, or not within it once."""
    written_hash = obj.labels.get(LABEL_CONTENT_HASH)
    if obj.labels.get(LABEL_VERSIONED) != "true" or not written_hash:
        return None
    name, written = obj.name or "", versioned_name(base, written_hash)
    if name == written or name.count(written) != 1:
        return None
    return written


def marked_with(obj: KubeObject, digest: str) -> bool:
    """Whether a previous run versioned the object with this content (its
    marks say so)."""
    return obj.labels.get(LABEL_VERSIONED) == "true" and obj.labels.get(LABEL_CONTENT_HASH) == digest


def is_service_account_token(obj: KubeObject) -> bool:
    """The token controller fills such a Secret in, under its own name."""
    return obj.kind == "Secret" and content_of(obj).token


def versioned_name(base: str, digest: str) -> str:
    if len(base) + HASH_SUFFIX_LENGTH > MAX_NAME:
        base = base[: MAX_NAME - HASH_SUFFIX_LENGTH - 6].rstrip("-.") + "-" + short_hash(base)[:5]
    return f"{base}-{digest}"


def label_value(base: str) -> str:
    if is_label_value(base):
        return base
    head = re.sub(r"[^-A-Za-z0-9_.]", "-", base[:52]).rstrip("-_.").lstrip("-_.")
    return f"{head}-{short_hash(base)}" if head else short_hash(base)
