"""postrender's output renamed around its versioned names, then rendered again.

An overlay's namePrefix or nameSuffix over a folder of post-rendered
manifests (`kubectl kustomize`, then postrender as the Argo CD plugin runs
it, or postrender as the overlay's own transformer) turns `plain-<hash>` into
`o-plain-<hash>` or `plain-<hash>-s`. The object is still the version it
was: the same content keeps the name, a new content changes only the hash
in it. It once lost the prefix and suffix (`plain-<hash>` again), and a
second overlay over the same base then made two objects of one name.
"""

from __future__ import annotations

import re

import pytest
from ruamel.yaml import YAML

from conftest import run_postrender

APP = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: plain}
data: {x: "1"}
---
apiVersion: v1
kind: Secret
metadata: {name: sec}
stringData: {pw: one}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers:
        - name: c
          image: nginx
          envFrom: [{configMapRef: {name: plain}}, {secretRef: {name: sec}}]
"""
HASHED = re.compile(r"\b(plain|sec)-([0-9a-z]{10})\b")
# How an overlay renames a versioned name `<base>-<hash>`: around it.
FRAMES = {
    "prefix": lambda name: f"o-{name}",
    "suffix": lambda name: f"{name}-s",
    "prefix-and-suffix": lambda name: f"o-{name}-s",
    "nested-prefixes": lambda name: f"o-b-{name}",
}


def _rendered() -> str:
    result = run_postrender(["--keep-original=none"], APP)
    assert result.status == 0, result.stderr
    return result.stdout


def _renamed(text: str, frame) -> str:
    return HASHED.sub(lambda m: frame(m.group(0)), text)


def _names(text: str) -> dict[str, str]:
    return {d["kind"]: d["metadata"]["name"] for d in YAML(typ="safe").load_all(text)}


@pytest.mark.parametrize("frame", sorted(FRAMES))
def test_the_same_content_keeps_the_name_it_was_given_around_its_version(frame):
    overlaid = _renamed(_rendered(), FRAMES[frame])
    assert overlaid != _rendered()
    again = run_postrender([], overlaid)
    assert again.status == 0, again.stderr
    assert again.stdout == overlaid  # was: `o-plain-<hash>` written back as `plain-<hash>`


@pytest.mark.parametrize("frame", sorted(FRAMES))
def test_a_new_content_changes_only_the_hash_inside_the_name(frame):
    before = _names(_renamed(_rendered(), FRAMES[frame]))
    changed = _renamed(_rendered(), FRAMES[frame]).replace('x: "1"', 'x: "2"')
    again = run_postrender(["--keep-original=none"], changed)
    assert again.status == 0, again.stderr
    after = _names(again.stdout)
    old, new = before["ConfigMap"], after["ConfigMap"]
    old_hash, new_hash = HASHED.search(old).group(2), HASHED.search(new).group(2)
    assert old_hash != new_hash and new == old.replace(old_hash, new_hash)
    assert after["Secret"] == before["Secret"]
    web = next(d for d in YAML(typ="safe").load_all(again.stdout) if d["kind"] == "Deployment")
    env_from = web["spec"]["template"]["spec"]["containers"][0]["envFrom"]
    assert [next(iter(e.values()))["name"] for e in env_from] == [new, before["Secret"]]
    # Idempotent from there.
    assert run_postrender(["--keep-original=none"], again.stdout).stdout == again.stdout


def test_two_overlays_of_one_base_keep_their_objects_apart():
    rendered = _rendered()
    both = _renamed(rendered, FRAMES["prefix"]) + "---\n" + _renamed(rendered, lambda n: f"p-{n}").replace(
        "name: web", "name: p-web")
    result = run_postrender([], both.replace("name: web", "name: o-web", 1))
    assert result.status == 0, result.stderr  # was: two objects of one name
    names = [d["metadata"]["name"] for d in YAML(typ="safe").load_all(result.stdout)]
    assert len(names) == len(set(names)) == 6
