"""`record`: a dataclass whose methods cost nothing until the class is used.

`dataclasses.dataclass` writes each method it adds as source text and
compiles it when the class is defined, and loading `dataclasses` loads
`inspect`, `ast`, `dis` and `tokenize`: about a millisecond a class plus
9 ms, a quarter of a small render's time for some forty classes, most of
which a given run never instantiates (a stream without ConfigMaps makes no
`Version`, no `Edit`).

`record` compiles the methods instances use in hot loops as they are
first needed: `__init__` when the first instance is made, `__eq__`,
`__hash__` and the order comparisons in one piece when one of them is
first called (most records are never compared). They are the code a
dataclass generates, so instances are built and compared as fast.
`__repr__` and a frozen record's refusal to assign are plain closures.

What a record supports is what postrender's classes use: `frozen`, `eq`,
`order`, defaults, `field(default_factory=..., repr=..., compare=...)`,
`replace` and `fields`. Every annotation in the class body is a field, in
order, but a `ClassVar[...]` one (a class attribute, as for a dataclass;
written `ClassVar`, not `typing.ClassVar`), and a field without a default
cannot follow one with a default. A record has no base class.

A record's instances keep their fields in `__slots__`, not in a `__dict__`:
a render holds some 100,000 of them at once, and a dict each is a third of
their size. So an instance takes no attribute that is not a field, and the
class no longer shows a field's default (`Limits.max_bytes` is the slot; an
instance says the value). A cache an instance fills later goes in a slot of
its own, named in `extra_slots` (`functools.cached_property` needs the
`__dict__`, so a record refuses it). Nothing pickles or copies records:
`replace` makes a changed copy.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T")


class FrozenRecordError(AttributeError):
    """A field of a frozen record was assigned or deleted."""


class Field:
    """What `field()` leaves in the class body, read by `record`."""

    __slots__ = ("default_factory", "repr", "compare")

    def __init__(self, default_factory: Callable[[], Any], repr: bool, compare: bool) -> None:
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare


def field(*, default_factory: Callable[[], Any], repr: bool = True, compare: bool = True) -> Any:
    """A field whose default is made anew for each instance (a list, a dict, ...)."""
    return Field(default_factory, repr, compare)


_NO_DEFAULT = object()
# The methods record writes; a class body that defines one is refused.
_WRITTEN = frozenset({"__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__",
                      "__lt__", "__le__", "__gt__", "__ge__"})


@dataclass_transform(field_specifiers=(field,))
def record(cls: type[T] | None = None, /, *, frozen: bool = False, eq: bool = True, order: bool = False,
           extra_slots: tuple[str, ...] = ()) -> Any:
    """`@record`, `@record(frozen=True)`, `@record(eq=False)`, `@record(order=True)`:
    as `@dataclass` with the same arguments and `slots=True`. `extra_slots`:
    attributes that are not fields (no `__init__` argument, not compared or
    shown), unset until the class's own code sets them: a cache."""

    def make(cls: type[T]) -> type[T]:
        return _prepare(cls, frozen=frozen, eq=eq, order=order, extra_slots=extra_slots)

    return make if cls is None else make(cls)


def fields(obj: Any) -> tuple[str, ...]:
    """The field names of a record class or instance, in order."""
    return obj.__record_fields__


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of a record with some fields changed, as `dataclasses.replace`."""
    values = {name: getattr(obj, name) for name in obj.__record_fields__}  # type: ignore[attr-defined]
    values.update(changes)
    return type(obj)(**values)


def _prepare(cls: type, *, frozen: bool, eq: bool, order: bool, extra_slots: tuple[str, ...]) -> Any:
    written = _WRITTEN & cls.__dict__.keys()
    if written:
        raise TypeError(f"{cls.__name__}: a record writes {', '.join(sorted(written))} itself")
    if order and not eq:
        raise TypeError(f"{cls.__name__}: order=True needs eq=True")
    if cls.__bases__ != (object,):
        raise TypeError(f"{cls.__name__}: a record has no base class")  # a base's __dict__ would come back
    if "__slots__" in cls.__dict__:
        raise TypeError(f"{cls.__name__}: a record writes __slots__ itself; name non-fields in extra_slots")
    cached = [name for name, value in cls.__dict__.items() if isinstance(value, cached_property)]
    if cached:
        raise TypeError(f"{cls.__name__}: cached_property {cached[0]!r} needs an instance __dict__;"
                        " keep the value in a slot named in extra_slots")
    names = tuple(name for name, annotation in cls.__dict__.get("__annotations__", {}).items()
                  if not str(annotation).startswith("ClassVar["))
    defaults: dict[str, Any] = {}
    factories: dict[str, Callable[[], Any]] = {}
    shown: list[str] = []
    compared: list[str] = []
    for name in names:
        value = cls.__dict__.get(name, _NO_DEFAULT)
        if isinstance(value, Field):
            factories[name] = value.default_factory
            if value.repr:
                shown.append(name)
            if value.compare:
                compared.append(name)
            continue
        if value is not _NO_DEFAULT:
            defaults[name] = value
        elif defaults or factories:
            raise TypeError(f"{cls.__name__}: field {name!r} without a default follows one with a default")
        shown.append(name)
        compared.append(name)
    clashes = set(extra_slots) & (set(names) | cls.__dict__.keys())
    if clashes:
        raise TypeError(f"{cls.__name__}: extra slot {sorted(clashes)[0]!r} is already a field or class attribute")
    # A slot is a descriptor on the class, so it cannot share its name with
    # a default there: the record is a new class, its body without the
    # fields' defaults (the compiled __init__ holds them) and without the
    # __dict__ and __weakref__ a slotless class has.
    body = {key: value for key, value in cls.__dict__.items()
            if key not in names and key not in ("__dict__", "__weakref__")}
    body["__slots__"] = names + tuple(extra_slots)
    body["__qualname__"] = cls.__qualname__  # type() keeps it out of the class's __dict__
    cls = type(cls.__name__, cls.__bases__, body)
    _rebind_class_cells(body.values(), cls)

    made = False

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        # The first instance is built field by field; the second compiles
        # the real __init__ and is built with it. Most record classes a run
        # uses make one instance (its options, its analysis), and compiling
        # costs a small chart's render some 0.35 M instructions a class.
        nonlocal made
        if not made:
            made = True
            _init_by_name(self, args, kwargs, names, defaults, factories, frozen)
            return
        del cls.__init__  # type: ignore[misc]
        cls.__init__ = _compile_init(cls, names, defaults, factories, frozen)  # type: ignore[misc]
        cls.__init__(self, *args, **kwargs)  # type: ignore[misc]

    # The comparisons (and a frozen record's __hash__), compiled the first
    # time one of them is called: most records are never compared or hashed
    # (a render's options, its analysis), and compiling costs as much again.
    comparisons = _comparisons(eq, order)
    if eq and frozen:
        comparisons.append("__hash__")
    for method_name in comparisons:
        setattr(cls, method_name, _compiled_on_call(cls, method_name, compared, frozen, eq, order))

    def __repr__(self: Any) -> str:
        shown_values = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{type(self).__qualname__}({shown_values})"

    cls.__record_fields__ = names  # type: ignore[attr-defined]
    cls.__init__ = __init__  # type: ignore[misc]
    cls.__repr__ = __repr__  # type: ignore[method-assign]
    if eq and not frozen:
        cls.__hash__ = None  # type: ignore[assignment]  # as a dataclass: equal by value, so unhashable
    if frozen:
        def __setattr__(self: Any, name: str, value: Any) -> None:
            raise FrozenRecordError(f"cannot assign to field {name!r}")

        def __delattr__(self: Any, name: str) -> None:
            raise FrozenRecordError(f"cannot delete field {name!r}")

        cls.__setattr__ = __setattr__  # type: ignore[method-assign]
        cls.__delattr__ = __delattr__  # type: ignore[method-assign]
    return cls


def _rebind_class_cells(members: Any, cls: type) -> None:
    """Methods that use `__class__` (zero-argument `super()` does) hold the
    class they were defined in: point them at the record that replaces it."""
    for member in members:
        if isinstance(member, (classmethod, staticmethod)):
            member = member.__func__
        functions = (member.fget, member.fset, member.fdel) if isinstance(member, property) else (member,)
        for function in functions:
            code = getattr(function, "__code__", None)
            if code is not None and "__class__" in code.co_freevars:
                function.__closure__[code.co_freevars.index("__class__")].cell_contents = cls


def _init_by_name(self: Any, args: tuple[Any, ...], kwargs: dict[str, Any], names: tuple[str, ...],
                  defaults: dict[str, Any], factories: dict[str, Callable[[], Any]], frozen: bool) -> None:
    """What the compiled __init__ does (_compile_init), read from the fields
    one by one: the same values set, the same calls refused."""
    if len(args) > len(names):
        raise TypeError(f"__init__() takes {len(names) + 1} positional arguments but {len(args) + 1} were given")
    values = dict(zip(names, args))
    for name, value in kwargs.items():
        if name not in names:
            raise TypeError(f"__init__() got an unexpected keyword argument {name!r}")
        if name in values:
            raise TypeError(f"__init__() got multiple values for argument {name!r}")
        values[name] = value
    for name in names:
        if name in values:
            value = values[name]
        elif name in factories:
            value = factories[name]()
        elif name in defaults:
            value = defaults[name]
        else:
            raise TypeError(f"__init__() missing required argument: {name!r}")
        if frozen:
            object.__setattr__(self, name, value)
        else:
            setattr(self, name, value)


def _compile_init(cls: type, names: tuple[str, ...], defaults: dict[str, Any],
                  factories: dict[str, Callable[[], Any]], frozen: bool) -> Callable[..., None]:
    """The __init__ a dataclass would generate for these fields."""
    scope: dict[str, Any] = {"_MISSING": _NO_DEFAULT, "_set": object.__setattr__}
    parameters, body = [], []
    for name in names:
        value = name
        if name in factories:
            scope[f"_factory_{name}"] = factories[name]
            parameters.append(f"{name}=_MISSING")
            value = f"_factory_{name}() if {name} is _MISSING else {name}"
        elif name in defaults:
            scope[f"_default_{name}"] = defaults[name]
            parameters.append(f"{name}=_default_{name}")
        else:
            parameters.append(name)
        # A frozen record refuses setattr, so its __init__ sets through object's.
        body.append(f"_set(self, {name!r}, {value})" if frozen else f"self.{name} = {value}")
    lines = [f"def __init__(self, {', '.join(parameters)}):", *(f"    {line}" for line in body or ["pass"])]
    return _compile(cls, lines, scope)["__init__"]


_OPERATORS = {"__eq__": "==", "__lt__": "<", "__le__": "<=", "__gt__": ">", "__ge__": ">="}


def _comparisons(eq: bool, order: bool) -> list[str]:
    return [name for name in _OPERATORS if name == "__eq__" and eq or name != "__eq__" and order]


def _compiled_on_call(cls: type, method_name: str, compared: list[str], frozen: bool, eq: bool,
                      order: bool) -> Callable[..., Any]:
    """A stand-in for a comparison (or __hash__) that compiles them all, puts
    them on the class in its place, and calls the real one."""

    def compile_and_call(self: Any, *args: Any) -> Any:
        for name, method in _compile_comparisons(cls, compared, frozen, eq, order).items():
            setattr(cls, name, method)
        return getattr(cls, method_name)(self, *args)

    compile_and_call.__name__ = method_name
    compile_and_call.__qualname__ = f"{cls.__qualname__}.{method_name}"
    return compile_and_call


def _compile_comparisons(cls: type, compared: list[str], frozen: bool, eq: bool, order: bool) -> dict[str, Any]:
    """The comparisons and __hash__ a dataclass would generate, in one piece."""
    lines: list[str] = []
    mine = "(" + "".join(f"self.{name}, " for name in compared) + ")"
    theirs = "(" + "".join(f"other.{name}, " for name in compared) + ")"
    for method_name in _comparisons(eq, order):
        lines += [f"def {method_name}(self, other):",
                  "    if other.__class__ is self.__class__:",
                  f"        return {mine} {_OPERATORS[method_name]} {theirs}",
                  "    return NotImplemented"]
    if eq and frozen:
        lines += ["def __hash__(self):", f"    return hash({mine})"]
    return _compile(cls, lines, {})


def _compile(cls: type, lines: list[str], scope: dict[str, Any]) -> dict[str, Any]:
    """The functions `lines` define, named as methods of `cls`."""
    exec("\n".join(lines), scope)  # noqa: S102 - our own source, built from the class's field names
    methods = {key: value for key, value in scope.items() if key.startswith("__") and callable(value)}
    for method in methods.values():
        method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
    return methods
