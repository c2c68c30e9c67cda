"""A `List`'s items are read as the same objects written as documents would
be: the per-object work over text looks at each item's own text, so a List
reads in time linear in its size, and an alias reaching across items still
leads the walk to what it names."""

import io

import pytest

from postrender import fieldspecs
from postrender.fieldspecs.walk import Compiled
from postrender.frontends import krm
from postrender.pipeline.graph.byname import pod_string_specs
from postrender.pipeline.needs import Needs
from postrender.options import RenderOptions
from postrender.pipeline.graph.references import _written_in
from postrender.pipeline.read import Source, read
from postrender.pipeline.render import render
from postrender.report import Reporter

TABLE = fieldspecs.load_table()

_APP = """\
- apiVersion: v1
  kind: Secret
  metadata: {{name: s{i}}}
  stringData: {{k: v{i}}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {{name: d{i}}}
  spec:
    template:
      spec:
        containers: [{{name: c, image: x}}]
        volumes:
        - name: v
          secret: {{secretName: s{i}}}
"""


_HEADS = {
    "List": "apiVersion: v1\nkind: List\n",
    # A KRM function (kustomize --enable-exec, kpt) is given every object as
    # an item of one ResourceList.
    "ResourceList": "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n",
}


def _list(apps: int, kind: str = "List") -> str:
    return _HEADS[kind] + "items:\n" + "".join(_APP.format(i=i) for i in range(apps))


def _render(text: str) -> str:
    reporter = Reporter(verbose=False, stderr=io.StringIO())
    return render([Source("list.yaml", text)], RenderOptions(), reporter).output


@pytest.mark.parametrize("kind", sorted(_HEADS))
def test_the_text_scanned_for_a_lists_items_is_the_lists_size_not_its_square(monkeypatch, kind):
    # Each item used to hand the whole List to Compiled.may_reach: 200 apps
    # scanned 400 times the List's text (time ×14.8 from 1,000 apps to 5,000).
    scanned = []
    may_reach = Compiled.may_reach

    def counting(self, text):
        scanned.append(len(text))
        return may_reach(self, text)

    monkeypatch.setattr(Compiled, "may_reach", counting)
    text = _list(200, kind)
    if kind == "List":
        output = _render(text)
    else:
        reporter = Reporter(verbose=False, stderr=io.StringIO())
        output = krm.run([Source(None, text)], RenderOptions(), reporter)
    assert len(scanned) == 200  # every Deployment was asked about (Secrets have no specs)
    assert sum(scanned) <= 2 * len(text)
    assert output.count("secretName: s") == 200 and "secretName: s7-" in output  # each rewritten


def test_an_items_own_text_is_its_span_without_aliases():
    text = _list(3)
    stream = read([Source("list.yaml", text)], RenderOptions().limits)
    spans = [_written_in(obj) for obj in stream.objects]
    assert [span.lstrip().split("\n", 2)[1].strip() for span in spans] == ["kind: Secret", "kind: Deployment"] * 3
    at = 0
    for span in spans:  # each item's own lines, in order
        at = text.index(span, at) + len(span)
    assert "s2" in spans[-1] and "s1" not in spans[-1] and len(spans[-1]) < len(text) / 4


def test_an_alias_across_items_is_walked_from_the_item_that_uses_it():
    # The last Deployment's volumes are the first's, through an alias: its
    # own span holds no `secretName`, so it must be looked at in the whole
    # text, where the anchor is. The one scalar is then a reference from
    # each Deployment at the same path: two references, both rewritten
    # alike (as one, the render refused to edit a node an alias shares).
    text = _list(1).replace("        volumes:\n", "        volumes: &shared\n") + """\
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: uses-alias}
  spec:
    template:
      spec:
        containers: [{name: c, image: x}]
        volumes: *shared
"""
    stream = read([Source("list.yaml", text)], RenderOptions().limits)
    user = stream.objects[-1]
    assert "secretName" not in text[user.node.start_mark:user.node.end_mark]
    assert _written_in(user) == text
    reporter = Reporter(verbose=True, stderr=io.StringIO(), keep_infos=True)
    result = render([Source("list.yaml", text)], RenderOptions(), reporter)
    rewritten = sorted((ref.referrer.name, new) for ref, new in result.rewrite.rewritten)
    assert [name for name, _ in rewritten] == ["d0", "uses-alias"]
    assert rewritten[0][1] == rewritten[1][1] != "s0"
    assert result.output.count(f"secretName: {rewritten[0][1]}}}") == 1
    assert result.output.endswith("volumes: *shared\n")


def test_a_lists_config_items_take_their_marks_without_the_list_composed_again(monkeypatch):
    # A List's configs keep their whole items (pipeline/needs.py), so their
    # marks go there; composing the whole List again for them doubled the
    # peak memory of a large one (5,000 apps: 421 MiB, now 275).
    from postrender.pipeline import rewrite

    composed = []
    recompose = rewrite.recompose
    monkeypatch.setattr(rewrite, "recompose", lambda doc: composed.append(doc) or recompose(doc))
    text = _list(3).replace("  kind: Secret\n", "  kind: ConfigMap\n").replace("stringData:", "data:")
    text = text.replace("secret: {secretName:", "configMap: {name:")
    sources = [Source("list.yaml", text)]
    reporter = Reporter(verbose=False, stderr=io.StringIO())
    # Pruned as a render reads it, the List cannot take keys as a whole (its
    # Deployments kept no metadata), but its three ConfigMaps can.
    options = RenderOptions()
    needs = Needs(TABLE, pod_string_specs(TABLE))
    (doc,) = read(sources, options.limits, needs).documents
    assert not doc.kept_for_edits and doc.items_kept_whole == {0, 2, 4}
    whole = render(sources, options, reporter, read(sources, options.limits)).output  # nothing pruned
    pruned = render(sources, options, reporter).output
    assert pruned == whole and composed == []
    assert pruned.count("postrender.io/content-hash") == 3 and "name: s2-" in pruned
