"""What read asks of the pruner (pipeline/needs.py): the Pruner, Folder and StringTaker interfaces.

read keeps every document to the end, and most of a composed document is
never read again: the pruner drops it, told of each document's objects, or
of a List's items and a large document's folded data as they are composed.
Protocols only, so that read does not import the stage that implements them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from ...syntax.nodes import Node, Reach, SequenceNode, StringItems

if TYPE_CHECKING:
    from .documents import Document, KubeObject


class Pruner(Protocol):
    """Drops from a document what no later stage reads, once its objects are
    known (pipeline/needs.py): read keeps every document until the end, and
    most of a composed document is never read again."""

    # Whether it prunes at all: only then is `item` given a List's items as
    # they are composed.
    prunes: bool

    def __call__(self, doc: Document, objects: list[KubeObject], walked: bool = False) -> None:
        """Prunes `doc`, whose objects are `objects`; `walked`: each was given to `item`."""

    def item(self, obj: KubeObject, items: SequenceNode, whole: bool = False) -> None:
        """Reads and prunes a List's item, `items`' item obj.item, as soon as
        it is composed; `whole`: only reads it (it may share nodes: _SharingItems)."""

    def shared_item(self, obj: KubeObject, items: SequenceNode, shared: frozenset[int],
                    merges: bool) -> tuple[frozenset[int], dict[int, int]]:
        """Reads and prunes a List's item whose nodes aliases share within it
        only (`shared`, their ids; `merges`: it may hold a merge key), as a
        document sharing nodes is once checked: the ids of the shared nodes
        it still holds, and the paths to each the walk found (_SharingItems)."""

    def forget(self, objects: list[KubeObject]) -> None:
        """Forgets objects given to `item` that read will not keep."""

    def reach(self, kind: str, api_version: str, item: bool = False) -> Reach | None:
        """Where a stage may read in an object of this kind (DroppingComposer):
        what is off those paths may be dropped as its document is composed;
        None: none of it. `item`: the object is a List's item."""

    def folds_ahead(self, field: str, api_version: str, item: bool, kind_after: Callable[[], str | None]) -> bool:
        """Whether an object's `field` written before its kind may be folded
        as composed, the kind not known yet: a config's data. `kind_after`:
        what the text says the kind will be, if it says (asked only of a
        field some config kind folds)."""

    def string_taker(self) -> StringTaker:
        """What takes a large workload's plain env items out as they are
        composed (graph/references.TakenStrings): its `root` is set once read
        keeps the document."""

    def folder(self, kind: str | None) -> Folder:
        """What takes the entries of the mappings a reach marks Fold, as the
        document is composed; `kind` None: before the kind is known (it is
        told, `settle`)."""


class Folder(Protocol):
    """A Pruner's folder, for one document (pipeline/index/folding.py)."""

    def take(self, name: str, key: Node, value: Node) -> None:
        """An entry of the mapping `name` (a Fold's), complete, taken out of it."""

    def settle(self, kind: str) -> None:
        """The object's kind, once known, of a folder made without it."""

    def finish(self, root: Node | None) -> bool:
        """Whether the document composed (`root`) may be read as it is: else
        it is composed again whole."""


class StringTaker(Protocol):
    """A Pruner's taker of the env items a reach marks StringItems, for one
    document (graph/references.TakenStrings, which the walk reads)."""

    root: Node | None  # the document's, once read keeps it

    def take(self, items: SequenceNode, at: int, mark: StringItems) -> bool:
        """Item `at` of `items`, complete: whether it was taken out (DROPPED_ITEM)."""
