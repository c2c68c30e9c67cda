"""The guard's stale names (check/guard.py _stale_names), held by the name
alone since stop 70, answer as the (kind, namespace, name) -> version table
they replaced: where several kinds and namespaces hold one name, a version
is added again for its place, and names the output holds are dropped."""

import random
from types import SimpleNamespace

import pytest

from postrender.pipeline.check import guard
from postrender.pipeline.index.objects import IMPLICIT

KINDS = ("ConfigMap", "Secret")
NAMESPACES = (IMPLICIT, "a", "b")
NAMES = ("web", "db", "cache")


class _Index:
    cluster_scoped = frozenset()

    @staticmethod
    def namespace_of(obj):
        return obj.namespace or IMPLICIT


def _version(kind, namespace, name, base_name, serial):
    # Renamed, as the plan's versions are: neither old name is the new one.
    obj = SimpleNamespace(kind=kind, namespace=namespace, name=name)
    return SimpleNamespace(obj=obj, base_name=base_name, name=f"{name}-{serial}", serial=serial)


def _table(versioned, alive):
    """The table the guard made before stop 70, keyed by (kind, namespace, name)."""
    table = {}
    for version in versioned:
        for old in (version.base_name, version.obj.name):
            table[(version.obj.kind, version.obj.namespace or IMPLICIT, old)] = version
    for name in alive:
        table.pop(name, None)
    return table


def _table_lookup(table, kind, namespace, name, any_namespace):
    """The lookup the guard made before stop 70, over the tuple-keyed table."""
    exact = table.get((kind, namespace, name))
    if exact is not None:
        return exact
    first = next((v for (k, _, n), v in table.items() if (k, n) == (kind, name)), None)
    if first is None:
        return None
    if any_namespace or namespace == IMPLICIT:
        return first
    return table.get((kind, IMPLICIT, name))


@pytest.mark.parametrize("seed", range(200))
def test_stale_names_answer_as_a_table_of_kind_namespace_and_name(seed):
    chosen = random.Random(seed)
    versioned = []
    for serial in range(chosen.randrange(1, 12)):
        kind, namespace = chosen.choice(KINDS), chosen.choice(NAMESPACES)
        name = chosen.choice(NAMES)
        # Most often the base name is the object's; now and then another (a kustomize generator's).
        base_name = name if chosen.random() < 0.7 else chosen.choice(NAMES)
        versioned.append(_version(kind, namespace, name, base_name, serial))
    alive = [(chosen.choice(KINDS), chosen.choice(NAMESPACES), chosen.choice(NAMES))
             for _ in range(chosen.randrange(0, 6))]
    index = _Index()
    graph = SimpleNamespace(index=index)
    the_plan = SimpleNamespace(versioned=versioned, each_alive_name=lambda _: iter(alive))
    stale, table = guard._stale_names(graph, the_plan), _table(versioned, alive)
    assert set(stale) == {name for _, _, name in table}
    for kind in KINDS:
        for namespace in NAMESPACES:
            for name in NAMES:
                for any_namespace in (False, True):
                    assert guard._lookup(stale, index, kind, namespace, name, any_namespace) is \
                        _table_lookup(table, kind, namespace, name, any_namespace)


def test_a_name_every_tenant_holds_takes_linear_work():
    # A stream of many tenants holds the same name in every namespace: each
    # place added, dropped or looked up is a step, not a search of the
    # places so far (a list searched so took 5,000 tenants' guard three
    # times as long as their render).
    tenants = 2000
    asked = []

    class Counting(_Index):
        @staticmethod
        def namespace_of(obj):
            asked.append(obj)
            return obj.namespace or IMPLICIT

    versioned = [_version(kind, f"t{i}", "cfg", "cfg", 2 * i + (kind == "Secret"))
                 for i in range(tenants) for kind in KINDS]
    alive = [("ConfigMap", f"t{i}", "cfg") for i in range(0, tenants, 2)]
    index = Counting()
    the_plan = SimpleNamespace(versioned=versioned, each_alive_name=lambda _: iter(alive))
    stale = guard._stale_names(SimpleNamespace(index=index), the_plan)
    for i in range(tenants):
        for kind in KINDS:
            found = guard._lookup(stale, index, kind, f"t{i}", "cfg", False)
            assert (found is None) == (kind == "ConfigMap" and i % 2 == 0)
    assert len(asked) <= 4 * len(versioned), len(asked)
