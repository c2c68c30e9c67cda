"""A List's items, pruned to stubs as they are composed, hold where they
are and little else: past the shared offsets (16 KiB into the text) a
stub's start and end were an int object each, 32 bytes apiece for every
item (100,000 tiny ConfigMaps as one List: 3.2 MB of ends). A stub holds
its length where a node holds its end, most often one of the shared ints."""

import gc
import tracemalloc

import pytest

from postrender.inputs import decode
from postrender.options import RenderOptions
from postrender.pipeline.read.libyaml import shift_offsets
from postrender.pipeline.render import read_for
from postrender.syntax.nodes import StubMapping, StubSequence, shared_int
from postrender.syntax.prune import stub

ITEMS = 4000


def _tiny_configmaps(count: int) -> str:
    items = "".join(f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c{i}\n  data:\n    a: b\n"
                    for i in range(count))
    return "apiVersion: v1\nkind: List\nitems:\n" + items


def _held(count: int) -> int:
    options = RenderOptions()
    sources = [decode(_tiny_configmaps(count).encode(), None)]
    gc.collect()
    tracemalloc.start()
    try:
        read_as = read_for(sources, options)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    objects = read_as.stream.objects
    assert len(objects) == count
    assert all(type(obj.node) is StubMapping for obj in objects[1:])
    return held


def test_a_lists_tiny_items_hold_no_int_of_their_own_for_their_ends():
    # Held at read's end for each item past the first ITEMS (the List's text
    # included, some 70 bytes an item; what is made once cancels out).
    per_item = (_held(2 * ITEMS) - _held(ITEMS)) / ITEMS
    # 436 bytes when each stub's end was an int of its own, 408 with its
    # length, 376 with the item's position a shared int too.
    assert per_item < 392, per_item


def test_a_lists_items_positions_are_the_shared_ints():
    # The composer makes each position an int of its own past 256; below
    # 16 Ki an item holds the one shared object (shared_int).
    objects = read_for([decode(_tiny_configmaps(1200).encode(), None)], RenderOptions()).stream.objects
    assert [obj.item for obj in objects] == list(range(1200))
    assert all(obj.item is shared_int(obj.item) for obj in objects)


def test_a_stub_far_into_its_text_gives_its_place_as_the_node_it_stands_for():
    text = "x" * 40000 + "{a: {b: c}}\n"
    node = StubMapping("tag:yaml.org,2002:map", [], 40000, 40011)
    assert (node.start_mark, node.end_mark) == (40000, 40011)
    made = stub(text, node)
    assert (made.start_mark, made.end_mark) == (40000, 40011)
    assert type(made._end) is int and made._end == 11


@pytest.mark.parametrize("kind", [StubMapping, StubSequence])
def test_a_stub_moved_as_a_byte_order_mark_moves_it_keeps_its_length(kind):
    # shift_offsets moves a document's nodes one character on; a stub's end
    # is its start and its length, so both are read before either is set.
    node = kind("tag", (), 30000, 30074)
    shift_offsets(node, 1)
    assert (node.start_mark, node.end_mark) == (30001, 30075)
    node.end_mark = 30100
    assert (node.start_mark, node.end_mark) == (30001, 30100)
