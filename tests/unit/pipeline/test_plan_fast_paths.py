"""The plan's shortcuts give what the general readers give.

versions._json_key and _string_value skip resolving a scalar's tag when
is_string tells from the node alone that it reads as its own text; over any
scalar, however written, they must agree with json_key and string_value.
"""

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from postrender.pipeline.plan.versions import _json_key, _string_value
from postrender.syntax.nodes import Composer, NotReadable, json_key, string_value

# Texts near every rule of go-yaml v2's plain-scalar resolution, and plain words.
_TEXTS = ["", "a", "on", "yes", "No", "~", "null", "Null", "true", "1", "0x1f", "0o17", "017", "08", "1_0", "-1",
          "+.5", ".5", ".inf", "-.Inf", ".nan", "1e3", "1.", "0b101", "2001-12-14", "2001-12-14t21:59:43.10-05:00",
          "9223372036854775808", "18446744073709551616", "=", "<<", "a b", "#x", "-", "app.properties", "LOG_LEVEL"]
_TAGS = ["", "!!str ", "!!int ", "!!bool ", "!!float ", "!!null ", "!!timestamp ", "!!binary ", "!foo ", "! "]
_STYLES = ["{}", "'{}'", '"{}"']


def _scalar(tag: str, style: str, text: str):
    written = style.format(text.replace("'", "''") if style.startswith("'") else text.replace('"', '\\"'))
    root = Composer(f"{tag}{written}: {tag}{written}\n").get_single_node()
    return root.value[0]


def _outcome(read, node):
    try:
        return ("value", read(node))
    except NotReadable:
        return ("refused", None)


@settings(max_examples=400)
@given(st.sampled_from(_TAGS), st.sampled_from(_STYLES), st.one_of(st.sampled_from(_TEXTS), st.text(max_size=6)))
def test_shortcuts_agree_with_the_general_readers(tag, style, text):
    try:
        key, value = _scalar(tag, style, text)
    except Exception:  # not YAML libyaml composes (a stray indicator, a control character)
        assume(False)
    assert _outcome(_json_key, key) == _outcome(json_key, key)
    assert _outcome(_string_value, value) == _outcome(string_value, value)


@pytest.mark.parametrize("text,key,value", [
    ("a", "a", "a"), ("'1'", "1", "1"), ("1", "1", None), ("true", "true", None), ("!!binary aGk=", "hi", "hi"),
])
def test_examples(text, key, value):
    key_node, value_node = _scalar("", "{}", text)
    assert (_json_key(key_node), _string_value(value_node)) == (key, value)
