"""Values as deep as --max-depth allows never reach Python's recursion limit.

Every walk over input values (copies of List items, hashing, the reference
walk through nested sequences, KRM functionConfig, producer content, JSON
writing) is iterative. Each case here nests a value close to the depth limit
(the default 512 and the 1000 ceiling) in a place one of them reads, and
the run must end as any run does: exit 0 or 1, never an internal error.
"""

from __future__ import annotations

import pytest

from conftest import run_postrender

from postrender.limits import DEFAULT_MAX_DEPTH, MAX_DEPTH_CEILING

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm}}\ndata: {{a: b}}\nextra: {deep}\n"


def _flow(depth: int) -> str:
    return "[" * depth + "x" + "]" * depth


def _mapping(depth: int) -> str:
    return "{a: " * depth + "x" + "}" * depth


def _keys(depth: int) -> str:
    """A value whose mapping keys are themselves mappings, `depth` times over."""
    return "{? " * depth + "k" + " : v}" * depth


# (what it drives, the stream, extra flags, the status it must end with)
def _cases(depth: int) -> list[tuple[str, str, list[str], int]]:
    room = depth - 6  # the levels the object around the value takes
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers: [{{name: c, image: x}}]\n"
           "  volumes: {vols}\n")
    return [
        ("List item copied (--keep-original)",
         "apiVersion: v1\nkind: List\nitems:\n- " + CM.format(deep=_flow(room)).replace("\n", "\n  "),
         ["--keep-original"], 0),
        ("List item copied, deep mappings",
         "apiVersion: v1\nkind: List\nitems:\n- " + CM.format(deep=_mapping(room)).replace("\n", "\n  "),
         ["--keep-original"], 0),
        ("keys that are mappings, refused",
         "apiVersion: v1\nkind: List\nitems:\n- " + CM.format(deep=_keys(room)).replace("\n", "\n  "),
         ["--keep-original"], 1),
        ("reference inside nested sequences",
         CM.format(deep="1") + "---\n" + pod.format(vols="[" * room + "{name: v, configMap: {name: cm}}" + "]" * room),
         [], 0),
        ("a deep value where data must be a string", CM.format(deep="1").replace("{a: b}", "{a: " + _flow(room) + "}"),
         [], 1),
        ("a deep stringData value",
         "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {a: " + _flow(room) + "}\n", [], 1),
        ("KRM functionConfig",
         "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n"
         "  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: fn}\n  data: {namespace: " + _flow(room) + "}\n",
         [], 2),
        ("KRM functionConfig field specs",
         "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n"
         "  apiVersion: postrender.io/v1alpha1\n  kind: PostRender\n  metadata: {name: fn}\n"
         "  nameReference: [{kind: Secret, fieldSpecs: [{kind: X, path: " + _flow(room) + "}]}]\n",
         [], 2),
        ("producer content hashed (SealedSecret spec)",
         "apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata: {name: s}\nspec: " + _mapping(room) + "\n"
         "---\n" + pod.format(vols="[{name: v, secret: {secretName: s}}]"),
         ["--strategy=annotate"], 0),
        ("guard and annotate over a deep workload",
         CM.format(deep="1") + "---\n" + pod.format(vols="[{name: v, configMap: {name: cm}}]")
         + "  extra: " + _flow(room) + "\n",
         ["--strategy=annotate", "--strict"], 0),
    ]


@pytest.mark.parametrize("depth", [DEFAULT_MAX_DEPTH, MAX_DEPTH_CEILING])
@pytest.mark.parametrize("index", range(len(_cases(DEFAULT_MAX_DEPTH))), ids=[c[0] for c in _cases(DEFAULT_MAX_DEPTH)])
def test_deep_values_end_cleanly(depth, index):
    what, text, flags, status = _cases(depth)[index]
    args = ["--max-depth", str(depth), *flags]
    result = run_postrender(args, text)
    assert "internal error" not in result.stderr, f"{what}: {result.stderr}"
    assert result.status == status, f"{what}: {result.stderr}"
    if status == 0:
        again = run_postrender(args, result.stdout)
        assert again.status == 0 and again.stdout == result.stdout, f"{what}: {again.stderr}"
    for graph in (["graph", "-o", "json"], ["graph"]):
        shown = run_postrender([*graph, "--max-depth", str(depth)], text)
        assert "internal error" not in shown.stderr, f"{what} ({graph}): {shown.stderr}"
