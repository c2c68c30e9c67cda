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


def test_a_lazy_dataclass_is_the_dataclass_once_an_instance_is_made():
    from postrender.records import lazy_dataclass

    @lazy_dataclass(frozen=True, order=True)
    class Edit:
        start: int
        end: int
        text: str = ""

    assert not dataclasses.is_dataclass(Edit)  # nothing compiled while no instance is made
    edits = [Edit(3, 4, "b"), Edit(1, 2, text="a")]
    assert dataclasses.is_dataclass(Edit)
    assert sorted(edits) == [Edit(1, 2, "a"), Edit(3, 4, "b")]
    assert dataclasses.replace(edits[0], text="c") == Edit(3, 4, "c")
    assert repr(edits[1]).endswith("Edit(start=1, end=2, text='a')")
    with pytest.raises(dataclasses.FrozenInstanceError):
        edits[0].start = 0  # type: ignore[misc]
    with pytest.raises(TypeError):
        Edit()


def test_a_lazy_dataclass_refuses_a_bad_first_call_and_still_works():
    from postrender.records import lazy_dataclass

    @lazy_dataclass(eq=False)
    class Reference:
        name: str
        candidates: list = dataclasses.field(default_factory=list)

    with pytest.raises(TypeError):
        Reference()
    first, second = Reference("a"), Reference("a")
    assert first != second and first.candidates == [] and first.candidates is not second.candidates
