"""diff's indexes against the loops they replaced.

Both loops were quadratic (configs x referrers, moved configs x strings)
and took minutes on thousands of apps; each replacement must give exactly
what the loop gave, which is what these properties check. Their speed is
measured by hand (the closing note's commands), not by a timed test.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from postrender.frontends.diff.compare import _users
from postrender.frontends.diff.pairing import token_mover
from postrender.frontends.diff.side import ConfigId, Link, Referrer, Side, token
from postrender.pipeline.index.objects import IMPLICIT, ObjectKey

# Names as a render may hold them, and the odd ones the API server refuses
# but a rendered file can still hold: `<`, `>`, spaces, a token's own shape.
_NAMES = st.one_of(
    st.sampled_from(["a", "b", "web", "web-config", "x.y"]),
    st.text(alphabet="ab<> /-", min_size=1, max_size=6),
)
_KINDS = st.sampled_from(["ConfigMap", "Secret"])


@st.composite
def _moves(draw) -> dict[ConfigId, ConfigId]:
    """Moves as pairing makes them: one per kind and name, between the
    implicit namespace and one explicit namespace."""
    identities = draw(st.lists(st.tuples(_KINDS, _NAMES), unique=True, max_size=8))
    moves = {}
    for kind, name in identities:
        # A namespace a file may hold that holds a token itself.
        explicit = draw(st.sampled_from(["prod", "shop", "a/b", "<ConfigMap /b>", "x>"]))
        implicit_old = draw(st.booleans())
        before, after = (IMPLICIT, explicit) if implicit_old else (explicit, IMPLICIT)
        moves[ConfigId(kind, before, name)] = ConfigId(kind, after, name)
    return moves


def _each_in_turn(tokens: dict[str, str], text: str) -> str:
    for before, after in tokens.items():
        if before in text:
            text = text.replace(before, after)
    return text


@settings(max_examples=300, deadline=None)
@given(moves=_moves(), data=st.data())
def test_token_mover_replaces_as_each_token_in_turn_did(moves, data):
    tokens = {token(before): token(after) for before, after in moves.items()}
    pieces = st.one_of(
        st.text(alphabet="ab<> /-", max_size=5),
        st.sampled_from(sorted(tokens) or ["<>"]),
        st.sampled_from(sorted(tokens.values()) or ["<>"]),
    )
    text = "".join(data.draw(st.lists(pieces, max_size=8)))
    assert token_mover(tokens)(text) == _each_in_turn(tokens, text)


def test_token_mover_moves_every_token_in_a_string_of_several():
    tokens = {token(ConfigId("ConfigMap", IMPLICIT, f"c{i}")): token(ConfigId("ConfigMap", "prod", f"c{i}"))
              for i in range(3)}
    moved = token_mover(tokens)("x<ConfigMap /c0>y<ConfigMap /c2><ConfigMap /c9>")
    assert moved == "x<ConfigMap prod/c0>y<ConfigMap prod/c2><ConfigMap /c9>"


_CONFIGS = [ConfigId("ConfigMap", ns, n) for ns in ("", "prod") for n in ("a", "b", "c")]


@settings(max_examples=200, deadline=None)
@given(uses=st.lists(st.tuples(st.sampled_from(["web", "db", "api", "job"]), st.sampled_from(["", "prod"]),
                               st.lists(st.sampled_from(_CONFIGS), max_size=4),
                               st.sets(st.sampled_from(_CONFIGS), max_size=2)),
                     unique_by=lambda u: (u[0], u[1]), max_size=6))
def test_users_index_lists_each_configs_users_in_report_order(uses):
    referrers = {}
    for name, namespace, linked, hashed in uses:
        key = ObjectKey("apps", "Deployment", namespace, name)
        referrers[key] = Referrer(key=key, ref=None, templates={}, whole=None,
                                  links=[Link(cid, "spec.volumes") for cid in linked], hashed=set(hashed))
    side = Side(label="NEW", configs={}, referrers=referrers, versions={}, warnings=[], infos=[])
    ordered = [r for _, r in sorted(referrers.items(), key=lambda kv: (kv[0].namespace, kv[0].kind,
                                                                       kv[0].name, kv[0].group))]
    index = _users(side)
    for cid in _CONFIGS:
        expected = [r for r in ordered if cid in r.hashed or any(link.config == cid for link in r.links)]
        assert index.get(cid, []) == expected
    assert all(users for users in index.values())
