"""syntax/anchors.py: anchors defined again, renamed in place as go-yaml reads them."""

from __future__ import annotations

from string import ascii_letters, digits

import pytest
from ruamel.yaml.error import YAMLError

from conftest import run_postrender
from postrender.syntax.anchors import is_duplicate_anchor, renamed
from postrender.syntax.nodes import Composer


def _compose_error(text: str) -> YAMLError | None:
    loader = Composer(text)
    try:
        loader.get_single_node()
    except YAMLError as exc:
        return exc
    finally:
        loader.dispose()
    return None


@pytest.mark.parametrize("text,expected", [
    ("a: &x 1\nb: &x 2\nc: *x\n", "a: &x 1\nb: &a 2\nc: *a\n"),
    ("a: &x 1\nb: *x\nc: &x 2\nd: *x\n", "a: &x 1\nb: *x\nc: &a 2\nd: *a\n"),
    ("a: &a 1\nb: &a 2\nc: &a 3\nd: *a\n", "a: &a 1\nb: &b 2\nc: &c 3\nd: *c\n"),
    ("a: !!str &x 1\nb: !!str &x 2\nc: *x\n", "a: !!str &x 1\nb: !!str &a 2\nc: *a\n"),
    ("a: &x {p: q}\nb: &x [r]\nc: *x\n", "a: &x {p: q}\nb: &a [r]\nc: *a\n"),
    ("[&xy 1, &xy 2, *xy]\n", "[&xy 1, &aa 2, *aa]\n"),
    ("\ufeffa: &x 1\nb: &x 2\nc: *x\n", "\ufeffa: &x 1\nb: &a 2\nc: *a\n"),
    ("a: '&x *x'\nb: &x 1\nc: &x 2\nd: *x\n", "a: '&x *x'\nb: &x 1\nc: &a 2\nd: *a\n"),
])
def test_later_definitions_and_their_aliases_are_renamed_in_place(text, expected):
    assert is_duplicate_anchor(_compose_error(text))
    made = renamed(text)
    assert made == expected and len(made) == len(text)
    assert _compose_error(made) is None


def test_a_text_that_defines_no_anchor_again_is_left_alone():
    assert renamed("a: &x 1\nb: *x\n") is None
    assert renamed("a: b\n") is None


def test_no_same_length_name_free_is_refused():
    names = ascii_letters + digits + "_-"  # every one-letter name libyaml takes
    text = "".join(f"k{i}: &{c} {i}\n" for i, c in enumerate(names)) + "z: &a again\ny: *a\n"
    assert is_duplicate_anchor(_compose_error(text))
    assert renamed(text) is None


def test_a_text_that_does_not_parse_is_refused():
    assert renamed("a: &x 1\nb: &x [2\n") is None


def test_other_composer_errors_are_not_duplicate_anchors():
    assert not is_duplicate_anchor(_compose_error("a: *nowhere\n"))


def test_a_document_whose_anchors_cannot_be_renamed_is_refused_as_before():
    names = ascii_letters + digits + "_-"  # every one-letter name libyaml takes
    body = "".join(f"  k{i}: &{c} v{i}\n" for i, c in enumerate(names)) + "  z: &a again\n"
    result = run_postrender([], "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n" + body)
    assert result.status == 1 and result.stdout == ""
    assert result.stderr == ("postrender: error: document 1 line 70: invalid YAML: second occurrence"
                             " (found duplicate anchor; first occurrence at line 6)\n")


def test_a_render_reads_the_latest_definition_and_writes_the_names_as_they_came():
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: &x one\n  b: &x two\n  c: *x\n"
            "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n"
            "    image: i\n    envFrom: [{configMapRef: {name: c}}]\n")
    result = run_postrender(["--namespace", "ns"], text)
    assert result.status == 0 and result.stderr == ""
    assert "  a: &x one\n  b: &x two\n  c: *x\n" in result.stdout


def test_an_anchor_written_in_a_comment_before_the_real_one_is_not_renamed():
    text = "a: !!str\n  &x one\nb: &x two\nc: !!str # &x\n  &x three\nd: *x\n"
    made = renamed(text)
    assert made == "a: !!str\n  &x one\nb: &a two\nc: !!str # &x\n  &b three\nd: *b\n"
    assert _compose_error(made) is None


def test_many_definitions_of_one_name_each_get_a_name_of_their_own():
    text = "".join(f"k{i}: &abc v{i}\nr{i}: *abc\n" for i in range(3000))
    made = renamed(text)
    assert made is not None and len(made) == len(text) and _compose_error(made) is None
    names = [line.split("&")[1].split()[0] for line in made.splitlines() if "&" in line]
    assert len(set(names)) == 3000 and all(len(name) == 3 for name in names)
    # Each alias names the definition just before it.
    lines = made.splitlines()
    assert all(lines[2 * i + 1] == f"r{i}: *{names[i]}" for i in range(3000))
