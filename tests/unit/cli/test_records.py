"""records.record behaves as the dataclass it stands for, for what postrender's classes use."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import pytest

import postrender
from postrender.pipeline.graph.references import Reference
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


def _values(obj) -> dict:
    return {name: getattr(obj, name) for name in fields(obj)}


CALLS = [((1,), {}), ((1, "x"), {}), ((1, "x", [2]), {}), ((), {"a": 1}), ((1,), {"c": [3]}), ((), {"c": [], "a": 0})]
BAD_CALLS = [((), {}), ((1, "x", [], 4), {}), ((1,), {"a": 2}), ((1,), {"d": 2}), ((), {"b": "q"})]


@pytest.mark.parametrize("options", [{}, {"frozen": True}, {"eq": False}, {"frozen": True, "eq": False}])
def test_a_record_builds_compares_and_shows_as_its_dataclass(options):
    as_dataclass, as_record = _pair(**options)
    for args, kwargs in CALLS:
        d, r = as_dataclass(*args, **kwargs), as_record(*args, **kwargs)
        assert repr(r) == repr(d)
        assert _values(r) == vars(d)
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
    assert [_values(e) for e in sorted(Edit(*r) for r in rows)] == [vars(e) for e in sorted(as_dataclass(*r) for r in rows)]
    assert (Edit(1, 2) <= Edit(1, 2)) and (Edit(1, 3) > Edit(1, 2)) and not (Edit(1, 2) < Edit(1, 2))


def test_the_first_instance_is_built_by_name_and_the_second_compiles_even_a_refused_one():
    @record(eq=False)
    class Reference:
        name: str
        candidates: list = field(default_factory=list)

    placeholder = Reference.__init__
    with pytest.raises(TypeError):
        Reference()  # the first instance, refused: built field by field
    assert Reference.__init__ is placeholder
    with pytest.raises(TypeError):
        Reference()
    assert Reference.__init__ is not placeholder  # compiled by the second call, failed or not
    first, second = Reference("a"), Reference("a")
    assert first != second and first.candidates == [] and first.candidates is not second.candidates
    assert Reference.__init__.__qualname__.endswith("Reference.__init__")


@pytest.mark.parametrize("options", [{}, {"frozen": True}, {"eq": False}, {"frozen": True, "eq": False}])
@pytest.mark.parametrize("call", CALLS + BAD_CALLS)
def test_a_first_instance_built_by_name_is_the_compiled_one(options, call):
    """Each call as a class's first instance (_init_by_name) and as a later
    one (the compiled __init__): the same fields, or the same refusal."""
    args, kwargs = call
    as_dataclass, as_record = _pair(**options)
    try:
        want = vars(as_dataclass(*args, **kwargs))
    except TypeError:
        want = None
    for _ in range(3):
        try:
            got = _values(as_record(*args, **kwargs))
        except TypeError:
            got = None
        assert got == want


# --- slots: a render holds some 100,000 records at once, and a __dict__ each was a third of their size


@pytest.mark.parametrize("options", [{}, {"frozen": True}, {"eq": False}, {"frozen": True, "eq": False},
                                     {"frozen": True, "order": True}])
def test_an_instance_keeps_its_fields_in_slots_and_takes_no_other_attribute(options):
    _, as_record = _pair(**options)
    thing = as_record(1)
    assert not hasattr(thing, "__dict__")
    assert as_record.__slots__ == ("a", "b", "c")
    assert (thing.a, thing.b, thing.c) == (1, "b", [])  # the default, and the factory's, with no class attribute
    with pytest.raises(AttributeError):
        thing.d = 1  # type: ignore[attr-defined]
    assert not hasattr(thing, "d")


def test_every_record_in_postrender_has_slots_only():
    records = []
    for module in pkgutil.walk_packages(postrender.__path__, "postrender."):
        if module.name != "postrender.__main__":  # it runs a render
            records += [value for value in vars(importlib.import_module(module.name)).values()
                        if isinstance(value, type) and "__record_fields__" in value.__dict__]
    assert len(records) > 30, "found the records"
    with_dict = [cls.__qualname__ for cls in records if cls.__dictoffset__ or cls.__weakrefoffset__]
    assert with_dict == []


def test_the_class_keeps_what_its_body_defines_but_field_defaults():
    @record(frozen=True)
    class Rule:
        """The rule's doc."""

        kind: str
        group: str = ""
        LIMIT = 3  # a class attribute, not a field

        @property
        def api(self) -> str:
            return f"{self.group}/{self.kind}"

        def describe(self) -> str:
            return f"{self.api} (limit {self.LIMIT})"

        @classmethod
        def of(cls, kind: str) -> "Rule":
            return cls(kind)

        @staticmethod
        def plural(kind: str) -> str:
            return kind.lower() + "s"

        def same_class(self) -> bool:
            return type(self) is __class__  # the class the method was written in: the record

    rule = Rule.of("Deployment")
    assert (rule.describe(), Rule.plural("Pod"), rule.same_class()) == ("/Deployment (limit 3)", "pods", True)
    assert (Rule.__doc__, Rule.__module__, Rule.__name__) == ("The rule's doc.", __name__, "Rule")
    assert Rule.__qualname__.endswith("test_the_class_keeps_what_its_body_defines_but_field_defaults.<locals>.Rule")
    assert Rule("Pod") == Rule("Pod", "") and hash(Rule("Pod")) == hash(("Pod", ""))
    assert repr(replace(rule, group="apps")).endswith("Rule(kind='Deployment', group='apps')")


def test_a_cache_lives_in_an_extra_slot_and_still_caches():
    computed = []

    @record(eq=False, extra_slots=("_size",))
    class Doc:
        text: str

        @property
        def size(self) -> int:
            try:
                return self._size
            except AttributeError:
                computed.append(self.text)
                self._size = len(self.text)
                return self._size

    doc = Doc("abc")
    assert (doc.size, doc.size, computed) == (3, 3, ["abc"])
    assert not hasattr(doc, "__dict__") and fields(doc) == ("text",)
    assert repr(doc).endswith("Doc(text='abc')") and replace(doc, text="x").size == 1  # no field, not copied


def test_a_references_field_path_is_cached_in_its_slot():
    reference = Reference(None, None, None, ("spec", "volumes", 0, "configMap", "name"), "settings", None, "", False)
    assert not hasattr(reference, "__dict__")
    assert reference.field_path == "spec.volumes[0].configMap.name"
    reference.path = ("spec",)  # only to show the cache answers: a reference's path never changes
    assert reference._field_path == reference.field_path == "spec.volumes[0].configMap.name"


def test_what_needs_an_instance_dict_is_refused_when_the_class_is_defined():
    from functools import cached_property

    with pytest.raises(TypeError, match="cached_property"):
        @record
        class Cached:
            a: int

            @cached_property
            def double(self) -> int:
                return self.a * 2

    class Base:
        pass

    with pytest.raises(TypeError, match="base class"):
        @record
        class Derived(Base):
            a: int

    with pytest.raises(TypeError, match="__slots__"):
        @record
        class Slotted:
            __slots__ = ("cache",)
            a: int

    with pytest.raises(TypeError, match="extra slot 'a'"):
        @record(extra_slots=("a",))
        class Clash:
            a: int
