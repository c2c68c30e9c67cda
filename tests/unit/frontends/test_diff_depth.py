"""diff walks templates as deep as --max-depth lets them nest (1,000
levels), past Python's recursion limit: its walkers keep stacks of their
own. Each must give what the recursive walk it replaced gave (kept here as
the reference), and diff must answer on the deepest template a render
takes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_postrender
from postrender.frontends.diff.compare import _differences
from postrender.frontends.diff.pairing import strings_mapped
from postrender.frontends.diff.side import _EMPTY_IS_ABSENT_PATHS, _EMPTY_IS_ABSENT_PREFIXES, _as_stored
from postrender.pipeline.index.hashing import go_json


def _stored_by_recursion(value, at=None):
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if v is None or v == []:
                continue
            below = None if at is None else at + (k,)
            if below is not None and below not in _EMPTY_IS_ABSENT_PREFIXES:
                below = None
            v = _stored_by_recursion(v, below)
            if v == {} and below in _EMPTY_IS_ABSENT_PATHS:
                continue
            out[k] = v
        return out
    if isinstance(value, list):
        item = None if at is None or at + (None,) not in _EMPTY_IS_ABSENT_PREFIXES else at + (None,)
        return [_stored_by_recursion(v, item) for v in value]
    return value


def _differences_by_recursion(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(a.keys() | b.keys()):
            if key not in a or key not in b:
                out.append((key,))
            else:
                out.extend((key,) + p for p in _differences_by_recursion(a[key], b[key]))
        return out
    if isinstance(a, list) and isinstance(b, list):
        names = [_names(x) for x in (a, b)]
        if None not in names:
            out = []
            for i, item in enumerate(b):
                j = names[0].get(item["name"])
                out.extend([(i,)] if j is None else ((i,) + p for p in _differences_by_recursion(a[j], item)))
            if [n for n in names[0] if n not in names[1]] or \
                    [n for n in names[0] if n in names[1]] != [n for n in names[1] if n in names[0]]:
                out.append(())
            return out
        if len(a) != len(b):
            return [()]
        return [(i,) + p for i, (x, y) in enumerate(zip(a, b)) for p in _differences_by_recursion(x, y)]
    return [] if go_json(a) == go_json(b) else [()]


def _names(items):
    names = {}
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or item["name"] in names:
            return None
        names[item["name"]] = i
    return names


_KEYS = st.sampled_from(["spec", "containers", "name", "env", "metadata", "annotations", "args", "volumes", "x"])
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from(["a", "b", "", "1"]))
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_KEYS, inner, max_size=4),
                            st.lists(st.fixed_dictionaries({"name": st.sampled_from(["a", "b", "c"])},
                                                           optional={"image": inner}), max_size=3)),
    max_leaves=12,
)
_PATHS = st.sampled_from([None, (), ("spec",), ("metadata",), ("spec", "containers", None)])


@settings(max_examples=300, deadline=None)
@given(_VALUES, _PATHS)
def test_stored_form_is_the_recursive_walks(value, at):
    assert _as_stored(value, at) == _stored_by_recursion(value, at)


@settings(max_examples=300, deadline=None)
@given(_VALUES, _VALUES)
def test_differences_are_the_recursive_walks_in_its_order(a, b):
    assert _differences(a, b) == _differences_by_recursion(a, b)
    assert _differences(a, a) == []


def _mapped_by_recursion(value, change):
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        return {k: _mapped_by_recursion(v, change) for k, v in value.items()}
    if isinstance(value, list):
        return [_mapped_by_recursion(v, change) for v in value]
    return value


@settings(max_examples=300, deadline=None)
@given(_VALUES)
def test_strings_mapped_is_the_recursive_walk_in_its_order(value):
    mapped = strings_mapped(value, str.upper)
    assert mapped == _mapped_by_recursion(value, str.upper)
    assert repr(mapped) == repr(_mapped_by_recursion(value, str.upper))  # key order too


def _nested_deployment(depth: int, inner: str = "") -> str:
    return ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {a: b}}\n"
            "  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers: [{name: c, image: x}]\n"
            f"      x: {'[' * depth}{inner}{']' * depth}\n")


def test_diff_answers_on_the_deepest_template_a_render_takes(tmp_path):
    for depth, limit in ((500, []), (990, ["--max-depth", "1000"])):
        old, new = tmp_path / f"old{depth}.yaml", tmp_path / f"new{depth}.yaml"
        old.write_text(_nested_deployment(depth))
        new.write_text(_nested_deployment(depth, "1"))
        assert run_postrender([*limit, str(old)]).status == 0
        same = run_postrender(["diff", *limit, str(old), str(old)])
        assert same.status == 0 and "nothing rolls" in same.stdout, same.stderr
        rolls = run_postrender(["diff", *limit, "-o", "json", str(old), str(new)])
        assert rolls.status == 0, rolls.stderr
        assert "spec.template.spec.x" + "[0]" * (depth - 1) in rolls.stdout


def test_diff_answers_when_a_config_moves_namespace_beside_a_deep_template(tmp_path):
    """A config OLD leaves in the implicit namespace and NEW puts in one:
    pairing rewrites the tokens in every template, as deep as it nests."""
    config = "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{ns}}}\ndata: {{k: v}}\n---\n"
    reader = _nested_deployment(990).replace("containers: [{name: c, image: x}]",
                                            "containers: [{name: c, image: x, envFrom: [{configMapRef: {name: c}}]}]")
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(config.format(ns="") + reader)
    new.write_text(config.format(ns=", namespace: prod") + reader.replace("metadata: {name: d}",
                                                                          "metadata: {name: d, namespace: prod}"))
    moved = run_postrender(["diff", "--max-depth", "1000", str(old), str(new)])
    assert moved.status == 0, moved.stderr
    assert "nothing rolls" in moved.stdout and "which NEW puts in namespace prod" in moved.stderr
