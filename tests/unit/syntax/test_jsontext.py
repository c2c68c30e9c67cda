"""jsontext.dumps writes what json.dumps writes, at any depth."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from postrender.syntax.jsontext import dumps

_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5))
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                          st.dictionaries(st.text(max_size=4), inner, max_size=4)))
_FORMS = [(False, (", ", ": ")), (True, (",", ":")), (True, (", ", ": "))]


@settings(max_examples=200, deadline=None)
@given(_VALUES, st.sampled_from(_FORMS))
def test_as_json_dumps(value, form):
    sort_keys, separators = form
    expected = json.dumps(value, ensure_ascii=False, sort_keys=sort_keys, separators=separators)
    assert dumps(value, sort_keys=sort_keys, separators=separators) == expected


@pytest.mark.parametrize("sort_keys, separators", _FORMS)
def test_deeper_than_the_recursion_limit(sort_keys, separators):
    depth = 5000
    value: object = {"b": 1, "a": "é"}
    for _ in range(depth):
        value = [{"k": value}]
    inner = json.dumps({"b": 1, "a": "é"}, ensure_ascii=False, sort_keys=sort_keys, separators=separators)
    key = '{"k"' + separators[1]
    assert dumps(value, sort_keys=sort_keys, separators=separators) == ("[" + key) * depth + inner + "}]" * depth
