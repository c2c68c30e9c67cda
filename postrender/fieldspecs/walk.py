"""The one walker of field-spec paths, for both data models.

The render walks composed YAML nodes, the cluster code JSON from the API
server; both meet the same tables through this module, each with a small
Accessor saying how its data is read. The specs that apply to a kind are
compiled once into a prefix tree of their paths, so one walk of a document
serves all of them: a Deployment meets some forty specs that share
`spec/template/spec/...`, and each shared step is taken once, not forty times.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:  # fieldspecs imports this module as it loads
    from . import FieldSpec, Segment

# A path segment that steps into every key of a mapping (`spec/receivers/*/apiURL/name`).
WILDCARD = "*"
# A field spec's kind when it names none: every kind (kustomize's fieldspec filter).
ANY_KIND = ""

N = TypeVar("N")
Path = tuple[str | int, ...]


class Accessor(Generic[N]):
    """How a data model is read: override every method."""

    # What stands in a list for an item left out as it was composed
    # (syntax.nodes.DROPPED_ITEM, an empty mapping): nothing is found under it.
    left_out: object = object()

    @staticmethod
    def is_leaf(node: N) -> bool:
        """A value a spec's path may end on (a scalar)."""
        raise NotImplementedError

    @staticmethod
    def items(node: N) -> list[N] | None:
        """The items of a sequence, or None when the node is not one."""
        raise NotImplementedError

    @staticmethod
    def is_mapping(node: N) -> bool:
        raise NotImplementedError

    @staticmethod
    def child(node: N, key: str) -> N | None:
        """The value under `key` in a mapping, or None."""
        raise NotImplementedError

    @staticmethod
    def pairs(node: N) -> Iterable[tuple[str, N]]:
        """(key, value) of every entry a wildcard step (`*`) enters."""
        raise NotImplementedError

    @staticmethod
    def passes(item: N, segment: Segment) -> bool:
        """Whether a list item passes a segment's filters (`[name=x]`)."""
        raise NotImplementedError

    @staticmethod
    def keys(node: N) -> Container[str]:
        """A mapping's keys, or a container holding every key `child` may
        find: a walk asking a mapping for several keys, most of them absent
        (a volume is one of a dozen types), skips the absent ones with it."""
        raise NotImplementedError


class PathTree:
    """A node of the prefix tree: the specs whose path ends here (by their
    position in the compiled list) and the steps that go on."""

    __slots__ = ("ends", "children")

    def __init__(self) -> None:
        self.ends: list[int] = []
        self.children: dict[Segment, PathTree] = {}


class Compiled:
    """The specs that apply to one (kind, group, version), in table order,
    and the prefix tree of their paths."""

    __slots__ = ("specs", "tree", "_last_keys")

    def __init__(self, specs: list[FieldSpec]) -> None:
        self.specs = tuple(specs)
        self.tree = path_tree(spec.path for spec in specs)
        self._last_keys = _last_keys(self.specs)

    def may_reach(self, text: str) -> bool:
        """Whether some spec's path may reach a leaf in a YAML document
        written `text`: False only when, for every spec, the last key its
        path names is nowhere in the text as a key could be written. A
        Service meets two annotation specs; a workload without `args` or
        `env` values needs no walk for the specs that end there.

        Without a backslash (an escape in a double-quoted scalar) the text
        of every key is in the document as written: a key is found only
        where its text is the key's whole text (see nodes.get), and an alias
        or merge key (`<<`) names a node written in the same document."""
        words = self._last_keys
        if words is None or "\\" in text:
            return True
        return any(_written(text, word) for word in words)


def _last_keys(specs: tuple[FieldSpec, ...]) -> tuple[str, ...] | None:
    """The last key each spec's path names, or None when a path names none
    (`*` only) or one a document may write other than as itself (a key
    with whitespace or a quote could be folded or escaped)."""
    words: dict[str, None] = {}
    for spec in specs:
        named = [segment.key for segment in spec.path if segment.key != WILDCARD]
        if not named or any(c.isspace() or c in "'\"" for c in named[-1]):
            return None
        words[named[-1]] = None
    return tuple(words)


def _written(text: str, word: str) -> bool:
    """Whether `word` is in `text` where a key could end: not followed by a
    letter, digit or `_` (`value` in `valueFrom:` is no key `value`). A key's
    text ends at a `:`, a quote, a space, a line break or a flow indicator."""
    at = text.find(word)
    while at >= 0:
        after = at + len(word)
        if after == len(text) or not (text[after].isalnum() or text[after] == "_"):
            return True
        at = text.find(word, at + 1)
    return False


def path_tree(paths: Iterable[tuple[Segment, ...]]) -> PathTree:
    root = PathTree()
    for position, path in enumerate(paths):
        node = root
        for segment in path:
            node = node.children.setdefault(segment, PathTree())
        node.ends.append(position)
    return root


class SpecIndex:
    """Field specs by kind, compiled on first use per (kind, group, version)."""

    def __init__(self, specs: Iterable[FieldSpec] = ()) -> None:
        self._by_kind: dict[str, list[FieldSpec]] = {}
        self._compiled: dict[tuple[str, str, str], Compiled] = {}
        # Each spec's place in the table, where specs for any kind join a kind's own.
        self._order: dict[FieldSpec, int] = {}
        # Specs built when their kind is first asked for (add_later), each with its place.
        self._later: dict[str, list[tuple[int, Callable[[], FieldSpec]]]] = {}
        self._places = 0
        for spec in specs:
            self.add(spec)

    def add(self, spec: FieldSpec, position: int | None = None) -> None:
        """`position`: the spec's place in its table, where it is added out
        of that order (a table builds a kind's specs when first asked)."""
        if position is None:
            position, self._places = self._places, self._places + 1
        self._order.setdefault(spec, position)
        self._by_kind.setdefault(spec.kind, []).append(spec)
        self._compiled.clear()

    def add_later(self, kind: str, make: Callable[[], FieldSpec]) -> None:
        """A spec for `kind` that `make` builds when the kind is first asked
        for, in its place among the others: most kinds never are (the pod
        strings under every PodSpec holder, 216 specs, were a sixth of a
        small chart's render: byname.pod_string_specs)."""
        self._later.setdefault(kind, []).append((self._places, make))
        self._places += 1

    def _settle(self, kind: str) -> None:
        for position, make in self._later.pop(kind, ()):
            self.add(make(), position)

    def for_kind(self, kind: str) -> list[FieldSpec]:
        """A kind's specs and those for every kind, in table order."""
        if self._later:
            self._settle(kind)
            self._settle(ANY_KIND)
        own, every = self._by_kind.get(kind, []), self._by_kind.get(ANY_KIND, [])
        if not every or kind == ANY_KIND:
            return own
        return sorted([*own, *every], key=self._order.__getitem__)

    def applicable(self, kind: str, group: str, version: str) -> Compiled | None:
        """The specs matching an object's kind, group and version; None when there are none."""
        key = (kind, group, version)
        compiled = self._compiled.get(key, _MISSING)
        if compiled is _MISSING:
            specs = [spec for spec in self.for_kind(kind) if spec.matches(group, version)]
            compiled = self._compiled[key] = Compiled(specs) if specs else None
        return compiled  # type: ignore[return-value]


_MISSING: Any = object()


def item_before(access: type[Accessor[N]], holder: N | None, path: Path) -> N | None:
    """The item before the one at `path` in its list, or None (the first
    item, or no list item): `holder` is the mapping that holds the list, as
    walk gives a list item's parent. A `--flag value` argument's flag."""
    index = path[-1] if path else None
    if not isinstance(index, int) or index == 0:
        return None
    items = list_items(access, holder, path)
    return items[index - 1] if items is not None and index <= len(items) else None


def list_items(access: type[Accessor[N]], holder: N | None, path: Path) -> list[N] | None:
    """The items of the list the item at `path` is in, or None (no list
    item): `holder` as item_before's. A container's arguments."""
    if not path or not isinstance(path[-1], int) or len(path) < 2 or not isinstance(path[-2], str):
        return None
    if holder is None or not access.is_mapping(holder):
        return None
    return access.items(access.child(holder, path[-2]))


def walk(tree: PathTree, root: N, access: type[Accessor[N]]) -> Iterator[tuple[list[int], N, N | None, Path]]:
    """(ends, leaf, parent, path) for every leaf some path of the tree reaches.

    `ends`: the positions of the specs ending there; `parent`: the mapping
    holding the leaf, or the filtered list item it sits in; `path`: keys and
    list indexes from the root. At a path's end a list yields its leaf items;
    elsewhere a list is stepped through (each item continues the path). For
    any one spec, its leaves come in document order.
    """
    is_leaf, items_of, is_mapping = access.is_leaf, access.items, access.is_mapping
    child_of, pairs, passes, keys_of, left_out = access.child, access.pairs, access.passes, access.keys, access.left_out
    # An explicit stack: sequences may nest as deep as --max-depth allows.
    # `arrived`: the frame reached this tree node by a step (not by stepping
    # through a list on the way), so specs ending here take its leaves.
    stack: list[tuple[Any, PathTree, Path, Any, bool]] = [(root, tree, (), None, True)]
    pop, push = stack.pop, stack.append
    while stack:
        node, here, path, parent, arrived = pop()
        if arrived and here.ends:
            if is_leaf(node):
                yield here.ends, node, parent, path
            else:
                items = items_of(node)
                if items is not None:
                    for j, item in enumerate(items):
                        if is_leaf(item):
                            yield here.ends, item, parent, path + (j,)
        if not here.children:
            continue
        if not is_mapping(node):  # (asked first: most frames are mappings)
            items = items_of(node)
            if items is not None:
                # A leaf item has nothing to step into, nor has one left out:
                # pushed, a frame and a path each for every item of a long list
                # of strings was held at once (200,000 of them: 35 MiB; 64,000
                # `env` items taken out: 13 MiB), to be popped for nothing.
                for j in range(len(items) - 1, -1, -1):
                    item = items[j]
                    if not is_leaf(item) and item is not left_out:
                        push((item, here, path + (j,), parent, False))
            continue
        frames: list[tuple[Any, PathTree, Path, Any, bool]] = []
        present = keys_of(node) if len(here.children) > 1 else None
        for segment, below in here.children.items():
            key = segment.key
            if key == WILDCARD:
                frames.extend((value, below, path + (name,), node, True) for name, value in pairs(node))
                continue
            if present is not None and key not in present:
                continue
            child = child_of(node, key)
            if child is None:
                continue
            if segment.filters:
                listed = items_of(child)
                if listed is None:
                    if passes(child, segment):
                        frames.append((child, below, path + (key,), child, True))
                else:
                    frames.extend((item, below, path + (key, j), item, True)
                                  for j, item in enumerate(listed) if passes(item, segment))
                continue
            frames.append((child, below, path + (key,), node, True))
        stack.extend(reversed(frames))
