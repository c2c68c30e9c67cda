"""A new name must be free in the output: an object the stream keeps under
that name, or another object renamed to it, would make two objects of one
name, and applying them, the later would overwrite the earlier."""

from __future__ import annotations

import pytest

from conftest import run_postrender
from postrender.pipeline.index.hashing import content_hash
from test_hostile import assert_refused


def _config(name: str, value: str, kind: str = "ConfigMap", labels: str = "") -> str:
    field = "stringData" if kind == "Secret" else "data"
    return f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: {name}\n{labels}{field}:\n  k: {value}\n"


def _user(*refs: tuple[str, str]) -> str:
    """A Deployment reading each (kind, name) through envFrom."""
    field = {"ConfigMap": "configMapRef", "Secret": "secretRef"}
    entries = "".join(f"        - {field[kind]}:\n            name: {name}\n" for kind, name in refs)
    return ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n"
            "      containers:\n      - name: c\n        image: x\n        envFrom:\n" + entries)


def _new_name(kind: str, base: str, value: str) -> str:
    out = run_postrender(["--version-all"], _config(base, value, kind))
    assert out.status == 0, out.stderr
    (name,) = {line.split(": ", 1)[1] for line in out.stdout.splitlines() if line.startswith("  name: ")} - {base}
    return name


@pytest.mark.parametrize("kind", ["ConfigMap", "Secret"])
def test_a_new_name_an_unreferenced_object_keeps_is_refused(kind):
    taken = _new_name(kind, "cfg", "v")
    stream = "---\n".join([_config("cfg", "v", kind), _config(taken, "other", kind), _user((kind, "cfg"))])
    assert_refused(run_postrender([], stream), 1, 1,
                   f"{kind}/cfg would be renamed {taken}, and {kind}/{taken} (document 2) keeps it")


def test_a_new_name_that_an_object_kept_as_kustomize_named_it_has_is_refused():
    # Its name ends in its own content hash, so it keeps it (as kustomize
    # would have named it), though nothing refers to it: the same content
    # under two objects of one name is still two objects.
    taken = _new_name("ConfigMap", "cfg", "v")
    assert taken.endswith(content_hash("ConfigMap", _node(_config(taken, "v"))))
    stream = "---\n".join([_user(("ConfigMap", "cfg")), _config("cfg", "v"), _config(taken, "v")])
    assert_refused(run_postrender([], stream), 2, 15, f"and ConfigMap/{taken} (document 3) keeps it")


def test_two_objects_renamed_to_one_name_are_refused():
    # An older version of cfg (marked by an earlier run), and cfg itself,
    # both holding what is now cfg's content.
    new = _new_name("ConfigMap", "cfg", "v")
    old = _config("cfg-5t2k7g8m9f", "v",
                  labels="  labels:\n    postrender.io/versioned: \"true\"\n    postrender.io/base-name: cfg\n")
    stream = "---\n".join([_config("cfg", "v"), old, _user(("ConfigMap", "cfg"), ("ConfigMap", "cfg-5t2k7g8m9f"))])
    assert_refused(run_postrender([], stream), 2, None,
                   f"ConfigMap/cfg-5t2k7g8m9f would be renamed {new}, and ConfigMap/cfg (document 1) is renamed to it too")


def test_a_name_left_for_a_new_one_is_free():
    # --version-all renames the object holding the name too: no collision.
    taken = _new_name("ConfigMap", "cfg", "v")
    stream = "---\n".join([_config("cfg", "v"), _config(taken, "other"), _user(("ConfigMap", "cfg"))])
    out = run_postrender(["--version-all"], stream)
    assert out.status == 0, out.stderr
    names = [line.split(": ", 1)[1] for line in out.stdout.splitlines() if line.startswith("  name: ")]
    assert names.count(taken) == 1 and len(set(names)) == len(names)


def test_a_secrets_copy_keeps_its_old_name_beside_the_new_one():
    # A renamed Secret keeps an unsuffixed copy by default: both names are
    # its own, and neither is another object's.
    stream = "---\n".join([_config("s", "v", "Secret"), _user(("Secret", "s"))])
    out = run_postrender([], stream)
    assert out.status == 0, out.stderr
    names = [line.split(": ", 1)[1] for line in out.stdout.splitlines() if line.startswith("  name: ")]
    assert "s" in names and len(set(names)) == len(names) == 3


def _node(text: str):
    from postrender.syntax.nodes import Composer

    return Composer(text).get_single_node()
