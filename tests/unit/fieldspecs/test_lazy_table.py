"""The builtin table builds a kind's specs when a render first meets the
kind: what it answers must be what building everything at once answers."""

import pytest

from postrender import fieldspecs
from postrender.errors import UsageError


def _eager() -> fieldspecs.ReferenceTable:
    table = fieldspecs.ReferenceTable()
    table.extend(fieldspecs.builtin_config(), "builtin field specs", lazy=False)
    return table


def test_a_lazy_table_holds_the_eager_specs_in_table_order():
    lazy, eager = fieldspecs.load_table(), _eager()
    assert lazy._unsettled  # nothing asked yet: nothing built
    assert lazy.specs == eager.specs
    assert len(eager.specs) > 1000


def test_each_kind_asked_first_gives_the_eager_answer():
    eager = _eager()
    kinds = {spec.kind for spec in eager.specs}
    lazy = fieldspecs.load_table()
    for kind in sorted(kinds):
        for group, version in (("apps", "v1"), ("", "v1"), ("batch", "v1"), ("example.com", "v1alpha1")):
            got, want = lazy.applicable(kind, group, version), eager.applicable(kind, group, version)
            assert (got and got.specs) == (want and want.specs), (kind, group, version)
        assert lazy.for_kind(kind) == eager.for_kind(kind)
    assert not lazy._unsettled


def test_a_users_specs_follow_the_builtin_ones_and_duplicates_are_dropped():
    deployment = fieldspecs.load_table().for_kind("Deployment")
    again = {"nameReference": [{"kind": "ConfigMap", "fieldSpecs": [
        {"kind": "Deployment", "path": deployment[0].path_text, **({"group": deployment[0].group} if deployment[0].group else {})},
        {"kind": "Deployment", "path": "spec/extra/name"},
    ]}]}
    table = fieldspecs.load_table([("user", again)])
    specs = table.for_kind("Deployment")
    assert specs[:len(deployment)] == deployment
    assert [s.path_text for s in specs[len(deployment):]] == ["spec/extra/name"]


def test_a_users_bad_spec_fails_as_the_configuration_loads():
    bad = {"nameReference": [{"kind": "ConfigMap", "fieldSpecs": [{"kind": "Deployment", "path": "spec/x[y]"}]}]}
    with pytest.raises(UsageError, match=r"user: nameReference\[0\]\.fieldSpecs\[0\]\.path: bad filter"):
        fieldspecs.load_table([("user", bad)])
