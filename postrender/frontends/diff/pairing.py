"""Pair objects across the two sides when one states no namespace and the other does.

An object without `metadata.namespace` is in the implicit namespace, which
the deployer picks; `helm template` without `-n` writes none, and a chart
upgrade that adds `namespace: {{ .Release.Namespace }}` writes `default`
(or whatever -n said). Matched by exact namespace, every such object would
be removed on one side and added on the other: its workloads vanish from
the report and a CI gate passes a change that rolls them. So, as the render
pairs a reference across the implicit namespace and an explicit one
(objects.across_namespaces), an object left unmatched on one side in the
implicit namespace pairs with the one object of its kind and name left
unmatched on the other side in an explicit namespace, with a warning to
pass --namespace. Where several explicit namespaces could pair with it,
diff does not guess: the objects stay unpaired and the report says so.

OLD is moved into NEW's namespaces, so the report names objects as NEW does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TypeVar

from ...pipeline.index.objects import IMPLICIT, ObjectKey
from .side import ConfigId, Referrer, Shape, Side, token

Id = TypeVar("Id", ConfigId, ObjectKey)

MAX_LISTED = 10
# A config's token in a template's references (side.token).
_TOKEN = re.compile(r"<[^<>]*>")
OLD, NEW = "OLD", "NEW"


@dataclass
class Pairing:
    side: Side  # OLD, moved into NEW's namespaces where pairs were found
    warnings: list[str]
    # Objects that could pair with more than one: diff cannot say whether they roll.
    unpaired: list[str]


def pair(old: Side, new: Side) -> Pairing:
    # Configs by kind and base name, workloads (and other referrers) by group, kind and name.
    config_moves, config_paired, config_unpaired = _moves(
        old.configs.keys(), new.configs.keys(), lambda c: (c.kind, c.name), lambda c: f"{c.kind}/{c.name}")
    regrouped = _group_moves(old.referrers.keys(), new.referrers.keys())
    moved_keys, key_paired, key_unpaired = _moves(
        [regrouped.get(k, k) for k in old.referrers], new.referrers.keys(),
        lambda k: (_stored_as(k).group, k.kind, k.name),
        lambda k: f"{k.kind}/{k.name}")
    key_moves = {k: moved_keys.get(g, g) for k, g in ((k, regrouped.get(k, k)) for k in old.referrers)
                 if moved_keys.get(g, g) != k}

    # The report says OLD and NEW, not the paths: they differ from one CI run to the next.
    warnings: list[str] = []
    paired: dict[tuple[str, str], list[str]] = {}
    for (implicit_side, namespace), names in [*config_paired, *key_paired]:
        paired.setdefault((implicit_side, namespace), []).extend(names)
    for (implicit_side, namespace), names in sorted(paired.items()):
        warnings.append(
            f"{implicit_side} gives no namespace to {_listed(sorted(names))}, which {_other(implicit_side)} puts "
            f"in namespace {namespace}: compared as the same objects, on the assumption that {implicit_side} "
            f"deploys to {namespace}; pass --namespace to be exact")
    unpaired: list[str] = []
    for implicit_side, name, namespaces in sorted(config_unpaired + key_unpaired):
        unpaired.append(name)
        warnings.append(
            f"{implicit_side} gives no namespace to {name}, which {_other(implicit_side)} has in namespaces "
            f"{', '.join(namespaces)}: not compared, since it could be either, so whether it rolls is unknown; "
            "pass --namespace to compare it")
    if not config_moves and not key_moves:
        return Pairing(old, warnings, unpaired)
    return Pairing(_moved(old, config_moves, key_moves), warnings, unpaired)


# Kinds the API server serves in more than one group as one stored object,
# (group, kind) -> the group it is stored in: a manifest moved from a legacy
# group (extensions/v1beta1, gone in Kubernetes 1.16 and 1.22) to its
# successor updates the same object, as one moved to another version of
# its group does (batch/v1beta1 -> batch/v1: a key holds no version).
SAME_OBJECT_GROUPS: dict[tuple[str, str], str] = {
    ("extensions", "Deployment"): "apps",
    ("extensions", "DaemonSet"): "apps",
    ("extensions", "ReplicaSet"): "apps",
    ("extensions", "Ingress"): "networking.k8s.io",
    ("extensions", "NetworkPolicy"): "networking.k8s.io",
    ("extensions", "PodSecurityPolicy"): "policy",
    ("events.k8s.io", "Event"): "",
}


def _stored_as(key: ObjectKey) -> ObjectKey:
    return ObjectKey(SAME_OBJECT_GROUPS.get((key.group, key.kind), key.group), key.kind, key.namespace, key.name)


def _group_moves(old_keys: Iterable[ObjectKey], new_keys: Iterable[ObjectKey]) -> dict[ObjectKey, ObjectKey]:
    """OLD key -> NEW's, where the two are one object in two groups
    (SAME_OBJECT_GROUPS) and neither side has it in the other's group."""
    old_set, new_set = set(old_keys), set(new_keys)
    left: dict[ObjectKey, list[list[ObjectKey]]] = {}
    for side, keys in ((0, old_set - new_set), (1, new_set - old_set)):
        for key in keys:
            left.setdefault(_stored_as(key), [[], []])[side].append(key)
    return {olds[0]: news[0] for olds, news in left.values() if len(olds) == 1 and len(news) == 1}


def _moves(old_ids: Iterable[Id], new_ids: Iterable[Id], identity: Callable[[Id], tuple],
           describe: Callable[[Id], str]):
    """(OLD id -> its id in NEW's namespaces, paired names by (implicit side,
    namespace), unpaired (implicit side, name, candidate namespaces)).
    An id (ConfigId, ObjectKey) has a `namespace`; `identity` is the rest."""
    old_by = {(identity(i), i.namespace): i for i in old_ids}
    new_by = {(identity(i), i.namespace): i for i in new_ids}
    old_ns: dict[tuple, set[str]] = {}
    new_ns: dict[tuple, set[str]] = {}
    for ident, namespace in old_by:
        old_ns.setdefault(ident, set()).add(namespace)
    for ident, namespace in new_by:
        new_ns.setdefault(ident, set()).add(namespace)
    moves: dict[Id, Id] = {}
    paired: list[tuple[tuple[str, str], list[str]]] = []
    unpaired: list[tuple[str, str, list[str]]] = []
    for ident in sorted(old_ns.keys() & new_ns.keys()):
        only_old = old_ns[ident] - new_ns[ident]
        only_new = new_ns[ident] - old_ns[ident]
        if IMPLICIT in only_old and only_new:
            implicit_side, candidates = OLD, only_new
        elif IMPLICIT in only_new and only_old:
            implicit_side, candidates = NEW, only_old
        else:
            continue  # matched exactly, or no implicit namespace left over to pair
        name = describe(new_by[(ident, next(iter(new_ns[ident])))])
        if len(candidates) > 1:
            unpaired.append((implicit_side, name, sorted(candidates)))
            continue
        (explicit,) = candidates
        if implicit_side == OLD:
            moves[old_by[(ident, IMPLICIT)]] = new_by[(ident, explicit)]
        else:
            moves[old_by[(ident, explicit)]] = new_by[(ident, IMPLICIT)]
        paired.append(((implicit_side, explicit), [name]))
    return moves, paired, unpaired


def _other(side: str) -> str:
    return NEW if side == OLD else OLD


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:MAX_LISTED])
    return shown + (f" and {len(names) - MAX_LISTED} more" if len(names) > MAX_LISTED else "")


def strings_mapped(value: object, change: Callable[[str], str]) -> object:
    """`value` (JSON-like) with `change` applied to each string in it, keys
    left as they are. Walked with a stack of its own, not by recursion: a
    template may nest as deep as --max-depth (1,000 levels)."""
    if isinstance(value, str):
        return change(value)
    if not isinstance(value, (dict, list)):
        return value
    top: dict | list = {} if isinstance(value, dict) else []
    # Each entry: a container to read and the copy its items go into.
    stack: list[tuple[dict | list, dict | list]] = [(value, top)]
    while stack:
        source, copy = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            if isinstance(item, str):
                item = change(item)
            elif isinstance(item, (dict, list)):
                inner: dict | list = {} if isinstance(item, dict) else []
                stack.append((item, inner))
                item = inner
            if isinstance(copy, dict):
                copy[key] = item
            else:
                copy.append(item)
    return top


def _moved(old: Side, config_moves: dict, key_moves: dict) -> Side:
    def cid(c: ConfigId) -> ConfigId:
        return config_moves.get(c, c)

    # A template's references are tokens naming the config with its namespace
    # (side._token): moved too, or the template would differ by the token alone.
    tokens = {token(before): token(after) for before, after in config_moves.items()}
    moved_tokens = token_mover(tokens)

    def value(v: object) -> object:
        return strings_mapped(v, moved_tokens)

    def shape(s: Shape | None) -> Shape | None:
        return s if s is None or not tokens else replace(s, normalized=value(s.normalized))

    configs = {cid(c): replace(config, id=cid(c)) for c, config in old.configs.items()}
    versions = {}
    for (kind, namespace, name), base in old.versions.items():
        versions[(kind, cid(ConfigId(kind, namespace, base)).namespace, name)] = base
    referrers: dict[ObjectKey, Referrer] = {}
    for key, referrer in old.referrers.items():
        moved_key = key_moves.get(key, key)
        referrers[moved_key] = replace(
            referrer,
            key=moved_key,
            templates={path: shape(s) for path, s in referrer.templates.items()},
            whole=shape(referrer.whole),
            links=[replace(link, config=cid(link.config)) for link in referrer.links],
            hashed={cid(c) for c in referrer.hashed},
            recorded={cid(c) for c in referrer.recorded},
        )
    stored = {(kind, cid(config.config).namespace, name): replace(config, config=cid(config.config))
              for (kind, _, name), config in old.stored.items()}
    return replace(old, configs=configs, versions=versions, referrers=referrers, stored=stored)


def token_mover(tokens: dict[str, str]) -> Callable[[str], str]:
    """A string with each old token replaced by its new one (config tokens,
    side.token; one move per kind and name, so no new token is another's
    old one).

    One pass over the string, not one per moved config: thousands of apps
    moved across the implicit namespace took minutes. The same as each
    token replaced in turn where tokens cannot overlap or be made by a
    replacement, that is where no name or namespace, old or new, holds a
    `<` or `>`; one that does, which the API server refuses, takes the loop."""
    if not all(_TOKEN.fullmatch(before) and _TOKEN.fullmatch(after) for before, after in tokens.items()):
        def each_in_turn(text: str) -> str:
            for before, after in tokens.items():
                if before in text:
                    text = text.replace(before, after)
            return text
        return each_in_turn

    def moved(found: re.Match) -> str:
        return tokens.get(found[0], found[0])

    def in_one_pass(text: str) -> str:
        return _TOKEN.sub(moved, text) if "<" in text else text
    return in_one_pass
