"""Fixtures for tests against a real control plane (controlplane.py).

One control plane per test session — so one per xdist worker that runs any
of these tests (xdist's loadgroup cannot pin them to one worker under pytest
9.2: it renames items through an attribute pytest no longer reads) — and one
namespace per test. A missing binary or a control plane that does not come
up fails the tests: they never skip.
"""

from __future__ import annotations

import pytest

from . import controlplane
from .kit import Kube, make_kube


@pytest.fixture(scope="session")
def control_plane(tmp_path_factory):
    try:
        plane = controlplane.start(tmp_path_factory.mktemp("control-plane"))
    except controlplane.ControlPlaneError as exc:
        pytest.fail(f"control plane: {exc}")
    yield plane
    controlplane.stop(plane)


@pytest.fixture
def kube(control_plane, tmp_path, request) -> Kube:
    try:
        control_plane.check_alive()
    except controlplane.ControlPlaneError as exc:
        pytest.fail(f"control plane: {exc}")
    return make_kube(control_plane, tmp_path, request.node.name)
