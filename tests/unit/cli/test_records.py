"""records.record behaves as the dataclass it stands for, for what postrender's classes use."""

from __future__ import annotations

import dataclasses

import pytest

from postrender.records import FrozenRecordError, field, fields, record, replace


def _pair(**options):
    """The same class as a dataclass and as a record."""

    @dataclasses.dataclass(**options)
    class Thing:
        a: int
        b: str = "b"
        c: list = dataclasses.field(default_factory=list)

    as_dataclass = Thing

    @record(**options)
    class Thing:  # type: ignore[no-redef]
        a: int
        b: str = "b"
        c: list = field(default_factory=list)

    return as_dataclass, Thing


CALLS = [((1,), {}), ((1, "x"), {}), ((1, "x", [2]), {}), ((), {"a": 1}), ((1,), {"c": [3]}), ((), {"c": [], "a": 0})]
BAD_CALLS = [((), {}), ((1, "x", [], 4), {}), ((1,), {"a": 2}), ((1,), {"d": 2}), ((), {"b": "q"})]


@pytest.mark.parametrize("options", [{}, {"frozen": True}, {"eq": False}, {"frozen": True, "eq": False}])
def test_a_record_builds_compares_and_shows_as_its_dataclass(options):
    as_dataclass, as_record = _pair(**options)
    for args, kwargs in CALLS:
        d, r = as_dataclass(*args, **kwargs), as_record(*args, **kwargs)
        assert repr(r) == repr(d)
        assert vars(r) == vars(d)
        assert (r == as_record(*args, **kwargs)) == (d == as_dataclass(*args, **kwargs))
        assert (r != as_record(9)) == (d != as_dataclass(9))
    for args, kwargs in BAD_CALLS:
        with pytest.raises(TypeError):
            as_dataclass(*args, **kwargs)
        with pytest.raises(TypeError):
            as_record(*args, **kwargs)
    assert (as_record.__hash__ is None) == (as_dataclass.__hash__ is None)


def test_each_instance_gets_its_own_default_from_a_factory():
    _, as_record = _pair()
    first, second = as_record(1), as_record(1)
    first.c.append(1)
    assert second.c == []


def test_a_frozen_record_refuses_assignment_and_hashes_by_value():
    @record(frozen=True)
    class Key:
        kind: str
        name: str

    key = Key("ConfigMap", "a")
    with pytest.raises(FrozenRecordError):
        key.name = "b"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del key.kind
    assert hash(key) == hash(Key("ConfigMap", "a")) == hash(("ConfigMap", "a"))
    assert {key: 1}[Key("ConfigMap", "a")] == 1


def test_fields_not_shown_or_compared_are_left_out():
    @record
    class Table:
        name: str
        cache: dict = field(default_factory=dict, repr=False, compare=False)

    one, other = Table("t"), Table("t")
    other.cache["x"] = 1
    assert one == other
    assert repr(one).endswith("Table(name='t')")


def test_replace_and_fields():
    @record(frozen=True)
    class Options:
        strategy: str = "rename"
        strict: bool = False

    changed = replace(Options(), strict=True)
    assert (changed.strategy, changed.strict) == ("rename", True)
    assert fields(Options) == fields(changed) == ("strategy", "strict")
    with pytest.raises(TypeError):
        replace(Options(), unknown=1)


def test_a_required_field_after_a_default_is_refused():
    with pytest.raises(TypeError):
        @record
        class Wrong:
            a: int = 0
            b: int


def test_a_class_that_writes_a_record_method_itself_is_refused():
    with pytest.raises(TypeError):
        @record
        class Wrong:
            a: int

            def __eq__(self, other):
                return True


def test_an_ordered_record_sorts_as_its_dataclass():
    @dataclasses.dataclass(frozen=True, order=True)
    class Edit:
        start: int
        end: int
        text: str = ""

    as_dataclass = Edit

    @record(frozen=True, order=True)
    class Edit:  # type: ignore[no-redef]
        start: int
        end: int
        text: str = ""

    rows = [(3, 4, "b"), (1, 2, "a"), (1, 2, ""), (3, 1, "z")]
    assert [vars(e) for e in sorted(Edit(*r) for r in rows)] == [vars(e) for e in sorted(as_dataclass(*r) for r in rows)]
    assert (Edit(1, 2) <= Edit(1, 2)) and (Edit(1, 3) > Edit(1, 2)) and not (Edit(1, 2) < Edit(1, 2))


def test_methods_are_compiled_at_the_first_instance_even_a_refused_one():
    @record(eq=False)
    class Reference:
        name: str
        candidates: list = field(default_factory=list)

    placeholder = Reference.__init__
    with pytest.raises(TypeError):
        Reference()
    assert Reference.__init__ is not placeholder  # compiled by the first call, failed or not
    first, second = Reference("a"), Reference("a")
    assert first != second and first.candidates == [] and first.candidates is not second.candidates
    assert Reference.__init__.__qualname__.endswith("Reference.__init__")
