"""`record`: a dataclass that costs nothing to define, for the classes every run defines.

`dataclasses.dataclass` writes each method it adds as source text and
compiles it when the class is defined: about a millisecond a class, and a
render defines some forty, which made a fifth of a small render's time.
`record` adds the same methods (`__init__`, `__repr__`, `__eq__`, and for a
frozen record `__hash__` and the refusal to assign) as closures over the
field names: defining a class then costs microseconds.

The price is in the instances: one is built by a generic `__init__`, about
2 µs slower than a dataclass's (and its attribute dict is not shared-key:
some 60 bytes more), and compared or hashed through a generic method. So the
options, tables, rules and results, made a few times per run, are records;
a class with an instance per object, reference or field spec (`Reference`,
`Version`, `Edit`, `FieldSpec`, ...) is a `lazy_dataclass`: a real
dataclass whose methods are compiled when its first instance is made. Many
runs never make one (a stream without ConfigMaps makes no `Version`), and
those that do get a dataclass's fast methods.

What a record supports is what postrender's classes use: `frozen`, `eq`,
defaults, `field(default_factory=..., repr=..., compare=...)`, `replace` and
`fields`. Every annotation in the class body is a field, in order, and a
field without a default cannot follow one with a default (as for a
dataclass). No inheritance between records.
"""

from __future__ import annotations

from collections.abc import Callable
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


@dataclass_transform(field_specifiers=(field,))
def record(cls: type[T] | None = None, /, *, frozen: bool = False, eq: bool = True) -> Any:
    """`@record`, `@record(frozen=True)`, `@record(eq=False)`: as `@dataclass` with the same arguments."""

    def make(cls: type[T]) -> type[T]:
        _add_methods(cls, frozen=frozen, eq=eq)
        return cls

    return make if cls is None else make(cls)


def lazy_dataclass(cls: type[T] | None = None, /, **options: Any) -> Any:
    """`@dataclass(**options)`, applied when the first instance is made."""

    def make(cls: type[T]) -> type[T]:
        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            import dataclasses

            del cls.__init__  # type: ignore[misc]  # dataclass never replaces a class's own __init__
            dataclasses.dataclass(cls, **options)
            cls.__init__(self, *args, **kwargs)  # type: ignore[misc]

        cls.__init__ = __init__  # type: ignore[misc]
        return cls

    return make if cls is None else make(cls)


def fields(obj: Any) -> tuple[str, ...]:
    """The field names of a record class or instance, in order."""
    return obj.__record_fields__


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of a record with some fields changed, as `dataclasses.replace`."""
    values = {name: getattr(obj, name) for name in obj.__record_fields__}  # type: ignore[attr-defined]
    values.update(changes)
    return type(obj)(**values)


def _add_methods(cls: type, *, frozen: bool, eq: bool) -> None:
    written = {"__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"} & cls.__dict__.keys()
    if written:
        raise TypeError(f"{cls.__name__}: a record writes {', '.join(sorted(written))} itself")
    names = tuple(cls.__dict__.get("__annotations__", {}))
    defaults: dict[str, Any] = {}
    factories: list[tuple[str, Callable[[], Any]]] = []
    shown: list[str] = []
    compared: list[str] = []
    for name in names:
        value = cls.__dict__.get(name, _NO_DEFAULT)
        if isinstance(value, Field):
            factories.append((name, value.default_factory))
            delattr(cls, name)  # as a dataclass does: no shared mutable default on the class
            if value.repr:
                shown.append(name)
            if value.compare:
                compared.append(name)
            continue
        if value is not _NO_DEFAULT:
            defaults[name] = value  # stays on the class too, as a dataclass leaves it
        elif defaults or factories:
            raise TypeError(f"{cls.__name__}: field {name!r} without a default follows one with a default")
        shown.append(name)
        compared.append(name)
    count = len(names)
    optional = dict(defaults, **{name: make for name, make in factories})
    first_optional = count - len(optional)  # fields with a default come last
    # What a call with only k positional arguments leaves to fill, for each k
    # it may give: the plain defaults, and the factories to call.
    rest = {k: ({name: defaults[name] for name in names[k:] if name in defaults},
                tuple((name, make) for name, make in factories if name in names[k:]))
            for k in range(first_optional, count + 1)}
    accepted = frozenset(names)
    class_name = cls.__name__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        # Written to the instance's __dict__ directly: a frozen record refuses setattr.
        state = self.__dict__
        state.update(zip(names, args))
        if not kwargs and len(args) in rest:
            plain, made = rest[len(args)]
            state.update(plain)
            for name, make in made:
                state[name] = make()
            return
        if len(args) > count:
            raise TypeError(f"{class_name}() takes {count} arguments but {len(args)} were given")
        if not accepted.issuperset(kwargs) or not state.keys().isdisjoint(kwargs):
            wrong = sorted(set(kwargs) - accepted) or sorted(set(kwargs) & state.keys())
            raise TypeError(f"{class_name}() got an unexpected or repeated argument {wrong[0]!r}")
        state.update(kwargs)
        for name in names[len(args):]:
            if name not in state:
                if name not in optional:
                    raise TypeError(f"{class_name}() missing required argument {name!r}")
                state[name] = defaults[name] if name in defaults else optional[name]()

    def __repr__(self: Any) -> str:
        shown_values = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{type(self).__qualname__}({shown_values})"

    cls.__record_fields__ = names  # type: ignore[attr-defined]
    cls.__init__ = __init__  # type: ignore[misc]
    cls.__repr__ = __repr__  # type: ignore[method-assign]
    if eq:
        compared_names = tuple(compared)

        def values(obj: Any) -> tuple[Any, ...]:
            return tuple([getattr(obj, name) for name in compared_names])

        def __eq__(self: Any, other: Any) -> bool:
            if other.__class__ is self.__class__:
                return values(self) == values(other)
            return NotImplemented

        cls.__eq__ = __eq__  # type: ignore[method-assign]
        # As a dataclass: equal by value, so hashable only when frozen.
        cls.__hash__ = (lambda self: hash(values(self))) if frozen else None  # type: ignore[method-assign,assignment]
    if frozen:
        def __setattr__(self: Any, name: str, value: Any) -> None:
            raise FrozenRecordError(f"cannot assign to field {name!r}")

        def __delattr__(self: Any, name: str) -> None:
            raise FrozenRecordError(f"cannot delete field {name!r}")

        cls.__setattr__ = __setattr__  # type: ignore[method-assign]
        cls.__delattr__ = __delattr__  # type: ignore[method-assign]
