"""A List whose items share nodes (anchors, aliases, merge keys) is read
item by item (read.parts._SharingItems): the items that may share a node kept
whole, the others pruned as they are composed. It must render exactly as
the same List read whole, and refuse what that refuses with its messages."""

import io
import shlex
import tracemalloc
from functools import partial

import pytest

from postrender.cli import parse, render_options
from postrender.errors import PostrenderError
from postrender.limits import Limits
from postrender.pipeline.read import compose as read_compose, kubectl as read_kubectl, parts as read_parts
from postrender.pipeline.graph.byname import pod_string_specs
from postrender.pipeline.needs import Needs
from postrender.pipeline.read import read
from postrender.pipeline.read.documents import Source
from postrender.pipeline.read.shared import ItemsShared
from postrender.pipeline.render import render
from postrender.report import Reporter
from postrender import fieldspecs
from postrender.syntax.nodes import MappingNode, node_at

TABLE = fieldspecs.load_table()

_APP = """\
- apiVersion: v1
  kind: ConfigMap
  metadata: {{name: cfg{i}}}
  data: {{a: "{i}"}}
- apiVersion: v1
  kind: Secret
  metadata: {{name: sec{i}}}
  stringData: {{k: v{i}}}
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: app{i}
  spec:
    selector: {{matchLabels: {{app: a{i}}}}}
    template:
      metadata: {{labels: {{app: a{i}}}}}
      spec:
        containers:
        - name: c
          image: nginx
          envFrom:
          - configMapRef: {{name: cfg{i}}}
        volumes:
        - name: v
          secret: {{secretName: sec{i}}}
"""

# What follows three plain apps, each sharing nodes its own way.
_SHARING = {
    "an anchor and its alias": "- apiVersion: example.com/v1\n  kind: Widget\n  metadata: {name: a}\n"
                               "  spec: &s {a: b}\n- apiVersion: example.com/v1\n  kind: Widget\n"
                               "  metadata: {name: b}\n  spec: *s\n",
    "an alias of a whole item": "- &w\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: w}\n"
                                "  data: {a: b}\n- *w\n",
    "a merge key of an earlier item's mapping":
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata: &m {name: m1, labels: {x: y}}\n  data: {a: b}\n"
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    <<: *m\n    name: m2\n  data: {a: c}\n",
    "labels aliased by a later Service": "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: s1\n"
                                         "    labels: &l {app: a0}\n  spec:\n    selector: *l\n"
                                         "- apiVersion: v1\n  kind: Service\n  metadata: {name: s2}\n"
                                         "  spec:\n    selector: *l\n",
    "an alias as a key": "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: k1}\n  data: {&k a: b}\n"
                         "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: k2}\n  data: {*k : c}\n",
    "a key written twice in an item": "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: t1}\n"
                                      "  data: {a: &v b, a: c}\n- apiVersion: v1\n  kind: ConfigMap\n"
                                      "  metadata: {name: t2}\n  data: {a: *v}\n",
    "an alias bomb in an item": "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: bomb}\n  data:\n"
                                "    a: &a [x, x, x, x, x, x, x, x, x, x]\n    b: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
                                "    c: &c [*b, *b, *b, *b, *b, *b, *b, *b]\n    d: [*c, *c, *c, *c, *c, *c, *c]\n",
    "a reference shared by two Deployments":
        "- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: r1}\n  spec:\n    template:\n"
        "      spec:\n        containers:\n        - name: c\n          image: i\n          envFrom:\n"
        "          - configMapRef: &r {name: cfg0}\n- apiVersion: apps/v1\n  kind: Deployment\n"
        "  metadata: {name: r2}\n  spec:\n    template:\n      spec:\n        containers:\n"
        "        - name: c\n          image: i\n          envFrom:\n          - configMapRef: *r\n",
    "the items themselves aliased": None,
}


def _list(sharing: str) -> str:
    apps = "".join(_APP.format(i=i) for i in range(3))
    if _SHARING[sharing] is None:
        return "apiVersion: v1\nkind: List\nitems: &all\n" + apps + "extra: *all\n"
    return "apiVersion: v1\nkind: List\nitems:\n" + apps + _SHARING[sharing]


def _render(text: str, argv: str, item_by_item: bool, monkeypatch) -> tuple[str, list[str], list[str]]:
    args = parse([*shlex.split(argv), "-v"])
    options = render_options(args)
    reporter = Reporter(verbose=True, stderr=io.StringIO(), keep_infos=True)
    with monkeypatch.context() as patch:
        if not item_by_item:
            patch.setattr(read_compose, "_takes_sharing_items", lambda doc: False)
        try:
            output = render([Source("input.yaml", text)], options, reporter).output
        except PostrenderError as error:
            output = f"error: {error}"
    return output, [w.message for w in reporter.warnings], reporter.infos


@pytest.mark.parametrize("argv", ["", "--strategy annotate", "--keep-previous=argocd", "--keep-original=all"])
@pytest.mark.parametrize("sharing", _SHARING, ids=list(_SHARING))
def test_a_list_sharing_nodes_renders_alike_item_by_item_and_whole(sharing, argv, monkeypatch):
    text = _list(sharing)
    assert _render(text, argv, True, monkeypatch) == _render(text, argv, False, monkeypatch)


def _read(text: str, limits: Limits | None = None) -> object:
    return read([Source("list.yaml", text)], limits or Limits(), Needs(TABLE, pod_string_specs(TABLE)))


def test_only_the_items_that_may_share_nodes_are_held_whole():
    # The bench's apps as one List with one anchor and its alias held the
    # whole List (288 MiB for 5,000 apps): now only the two Widgets are.
    stream = _read(_list("an anchor and its alias"))
    doc = stream.documents[0]
    assert type(doc.shared) is ItemsShared
    assert doc.shared.whole == {9, 10}
    widgets = [obj for obj in stream.objects if obj.kind == "Widget"]
    assert node_at(widgets[0].node, ("spec",)) is node_at(widgets[1].node, ("spec",))
    # A Deployment's selector no stage reads: pruned as its item was composed.
    deployments = [obj for obj in stream.objects if obj.kind == "Deployment"]
    assert deployments and all(node_at(obj.node, ("spec", "selector")) is None for obj in deployments)


@pytest.mark.parametrize("sharing", ["an alias bomb in an item", "a key written twice in an item",
                                     "the items themselves aliased"])
def test_what_a_list_read_item_by_item_cannot_hold_reads_it_whole(sharing):
    # Refused, or every item shared: read whole, so that each message and
    # each shared node is the whole read's.
    try:
        # (Its bomb of 4,480 nodes is refused past 1,000.)
        stream = _read(_list(sharing), Limits(max_expanded_nodes=1000))
    except PostrenderError as error:  # (the message the whole read's: the render test above)
        assert sharing != "the items themselves aliased", error
        return
    doc = stream.documents[0]
    assert type(doc.shared) is not ItemsShared
    assert isinstance(doc.root, MappingNode)


@pytest.mark.parametrize("items", [
    "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: one}\n  data: &a {k: v}\n"
    "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: two}\n  data: &a {k: w}\n"
    "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: three}\n  data: *a\n",
    "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: one}\n  data:\n    x: &a v\n    y: &a w\n    z: *a\n",
], ids=["across items", "in one item"])
@pytest.mark.parametrize("kind", ["List", "ConfigMapList"])
def test_an_anchor_defined_twice_is_read_as_go_yaml_reads_it(items, kind, monkeypatch):
    # go-yaml v2 reads an alias as the last node of its anchor's name, and
    # so does read (its anchors renamed, composed whole after libyaml's
    # error): the List is written as it came, not refused (review65c: the
    # item-by-item read's fallback composed the text as written once more).
    text = f"apiVersion: v1\nkind: {kind}\nitems:\n" + items
    output, warnings, _ = _render(text, "", True, monkeypatch)
    assert output == text and warnings == []



def test_an_anchor_no_alias_names_defined_again_is_still_refused_by_libyaml(monkeypatch):
    # An item's own anchor is let go of in libyaml's table only where the
    # text defines its name once (_SharingItems._let_go_of_anchors): let go
    # of here, the second `&a` would compose where libyaml refuses it, and
    # the List would not take the path every anchor defined twice takes
    # (composed whole, its anchors renamed: masks._anchors_renamed). (An
    # alias, `*b`, has the List read item by item: read.compose.)
    from postrender.pipeline.read import libyaml as read_libyaml

    renamed = []
    real = read_libyaml._anchors_renamed
    monkeypatch.setattr(read_libyaml, "_anchors_renamed", lambda *args: renamed.append(1) or real(*args))
    text = ("apiVersion: v1\nkind: List\nitems:\n"
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: one, labels: &a {x: p}}\n  data: {k: v}\n"
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: two, labels: &a {x: q}}\n  data: {k: w}\n"
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: three, labels: &b {x: r}}\n  data: *b\n")
    output, warnings, _ = _render(text, "", True, monkeypatch)
    assert output == text and warnings == []
    assert renamed == [1]

# Items whose anchors and aliases are all their own (read.parts._SharingItems._take_own):
# checked, then pruned as a document sharing nodes is, not held whole.
_OWN_APP = """\
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: own{i}
    labels: &l{i} {{app: a{i}, tier: web}}
  spec:
    selector: {{matchLabels: *l{i}}}
    template:
      metadata: {{labels: *l{i}}}
      spec:
        containers:
        - &c{i}
          name: c
          image: nginx
          envFrom:
          - configMapRef: {{name: cfg{i}}}
        - <<: *c{i}
          name: d
        volumes:
        - name: v
          secret: &s{i} {{secretName: sec{i}}}
        - name: w
          secret: *s{i}
"""

_NAME_ALIASED_LATER = """\
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: na}
  spec:
    template:
      spec:
        containers:
        - name: c
          image: i
          envFrom:
          - configMapRef: {name: &n cfg0}
          - configMapRef: {name: *n}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: nb}
  spec:
    template:
      spec:
        containers:
        - name: c
          image: i
          env: [{name: X, value: *n}]
"""

_OWN = {
    "anchors of its own in each item": "",
    "an item's anchor aliased by a later item": "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n"
                                                "    name: late\n    labels: *l1\n  data: {a: b}\n",
    "a root key after the items aliasing an item's anchor": None,
    "a reference and an image sharing one scalar in an item":
        "- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: refused}\n  spec:\n    template:\n"
        "      spec:\n        containers:\n        - name: a\n          image: &n cfg0\n          envFrom:\n"
        "          - configMapRef: {name: *n}\n",
    "a pod template's metadata aliasing the Deployment's":
        "- apiVersion: apps/v1\n  kind: Deployment\n  metadata: &md\n    name: tm\n    labels: {app: tm}\n"
        "  spec:\n    template:\n      metadata: *md\n      spec:\n        containers:\n        - name: a\n"
        "          image: i\n          envFrom:\n          - configMapRef: {name: cfg0}\n",
    "an alias used as a key within an item": "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: k1}\n"
                                             "  data: {&k a: b, *k : c}\n",
    "a key written twice within an item": "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: t1}\n"
                                          "  data: {a: &v b, a: c, b: *v}\n",
    # What kubectl cannot read, where only the item's own check (_take_own's
    # _check_nodes) sees it: the walk of the List so read meets it pruned.
    "an anchored .inf aliased within an item": "- apiVersion: example.com/v1\n  kind: Widget\n"
                                               "  metadata: {name: inf}\n  spec: {a: &x .inf, b: *x}\n",
    "a merge key naming a plain value within an item": "- apiVersion: example.com/v1\n  kind: Widget\n"
                                                       "  metadata: {name: mk}\n  spec: {a: &x 1, q: {<<: *x}}\n",
    # Anchors no alias names share no node: their items are read as any
    # other's, edits made ahead (_SharingItems._take); one defined again is
    # refused by libyaml, and the List composed whole, renamed.
    "an anchor no alias names on a ConfigMap's labels": "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n"
                                                        "    name: lone\n    labels: &lone {app: x}\n"
                                                        "  data: {a: b}\n",
    "an anchor no alias names on a key": "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: key}\n"
                                         "  data: {&k a: b}\n",
    "an anchor no alias names defined again": "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: d1}\n"
                                              "  data: {a: &l0 b}\n",
    # A reference's name anchored in one item, aliased as an env value in a
    # later one: renamed, it would rename that value too (refused: `apart`).
    "a reference's name aliased by a later item's env value": _NAME_ALIASED_LATER,
}


def _own_list(shape: str) -> str:
    apps = "".join(_APP.format(i=i) + _OWN_APP.format(i=i) for i in range(3))
    if _OWN[shape] is None:
        return "apiVersion: v1\nkind: List\nitems:\n" + apps + "extra: *l2\n"
    return "apiVersion: v1\nkind: List\nitems:\n" + apps + _OWN[shape]


@pytest.mark.parametrize("argv", ["", "--strategy annotate", "--keep-previous=argocd", "--keep-original=all"])
@pytest.mark.parametrize("shape", _OWN, ids=list(_OWN))
def test_a_list_of_items_sharing_nodes_within_themselves_renders_alike(shape, argv, monkeypatch):
    text = _own_list(shape)
    assert _render(text, argv, True, monkeypatch) == _render(text, argv, False, monkeypatch)


@pytest.mark.parametrize("shape", list(_OWN)[:3])
def test_an_alias_into_an_item_pruned_is_caught_after_the_text_screen(shape, monkeypatch):
    # The text screen (_aliased_later) says no: the walk of the List so read
    # (`apart`) still finds an alias into an item pruned, and it is read whole.
    text = _own_list(shape)
    whole = _render(text, "--strategy annotate", False, monkeypatch)
    monkeypatch.setattr(read_parts._SharingItems, "_aliased_later", lambda self, span, end: False)
    assert _render(text, "--strategy annotate", True, monkeypatch) == whole


def test_an_alias_into_an_item_pruned_that_the_text_screen_misses_is_refused_by_apart(monkeypatch):
    # With the screen off, item `na` is pruned before `nb` aliases its
    # reference's name: only `apart` sees that node outside it, and the List
    # is read whole and refused, not `cfg0` renamed under `nb`'s env too.
    text = _own_list("a reference's name aliased by a later item's env value")
    whole = _render(text, "", False, monkeypatch)
    assert whole[0].startswith("error: ") and "must edit a node that a YAML alias" in whole[0]
    monkeypatch.setattr(read_parts._SharingItems, "_aliased_later", lambda self, span, end: False)
    answers = []
    apart = read_parts._SharingItems.apart
    monkeypatch.setattr(read_parts._SharingItems, "apart", lambda self, root: answers.append(apart(self, root))
                        or answers[-1])
    assert _render(text, "", True, monkeypatch) == whole
    assert False in answers


def test_items_whose_anchors_are_their_own_are_pruned_not_held_whole():
    stream = _read(_own_list("anchors of its own in each item"))
    doc = stream.documents[0]
    assert type(doc.shared) is ItemsShared and doc.shared.whole == frozenset()
    deployments = [obj for obj in stream.objects if obj.kind == "Deployment" and obj.name.startswith("own")]
    assert len(deployments) == 3
    # Its selector no stage reads: pruned; the name it keeps for messages.
    assert all(node_at(obj.node, ("spec", "selector")) is None for obj in deployments)
    assert sorted(name for _, name in doc.shared.named.values()) == ["own0", "own1", "own2"]
    # The Secret named twice through an alias, its paths counted while whole.
    assert sorted(doc.shared.paths.values()) == [2, 2, 2, 2, 2, 2]


def test_an_alias_bomb_spread_over_items_is_refused_as_the_whole_list_is(monkeypatch):
    # Each item's aliases expand by 948 nodes, under the limit; three, by
    # 2,844: refused at a limit of 2,843, as read whole, and read at 2,844.
    bomb = "    a: &a [x, x, x, x, x, x, x, x]\n    b: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n" \
           "    c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
    items = "".join(f"- apiVersion: example.com/v1\n  kind: Widget\n  metadata: {{name: w{i}}}\n  spec:\n"
                    + bomb.replace("&a", f"&a{i}").replace("*a", f"*a{i}").replace("&b", f"&b{i}")
                    .replace("*b", f"*b{i}") for i in range(3))
    text = "apiVersion: v1\nkind: List\nitems:\n" + items

    refusal = partial(_refusal, monkeypatch, text)

    for limit in (900, 2000, 2843):
        assert "alias bomb" in refusal(True, limit) and refusal(True, limit) == refusal(False, limit)
    assert type(_read(text, Limits(max_expanded_nodes=2844)).documents[0].shared) is ItemsShared


def _refusal(monkeypatch, text: str, item_by_item: bool, limit: int) -> str:
    """The message refusing `text` at `limit` expanded nodes, read item by
    item or (item_by_item False) whole."""
    with monkeypatch.context() as patch:
        if not item_by_item:
            patch.setattr(read_compose, "_takes_sharing_items", lambda doc: False)
        with pytest.raises(PostrenderError) as refused:
            _read(text, Limits(max_expanded_nodes=limit))
    return str(refused.value)


_BOMB_ACROSS = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
    f"- apiVersion: example.com/v1\n  kind: Widget\n  metadata: {{name: c{i}}}\n  spec:\n"
    f"    a: &a{i} [x, x, x]\n    b: [*a{i}]\n" for i in range(2)
) + "- apiVersion: example.com/v1\n  kind: Widget\n  metadata: {name: z}\n  spec:\n    q: *a0\n"


def test_an_alias_bomb_shared_by_items_pruned_and_held_whole_is_refused_at_the_whole_lists_limit(monkeypatch):
    # c1 is pruned (its aliases its own), c0 held whole (z aliases it): their
    # aliases add 4 + 4 + 4 = 12 nodes, the List's walk counting c1's too
    # (`expanded`): refused at 11, as read whole, and read at 12.
    text = _BOMB_ACROSS

    refusal = partial(_refusal, monkeypatch, text)

    for limit in (7, 8, 11):
        assert "more than %d nodes" % limit in refusal(True, limit) and refusal(True, limit) == refusal(False, limit)
    shared = _read(text, Limits(max_expanded_nodes=12)).documents[0].shared
    assert type(shared) is ItemsShared and shared.whole == {0, 2}


def test_an_edit_into_a_node_shared_within_an_item_composed_again_is_refused(monkeypatch):
    # The Deployment's annotations, its pod template's too through an alias,
    # take a config hash (cfg0 keeps its name). Its item is pruned, not kept
    # for edits (the default strategy): the rewrite composes it again, and
    # must know that graph's shared nodes (DocumentEdits._composed), or it
    # would add the hash to the Deployment's own annotations silently.
    text = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: cfg0
    annotations: {postrender.io/versioned: "false"}
  data: {a: "1"}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: app, annotations: &an {team: web}}
  spec:
    template:
      metadata: {annotations: *an}
      spec:
        containers:
        - name: c
          image: i
          envFrom: [{configMapRef: {name: cfg0}}]
"""
    shared = _read(text).documents[0].shared
    assert type(shared) is ItemsShared and 1 not in shared.whole
    output = _render(text, "", True, monkeypatch)
    assert output == _render(text, "", False, monkeypatch)
    assert output[0].startswith("error: ") and "must edit a node that a YAML alias" in output[0]


def test_an_alias_bomb_counted_in_part_already_names_the_users_limit(monkeypatch):
    # The List's walk given what items pruned expanded already refuses past
    # what is left of the limit, but names the limit itself, were the
    # message ever shown (read.kubectl._expansion).
    text = _BOMB_ACROSS
    monkeypatch.setattr(read_compose, "_takes_sharing_items", lambda doc: False)
    doc = _read(text, Limits(max_expanded_nodes=12)).documents[0]
    assert read_kubectl._expansion(doc, doc.root, 12) == 12
    with pytest.raises(PostrenderError, match="more than 20 nodes"):
        read_kubectl._expansion(doc, doc.root, 20, expanded=9)


def test_an_item_whose_anchors_no_alias_names_is_pruned_as_any_other(monkeypatch):
    # An anchor on a ConfigMap's labels shares no node: its item's edits are
    # made ahead and it is pruned to a stub, as without the anchor (a List of
    # 4,000 small apps: 60,000 scalars held whole otherwise).
    app = _APP.format(i=0).replace("{name: cfg0}", "{name: cfg0, labels: &cl {a: b}}", 1)
    text = "apiVersion: v1\nkind: List\nitems:\n" + app + _OWN_APP.format(i=0)
    kept = []
    finish = read_parts._SharingItems.finish
    monkeypatch.setattr(read_parts._SharingItems, "finish", lambda self, root, loader, plain: kept.extend(
        type(node).__name__ for node in loader.items.value) or finish(self, root, loader, plain))
    assert _render(text, "", True, monkeypatch) == _render(text, "", False, monkeypatch)
    assert kept[0] == "StubMapping"  # the ConfigMap


def _traced_per_item(text: str, parts: type, monkeypatch, first: int, last: int) -> float:
    """The memory traced as a List is read by `parts`, from item `first` taken to item `last`, per item."""
    at = {}
    take = parts.take

    def measured(self, items, index):
        take(self, items, index)
        if index in (first, last) and self.__class__ is parts:
            at[index] = tracemalloc.get_traced_memory()[0]

    with monkeypatch.context() as patch:
        patch.setattr(parts, "take", measured)
        tracemalloc.start()
        try:
            _read(text)
        finally:
            tracemalloc.stop()
    return (at[last] - at[first]) / (last - first)


# (Its braces doubled: the templates are formatted.)
_ENV = "".join(f"          - {{{{name: E{j}, value: v{j}}}}}\n" for j in range(30))
_ANCHORED_CONTAINER = """\
- apiVersion: apps/v1
  kind: Deployment
  metadata: {{name: app{i}, labels: &l{i} {{app: a{i}}}}}
  spec:
    selector: {{matchLabels: *l{i}}}
    template:
      spec:
        containers:
        - &c{i}
          name: c
          image: nginx
          env:
""" + _ENV + """\
        - <<: *c{i}
          name: d
"""
# The same objects, each alias written out.
_WRITTEN_OUT = _ANCHORED_CONTAINER.replace("&l{i} ", "").replace("*l{i}", "{{app: a{i}}}") \
    .replace("- &c{i}\n", "- name: c\n").replace("          name: c\n          image", "          image", 1) \
    .replace("- <<: *c{i}\n", "- image: nginx\n          env:\n" + _ENV)


def test_an_items_own_anchors_are_let_go_of_as_the_list_is_composed(monkeypatch):
    # libyaml's composer holds every anchored node to the List's end: each
    # item's anchored container, though the item was pruned, held the List
    # as large as held whole. Let go of once the item is read
    # (_SharingItems._let_go_of_anchors), an item costs about what the same
    # item written without anchors does (some 40 KB against 15 here).
    anchored = "apiVersion: v1\nkind: List\nitems:\n" + "".join(_ANCHORED_CONTAINER.format(i=i) for i in range(120))
    written_out = "apiVersion: v1\nkind: List\nitems:\n" + "".join(_WRITTEN_OUT.format(i=i) for i in range(120))
    assert "*" not in written_out and "<<" not in written_out
    plain = _traced_per_item(written_out, read_parts._Items, monkeypatch, 20, 110)
    shared = _traced_per_item(anchored, read_parts._SharingItems, monkeypatch, 20, 110)
    assert shared < 1.6 * plain, (shared, plain)
