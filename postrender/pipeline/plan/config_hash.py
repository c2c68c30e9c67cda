"""`postrender.io/config-hash`: a hash over the config a pod template uses.

Helm's `checksum/config` pattern done right: the hash covers exactly the
ConfigMaps and Secrets a template references (or declares by annotation),
their data only, so a chart-version label never restarts pods, and it covers
Secrets, subcharts and custom resources alike. A referrer without a pod
template gets it in its own metadata.

With --strategy=annotate every name is kept and this annotation is what
rolls workloads. With the default strategy a renamed object already rolls
its referrers; the annotation is added only where something a template
depends on keeps its name (`postrender.io/versioned: "false"`, an object a
program reads by name, a flag or environment value naming one, a Reloader
reload list naming an object the template does not mount, a Secret a
controller unseals from a producer in the stream).

A ConfigMap or Secret that names another (a user's field spec into its data
or annotations) gets none: nothing rolls on a config's own metadata, and
the unsuffixed copy a run writes of a versioned one, which names what the
original names, has none either, so a second run gives it none.
"""

from __future__ import annotations

from collections.abc import Container, Iterator, Sequence

from ...options import Spelling
from ...records import field, record
from ..graph.byname import Reader
from ..graph.dependencies import Dependency
from ...fieldspecs import ReferenceTable
from ..graph.references import (
    Graph, Path, Resolution, in_immutable_template, is_config_object, pod_metadata, pod_templates, template_holding,
)
from ..index.hashing import go_json, hash_suffix, sha256_hex, to_json_value
from ...syntax.nodes import format_path
from ..index.objects import base_name_of
from .versions import HASH_SUFFIX_LENGTH, Plan, Version, is_service_account_token, suffixed_later_by_kustomize
from ...vocabulary import ANNOTATION_CONFIG_HASH
from ..graph.producers import Production, Productions
from ..read.documents import KubeObject
from .reloader import Policy


Item = tuple[str, str, str]  # kind, unversioned name, content hash
# What a hash would cover: (referrer, where, item, whether a rewritten name
# carries the item's changes, the config; None: one a producer makes).
Covered = tuple[KubeObject, "Path | None", Item, bool, "KubeObject | None"]


@record(eq=False)
class Place:
    """Where one hash goes: a pod template, or a referrer's own metadata.
    Held from analysis to write (and read by -v, diff and graph): tuples,
    not the dicts _Gathered collects in (25,000 workloads whose flags name
    a Secret each: some 8 MiB less held)."""

    obj: KubeObject
    template: Path | None  # None: the object's metadata
    items: tuple[Item, ...] = ()  # each once, in the order found; `value` is digest(sorted(items))
    value: str = ""
    # Each item with an object it is of (None for one a producer makes),
    # each pair once, in order: where each is, its namespace, which an
    # item, hashed as it was first made, leaves out; identical objects in
    # two namespaces are one item.
    objects: tuple[tuple[Item, KubeObject | None], ...] = ()
    # The mapping whose annotations get the hash: the template's metadata,
    # or for an object that is no template itself, where its controller
    # takes its pods' metadata from (ReferenceTable.pod_metadata_path), else
    # its own metadata.
    at: Path = ("metadata",)

    @property
    def field_path(self) -> str:
        return format_path(self.at + ("annotations", ANNOTATION_CONFIG_HASH))


@record(eq=False)
class _Gathered:
    """A Place's items as config_hashes finds them, before it is chosen."""

    obj: KubeObject
    template: Path | None
    at: Path
    # (item, an object it is of) -> a rewritten name carries its changes: a
    # dict for its order and as a set, the items' own order and flags read
    # from it (items), not a second dict (25,000 workloads whose flags name
    # a Secret: 5 MiB at config_hashes' peak); keyed by the object itself
    # (KubeObject hashes by identity), not its id and a pair again
    # (--strategy=annotate at N=5000: 2.1 -> 1.3 MiB).
    objects: dict[tuple[Item, KubeObject | None], bool] = field(default_factory=dict)

    def add(self, item: Item, carried: bool, obj: KubeObject | None = None) -> None:
        key = (item, obj)
        self.objects[key] = self.objects.get(key, False) or carried

    def items(self) -> dict[Item, bool]:
        """Each item once, in the order found -> a rewritten name carries its changes."""
        items: dict[Item, bool] = {}
        for (item, _), carried in self.objects.items():
            items[item] = items.get(item, False) or carried
        return items

    def placed(self, items: dict[Item, bool]) -> Place:
        return Place(self.obj, self.template, items=tuple(items), value=digest(sorted(items)),
                     objects=tuple(self.objects), at=self.at)


def kept_by_strategy(spelled: Spelling) -> str:
    """Why a config keeps its name under --strategy=annotate, the option
    named as the frontend sets it."""
    return f"{spelled.named('strategy', 'annotate')} keeps every name"


def kept_names(graph: Graph, strategy: str, reason: str) -> dict[int, str]:
    """`reason`: kept_by_strategy's."""
    if strategy != "annotate":
        return {}
    return {id(obj): reason for obj in graph.config_objects}


def config_hashes(
    graph: Graph,
    table: ReferenceTable,
    the_plan: Plan,
    productions: Productions,
    dependencies: list[Dependency],
    policy: Policy,
    strategy: str,
    readers: Sequence[Reader] = (),
) -> list[Place]:
    """The places that get a hash, each with its value (rewrite.py writes
    them). `readers`: flags and
    environment values naming an object a program reads by name (byname.py);
    the name stays as written, so only the hash can roll the workload."""
    places: dict[tuple[int, Path | None], _Gathered] = {}
    # Each place's `at` one tuple for equal paths: workloads alike repeat
    # theirs (25,000 workloads: 1.5 MiB).
    ats: dict[Path, Path] = {}
    def place(obj: KubeObject, path: Path | None) -> _Gathered:
        key = (id(obj), path)
        if key not in places:
            at = _annotations_at(obj, path, table)
            places[key] = _Gathered(obj, path, ats.setdefault(at, at))
        return places[key]

    def places_at(obj: KubeObject, path: Path | None) -> list[_Gathered]:
        """The template holding `path`; every template when `path` is None;
        the object's metadata when there is none. Never an immutable
        template (a Job's): a changed hash there fails the next upgrade."""
        if path is not None:
            holding = template_holding(obj, path, table)
            if holding is not None:
                if in_immutable_template(obj, holding.path, table):
                    return []
                return [place(obj, holding.path or None)]
            return [place(obj, None)]
        found = [t.path for t in pod_templates(obj, table) if not in_immutable_template(obj, t.path, table)]
        if found:
            return [place(obj, template or None) for template in found]
        if pod_templates(obj, table):
            return []
        return [place(obj, None)]

    # id(config object) -> its item, one tuple for every place it is in,
    # and whether a rewritten name carries it; None: it adds nothing. Asked
    # for each reference, twice (covering).
    adds: dict[int, tuple[Item, bool] | None] = {}

    def added(config: KubeObject) -> tuple[Item, bool] | None:
        key = id(config)
        if key not in adds:
            item = _item(config, the_plan, productions)
            adds[key] = None if item is None else (item, _carried(config, the_plan))
        return adds[key]

    def covering(referrers: Container[int] | None = None, uncarried_only: bool = False) -> Iterator[Covered]:
        """What each hash would cover: (referrer, where, item, whether a
        rewritten name carries the item's changes, the config), in the order
        places are made; of `referrers` (ids) only, if given; only what is
        not carried, if `uncarried_only`. Walked twice rather than held
        (25,000 workloads whose flags name a Secret each: 6.6 MiB of tuples
        at the peak), each walk asking policy.rolls_on only of what it
        gives: most references are carried, of referrers not asked for."""
        for ref in graph.references:
            if not ref.spec.consumes or referrers is not None and id(ref.referrer) not in referrers:
                continue
            target = ref.target
            if target is None:
                production = productions.making(ref, graph.index) if ref.resolution is Resolution.DANGLING else None
                item = _produced_item(production) if production is not None else None
                if item is not None:
                    yield ref.referrer, ref.path, item, False, None
                continue
            config = added(target)
            if config is None:
                continue
            item, carried = config
            # A held reference keeps the name it holds: no new name carries
            # the object's changes to it, whatever its other referrers read.
            carried = carried and id(ref) not in policy.held
            if carried and uncarried_only:
                continue
            if not policy.rolls_on(ref.referrer, target) or id(ref) in policy.held and ref.keeps_name is None:
                # A reference left as written rolls nothing (render._holds,
                # Reloader), but one whose name is a path (keepsName): held only
                # so that the name stays, it rolls as any reference to a name kept.
                continue
            yield ref.referrer, ref.path, item, carried, target
        for dep in dependencies:
            if (dep.target is None or policy.ignores(dep.target)
                    or referrers is not None and id(dep.referrer) not in referrers):
                continue
            config = added(dep.target)
            if config is not None:
                yield dep.referrer, dep.template, config[0], False, dep.target
        for reader in readers:
            if (not reader.rolls or referrers is not None and id(reader.referrer) not in referrers
                    or not policy.rolls_on(reader.referrer, reader.target)):
                continue
            config = added(reader.target)
            if config is None:
                continue
            carried = _read_name_carries(reader.target, the_plan)
            if not (carried and uncarried_only):
                yield reader.referrer, reader.path, config[0], carried, reader.target

    # A place whose every item a rewritten name carries gets no hash (below),
    # unless with --strategy=annotate; a place is one referrer's, so only
    # referrers with an item not carried need their places found (most
    # referrers, whose references are all rewritten, need none).
    uncarried = None if strategy == "annotate" else {id(each[0]) for each in covering(uncarried_only=True)}
    for referrer, where, item, carried, target in covering(uncarried):
        if not is_config_object(referrer):
            for p in places_at(referrer, where):
                p.add(item, carried, target)

    chosen: list[Place] = []
    for key in list(places):
        p = places.pop(key)  # each let go of as its Place is made
        items = p.items()
        if items and (strategy == "annotate" or not all(items.values())):
            chosen.append(p.placed(items))
    return chosen


def _annotations_at(obj: KubeObject, template: Path | None, table: ReferenceTable) -> Path:
    # A kind whose podSpecs row names podMetadata is no pod template itself,
    # wherever its PodSpec sits (`spec` or `spec/pod`): its controller copies
    # that mapping into its pods' metadata.
    metadata = pod_metadata(obj, table)
    if metadata is not None:
        return metadata
    return template + ("metadata",) if template is not None else ("metadata",)


def digest(items: list[Item]) -> str:
    return sha256_hex(go_json([list(item) for item in items]))


def _item(config: KubeObject, the_plan: Plan, productions: Productions) -> Item | None:
    # Data a controller writes (a produced object, a service-account token)
    # is not what the stream says: hashing it would promise what it cannot.
    if id(config) in productions.excluded:
        return None
    if is_service_account_token(config):
        return None
    version = the_plan.of(config)
    if version is None:
        return None
    return (config.kind, hashed_name(config, version), version.hash)


def hashed_name(config: KubeObject, version: Version) -> str:
    """The name an item is hashed under: the base name, and for a name
    kustomize suffixed with its content hash, that name without it, as
    kustomize hands its generators' output to a transformer (unsuffixed,
    annotated needsHashSuffix): a workload's hash is then the same whether
    postrender ran as kustomize's transformer or on kustomize's output."""
    name = base_name_of(config)
    if version.kustomized and not suffixed_later_by_kustomize(config) and hash_suffix(name) is not None:
        return name[:-HASH_SUFFIX_LENGTH]
    return name


def _read_name_carries(config: KubeObject, the_plan: Plan) -> bool:
    """Whether the name a program reads as written (a flag's) carries the
    config's changes to it: a name kustomize gave by the content, which is
    what the flag says (an outside tester's find: a hash over it all the
    same). A name postrender versions does not: the flag still reads the
    one written."""
    version = the_plan.of(config)
    return (version is not None and version.kustomized and not version.renamed
            and not suffixed_later_by_kustomize(config))


def _carried(config: KubeObject, the_plan: Plan) -> bool:
    # A name kustomize suffixes with the content hash carries it too.
    version = the_plan.of(config)
    return version is not None and version.name_follows_content


def _produced_item(production: Production) -> Item | None:
    content = production.content()
    if content is None:
        return None
    data = sha256_hex(go_json(to_json_value(content)))[:10]
    return (production.producer.kind, production.producer.name or "", data)
