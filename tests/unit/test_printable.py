"""printable(): str.isprintable() as Unicode 14.0 answers it, on every Python.

isprintable() follows the running Python's Unicode database, so a name
holding a character assigned since 14.0 was single-quoted by 3.12 and
double-quoted by 3.11, and graph's JSON escaped it on one and not the other
(determinism60)."""

import os
import sys
import unicodedata

import pytest

from conftest import run_postrender
from postrender.printable import printable, quoted


def test_assigned_characters_are_as_isprintable_says_on_python_311():
    if unicodedata.unidata_version != "14.0.0":
        pytest.skip("isprintable() is the oracle only where Python's database is Unicode 14.0 (3.11)")
    differ = [cp for cp in range(sys.maxunicode + 1)
              if unicodedata.category(chr(cp)) != "Cn" and printable(chr(cp)) != chr(cp).isprintable()]
    assert differ == []


@pytest.mark.parametrize("ch, shown", [
    ("\U0001f6dc", True),   # assigned in Unicode 15.0: unassigned to 3.11, printable to 3.12
    ("\u2ffc", True),       # 15.1
    ("\U0003134b", True),   # unassigned everywhere yet
    ("\u202e", False), ("\u200b", False), ("\u00a0", False), ("\ufffe", False), ("\U0001fffe", False),
    ("\U000f0001", False), ("\x1b", False), ("a", True), ("é", True), (" ", True),
])
def test_the_class_is_fixed(ch, shown):
    assert printable(ch) is shown


def test_the_same_bytes_whatever_the_pythons_unicode():
    # A name holding U+1F6DC: 'cfg🛜-<hash>' written single-quoted as asked,
    # and the graph's JSON shows it raw, on every Python.
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 'cfg\U0001f6dc'\n"
            "  annotations: {postrender.io/versioned: \"true\"}\ndata: {k: v}\n")
    out = run_postrender([], text)
    assert out.status == 0, out.stderr
    assert "  name: 'cfg\U0001f6dc-" in out.stdout
    graph = run_postrender(["graph", "-o", "json"], text)
    assert '"cfg\U0001f6dc' in graph.stdout and "\\ud83d" not in graph.stdout


@pytest.mark.parametrize("value", ["cfg", "it's", 'say "hi"', "both ' and \"", "back\\slash", "tab\there",
                                   "line\nbreak", "\x1b[31m", "\u202eevil", "é", "\U000e0041", "\ud800"])
def test_quoted_is_repr_where_the_pythons_agree(value):
    assert quoted(value) == repr(value)
    assert quoted(5) == "5" and quoted(None) == "None" and quoted(["a"]) == "['a']"


def test_a_messages_name_is_quoted_alike_on_every_python():
    # repr() escaped U+1F6DC on 3.11 and not on 3.12 (review60b).
    assert quoted("cfg\U0001f6dc") == "'cfg\U0001f6dc'"
    text = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n"
            "      containers:\n      - name: c\n        image: i\n"
            "        envFrom: [{configMapRef: {name: \"cfg\U0001f6dc\"}}]\n")
    out = run_postrender([], text)
    assert out.status == 0 and "ConfigMap 'cfg\U0001f6dc' is not in the stream" in out.stderr, out.stderr


def test_quoted_holds_a_lists_strings_so_too():
    assert quoted(["A\U0001f6dc", 1, None]) == "['A\U0001f6dc', 1, None]"
    assert quoted(("a",)) == repr(("a",)) and quoted(("a", "b")) == repr(("a", "b"))
    assert quoted({"k": ["v"]}) == repr({"k": ["v"]})


# --- a byte of a name that is not UTF-8 -------------------------------------------------


def test_a_byte_python_escaped_is_shown_as_that_byte():
    # os.fsdecode(b"x\xff") is "x\udcff": it printed as \udcff, a Python internal (cli62).
    from postrender.diagnostics import escape_controls

    name = os.fsdecode(b"x\xff\x80.yaml")
    assert escape_controls(name) == "x\\xff\\x80.yaml"
    assert quoted(name) == "'x\\xff\\x80.yaml'"
    # Another lone surrogate is no byte: still its code point.
    assert escape_controls("\ud800\udc7f") == "\\ud800\\udc7f"


def test_every_message_shows_such_a_byte_as_ls_b_does(tmp_path):
    folder = tmp_path / "bad"
    folder.mkdir()
    bad = os.fsdecode(os.fsencode(str(folder)) + b"/x\xff.yaml")
    with open(bad, "w") as handle:
        handle.write("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: 3\n")
    said = run_postrender([str(folder)]).stderr
    assert f"({folder}/x\\xff.yaml, ConfigMap/c) line 6" in said and "\\udc" not in said, said
    missing = run_postrender([os.fsdecode(b"nonexist\xff.yaml")])
    assert missing.stderr == "postrender: error: nonexist\\xff.yaml: no such file or folder\n"
    output = os.fsdecode(os.fsencode(str(tmp_path)) + b"/none/o\xff")
    written = run_postrender(["-o", output], "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    assert written.status == 1 and "/none/o\\xff: " in written.stderr, written.stderr
