"""Documents that share nodes (anchors and aliases) or hold merge keys are
pruned once read's whole-graph checks are done (pipeline/needs.py), as every
other document is: a render of them must be the render of the whole ones,
byte for byte and message for message, refusals included.

What the rewrite asks of a shared node after read is kept as facts
(read.shared.KeptShared): which nodes still held are shared, and how many paths
led in the whole graph to each scalar the walk found (rewrite._check_shared);
a graph composed again for edits knows its own shared nodes
(rewrite.DocumentEdits._shared). The cases below each fail if one of these
is taken from the pruned tree instead (checked by breaking each on purpose).
A List that shares nodes is not pruned (its graph peaks as it is read): its
shapes here hold that its render stays as it was.
"""

import pytest

from postrender import fieldspecs
from postrender.limits import Limits
from postrender.pipeline.graph.byname import pod_string_specs
from postrender.pipeline.needs import Needs
from postrender.pipeline.read import read
from postrender.pipeline.read.documents import Source
from postrender.pipeline.read.shared import KeptShared
from postrender.syntax.nodes import node_at, unique_nodes
from postrender.syntax.prune import prune

from test_pruning import _render  # the render pruned as read, or of the documents read whole

CONFIGS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg}
data: {k: v}
---
apiVersion: v1
kind: Secret
metadata: {name: sec}
stringData: {k: v}
---
"""


def _deployment(spec: str, metadata: str = "  name: app\n") -> str:
    return CONFIGS + "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n" + metadata + spec


def _user(source: str) -> str:
    """A Deployment taking a config's keys as its env (`source`: its envFrom item)."""
    return ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: user}\nspec:\n"
            "  selector: {matchLabels: {app: u}}\n  template:\n    metadata: {labels: {app: u}}\n    spec:\n"
            f"      containers:\n      - {{name: c, image: nginx, envFrom: [{{{source}}}]}}\n")


SHAPES_ANNOTATIONS = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\n  annotations: &a {team: x}\nspec:\n"
    "  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a}, annotations: *a}\n"
    "    spec:\n      containers:\n      - name: c\n        image: nginx\n"
    "        envFrom: [{configMapRef: {name: cfg}}]\n")

SHAPES = {
    # Charts' own idiom: the labels once, aliased for the selector and the pods.
    "labels": _deployment(
        "spec:\n  selector: {matchLabels: *l}\n  template:\n    metadata: {labels: *l}\n    spec:\n"
        "      containers:\n      - name: c\n        image: nginx\n        envFrom: [{configMapRef: {name: cfg}}]\n",
        "  name: app\n  labels: &l {app: a, tier: web}\n"),
    # A config hash (annotate) goes to the pod template's annotations, which
    # the Deployment's own share: refused, pruned or not.
    "annotations": CONFIGS + SHAPES_ANNOTATIONS,
    "metadata": _deployment(
        "spec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: *m\n    spec:\n"
        "      containers:\n      - name: c\n        image: nginx\n        envFrom: [{secretRef: {name: sec}}]\n",
        "  &m\n  name: app\n  labels: {app: a}\n"),
    "container and merge key": _deployment(
        "spec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a}}\n    spec:\n"
        "      containers:\n      - &c\n        name: c\n        image: nginx\n"
        "        envFrom: [{configMapRef: {name: cfg}}]\n        resources: {limits: {cpu: 1}}\n"
        "      - <<: *c\n        name: d\n        image: busybox\n"),
    "env item": _deployment(
        "spec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a}}\n    spec:\n"
        "      initContainers:\n      - name: i\n        image: busybox\n        env:\n"
        "        - &e {name: A, valueFrom: {secretKeyRef: {name: sec, key: k}}}\n"
        "      containers:\n      - name: c\n        image: nginx\n        env: [*e, {name: B, value: b}]\n"),
    "env merge key": _deployment(
        "spec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a}}\n    spec:\n"
        "      containers:\n      - name: c\n        image: nginx\n        env:\n"
        "        - <<: {valueFrom: {configMapKeyRef: {name: cfg, key: k}}}\n          name: A\n"),
    "volumes merge key": _deployment(
        "spec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a}}\n    spec:\n"
        "      volumes:\n      - &v {name: one, configMap: {name: cfg}}\n      - <<: *v\n        name: two\n"
        "      - <<: [{secret: {secretName: sec}}, {name: x}]\n        name: three\n"
        "      containers:\n      - name: c\n        image: nginx\n"),
    # One name, two references: both rename it alike.
    "referenced name, aliased by a reference": _deployment(
        "spec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a}}\n    spec:\n"
        "      containers:\n      - name: c\n        image: nginx\n        envFrom: [{configMapRef: {name: &n cfg}}]\n"
        "      - name: d\n        image: nginx\n        envFrom: [{configMapRef: {name: *n}}]\n"),
    # One name, a reference and a label: renaming it would change the
    # label, so it is refused. Counted on the pruned tree (the label's
    # metadata gone), one path would seem to lead to it.
    "referenced name, aliased by a label": _deployment(
        "spec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a, uses: &n cfg}}\n"
        "    spec:\n      containers:\n      - name: c\n        image: nginx\n"
        "        env: [{name: A, valueFrom: {configMapKeyRef: {name: *n, key: k}}}]\n"),
    "config data": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {a: &x one, b: *x, c: *x}\n---\n"
                   + _user("configMapRef: {name: cfg}"),
    # The version's marks and history go to annotations its data shares.
    "config metadata": "apiVersion: v1\nkind: Secret\nmetadata: {name: sec, annotations: &s {k: v}}\n"
                       "stringData: *s\n---\n" + _user("secretRef: {name: sec}"),
    "config labels": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  labels: &l {a: b}\n"
                     "data: *l\n---\n" + _user("configMapRef: {name: cfg}"),
    "pod template of a List": "apiVersion: v1\nkind: List\nitems:\n"
                              "- {apiVersion: v1, kind: ConfigMap, metadata: {name: cfg}, data: {k: v}}\n"
                              "- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: one}\n"
                              "  spec:\n    selector: {matchLabels: {app: a}}\n    template: &t\n"
                              "      metadata: {labels: {app: a}}\n      spec:\n        containers:\n"
                              "        - {name: c, image: nginx, envFrom: [{configMapRef: {name: cfg}}]}\n"
                              "- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: two}\n"
                              "  spec:\n    selector: {matchLabels: {app: a}}\n    template: *t\n",
    # A config that keeps its name gives the Deployment a config hash on its
    # pod template, in its document composed again: whose annotations its
    # own share.
    "config hash where composed again": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n"
                                        "  annotations: {postrender.io/versioned: 'false'}\ndata: {k: v}\n---\n"
                                        + SHAPES_ANNOTATIONS,
    # A grant's names merged in: a name is added beside it, in the merged list.
    "grant through a merge key": CONFIGS + "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n"
                                 "metadata: {name: r}\nrules:\n- <<: {apiGroups: [''], resources: [configmaps],"
                                 " resourceNames: [cfg]}\n  verbs: [get]\n---\n" + _user("configMapRef: {name: cfg}"),
    # A List's config item, kept whole for its copy, holds what another
    # item's grant is (kept in part, around the names it gains).
    "grant inside a config item": "apiVersion: v1\nkind: List\nitems:\n"
                                  "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: cfg}\n  data: {k: v}\n"
                                  "  extra: &r {apiGroups: [''], resources: [configmaps], resourceNames: [cfg],"
                                  " verbs: [get], deep: {x: {y: 1}}}\n"
                                  "- apiVersion: rbac.authorization.k8s.io/v1\n  kind: Role\n  metadata: {name: r}\n"
                                  "  rules: [*r]\n- " + _user("configMapRef: {name: cfg}").replace("\n", "\n  ")[:-2],
    # A pruned document holding a few shared nodes keeps their ids as a
    # tuple, many as a set (needs._HELD_AS_TUPLE: 8): the reference's name
    # aliased by an env value, beside twelve anchored images.
    "referenced name aliased, among many shared nodes": _deployment(
        "spec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a}}\n"
        "    spec:\n      containers:\n      - name: c\n        image: nginx\n"
        "        envFrom: [{configMapRef: {name: &n cfg}}]\n        env: [{name: X, value: *n}]\n"
        + "".join(f"      - {{name: c{i}, image: &i{i} img{i}, args: [*i{i}]}}\n" for i in range(12))),
    # The pod template's metadata merged in: its config hash goes there.
    "pod template metadata merged in": _deployment(
        "spec:\n  selector: {matchLabels: {app: a}}\n  template:\n    <<: {metadata: {labels: {app: a}}}\n"
        "    spec:\n      containers:\n      - name: c\n        image: nginx\n"
        "        envFrom: [{configMapRef: {name: cfg}}]\n"),
    "merge key, no anchor": _deployment(
        "spec:\n  <<: {selector: {matchLabels: {app: a}}}\n  template:\n    metadata: {labels: {app: a}}\n"
        "    spec:\n      containers:\n      - <<: {name: c, image: nginx, envFrom: [{configMapRef: {name: cfg}}]}\n"
        "        ports: [{containerPort: 80}]\n"),
}

# Flags that change what is kept and what is edited.
FLAGS = ["", "--strategy annotate", "--keep-original=all", "--version-all", "--keep-previous argocd",
         "--mutable --keep-original=none", "--keep-original=all --keep-previous helm"]


@pytest.mark.parametrize("flags", FLAGS)
@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
def test_shared_documents_render_alike_pruned_and_whole(shape: str, flags: str):
    text = SHAPES[shape]
    assert _render(text, flags, pruned=True) == _render(text, flags, pruned=False)


@pytest.mark.parametrize("shape, flags", [
    ("referenced name, aliased by a label", ""),
    ("referenced name aliased, among many shared nodes", ""),
    ("annotations", "--strategy annotate"),
    ("config metadata", "--keep-original=all"),
    ("config labels", ""),
    ("config hash where composed again", ""),
])
def test_an_edit_through_an_alias_is_refused_when_pruned(shape: str, flags: str):
    # The cases above compare alike also when both refuse nothing: these
    # must refuse, as the whole document does.
    output, _, _ = _render(SHAPES[shape], flags, pruned=True)
    assert output.startswith("error: ") and "YAML alias" in output


def _read_pruned(text: str) -> list:
    table = fieldspecs.load_table([])
    return read([Source(None, text)], Limits(), Needs(table, pod_string_specs(table))).documents


def test_a_document_sharing_nodes_is_pruned():
    # bench/run's anchored apps: each Deployment was held whole (25,000 of
    # them: 313 MiB); its probes, ports and resources are not kept now.
    text = SHAPES["container and merge key"]
    whole = read([Source(None, text)], Limits()).documents[-1]
    pruned = _read_pruned(text)[-1]
    assert isinstance(pruned.shared, KeptShared) and pruned.shared
    assert len(unique_nodes(pruned.root)) < len(unique_nodes(whole.root))


def test_the_paths_to_a_shared_reference_are_counted_in_the_whole_graph():
    # Two containers (one merged from the other) read one name: two paths.
    pruned = _read_pruned(SHAPES["container and merge key"])[-1]
    assert sorted(pruned.shared.counted().values()) == [2]
    pruned = _read_pruned(SHAPES["referenced name, aliased by a label"])[-1]
    assert sorted(pruned.shared.counted().values()) == [2]


def test_a_document_sharing_one_node_holds_its_facts_in_few_bytes():
    # 25,000 anchored apps: each Deployment's facts (its one shared node's id
    # and count, its kind and name) were a dict and an int, 6.4 MB of their
    # peak, then 304 bytes as a tuple of the id, an array of (id, count), a
    # (kind, name) tuple and the record; now the count sits in a tuple beside
    # its id's (192). Measured as what letting go of them frees.
    import gc
    import tracemalloc

    apps = 300
    text = "---\n".join(
        f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app{i}\n  labels: &l {{app: a{i}}}\n"
        f"spec:\n  selector: {{matchLabels: *l}}\n  template:\n    metadata: {{labels: *l}}\n    spec:\n"
        f"      containers:\n      - &c\n        name: c\n        image: nginx\n        envFrom:\n"
        f"        - configMapRef: {{name: cfg{i}}}\n      - <<: *c\n        name: d\n"
        for i in range(apps))
    tracemalloc.start()
    try:
        documents = _read_pruned(text)
        assert all(type(doc.shared) is KeptShared and len(doc.shared.counted()) == 1 for doc in documents)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
        for doc in documents:
            doc.shared = frozenset()
        gc.collect()
        freed = held - tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    # The facts and the document's record of them (_Seldom, 56 bytes): 248
    # a document now, 358 before (the array's buffer grows as it is filled).
    assert freed / apps < 300, freed / apps


@pytest.mark.parametrize("count", [1, 8, 9, 50])
def test_the_paths_to_each_node_are_answered_however_held(count):
    root = _read_pruned(SHAPES["container and merge key"])[-1].root
    counted = {10_000 + 16 * i: 2 + i % 3 for i in range(count)}
    shared = KeptShared(dict(counted), root)
    assert shared.counted() == counted
    assert all(shared.paths_to(node_id) == paths for node_id, paths in counted.items())
    with pytest.raises(AssertionError):
        shared.paths_to(8)


def test_what_a_node_kept_whole_holds_is_not_pruned_through_another_path():
    # `a` is kept whole; `b`, a node inside it, only around `z`: `x` stays.
    text = "kind: Thing\na: {inner: &s {x: {q: 1}, z: [{w: 2}]}}\nb: *s\n"
    doc = read([Source(None, text)], Limits()).documents[0]
    prune(text, doc.root, [(("a",), True), (("b", "z", 0), False)], shares=True)
    assert node_at(doc.root, ("a", "inner", "x", "q")).value == "1"
