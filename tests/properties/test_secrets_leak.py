"""No Secret value reaches stderr, the log file, `graph` output, KRM `results`
or an error message: only stdout may carry it.

A random marker is planted in a Secret of generated streams, raw in
`stringData` or base64 in `data`, and each stream is also broken in ways
that trip an error right at that Secret.
"""

from __future__ import annotations

import base64
import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

import manifest_strategies as ms
from conftest import run_postrender

MARKER_CHARS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no lowercase: generated names never contain these
markers = st.text(MARKER_CHARS, min_size=16, max_size=24).map(lambda s: "ZQ" + s)


def forms(marker: str) -> list[str]:
    """Every way the value could show up: raw, base64, and base64 without padding."""
    encoded = base64.b64encode(marker.encode()).decode()
    return [marker, encoded, encoded.rstrip("="), marker[2:14]]


def _secret_block(marker: str, fault: str) -> str:
    """A Secret whose value is the marker, broken as `fault` says."""
    head = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: leaky\n"
    encoded = base64.b64encode(marker.encode()).decode()
    if fault == "not-base64":
        return head + f"data:\n  token: {marker}!\n"
    if fault == "mapping-value":
        return head + f"data:\n  token: {{inner: {marker}}}\n"
    if fault == "sequence-value":
        return head + f"stringData:\n  token: [{marker}]\n"
    if fault == "number-looking":
        return head + f"data:\n  token: {encoded}\n  port: 8080\n"
    if fault == "duplicate-key":
        return head + f"stringData:\n  token: {marker}\n  token: {marker}x\n"
    if fault == "unclosed-quote":
        return head + f'stringData:\n  token: "{marker}\n'
    if fault == "control-char":
        return head + f'stringData:\n  token: "{marker[:6]}\x01{marker[6:]}"\n'
    if fault == "bad-escape":
        return head + f'stringData:\n  token: "{marker[:6]}\\q{marker[6:]}"\n'
    if fault == "tab-indent":
        return head + f"stringData:\n  token: {marker}\n\tother: x\n"
    if fault == "no-name":
        return f"apiVersion: v1\nkind: Secret\nmetadata: {{}}\nstringData:\n  token: {marker}\n"
    if fault == "alias-bomb":
        lines = [head.rstrip("\n"), f"x:\n  l0: &l0 [{marker}, {marker}, {marker}, {marker}, {marker}, {marker}, {marker}]"]
        lines += [f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 9)]
        return "\n".join(lines) + "\nstringData: {token: *l8}\n"
    if fault == "deep":
        return head + "stringData:\n  token: " + "[" * 600 + marker + "]" * 600 + "\n"
    if fault == "line-separator":
        return head + f"stringData:\n  token: {marker[:6]}\u2028{marker[6:]}\n"
    if fault == "duplicate-object":
        return head + f"stringData:\n  token: {marker}\n---\n" + head + f"stringData:\n  token: {marker}\n"
    if fault == "type-mapping":
        return head + f"type: {{a: b}}\nstringData:\n  token: {marker}\n"
    if fault == "scalar-document":
        return head + f"stringData:\n  token: {marker}\n---\nloose words\n"
    raise AssertionError(fault)


FAULTS = ["not-base64", "mapping-value", "sequence-value", "number-looking", "duplicate-key", "unclosed-quote",
          "control-char", "bad-escape", "tab-indent", "no-name", "alias-bomb", "deep", "line-separator",
          "duplicate-object", "type-mapping", "scalar-document"]


def _results_of(stdout: str) -> object:
    """The `results` of a KRM ResourceList written to stdout."""
    if not stdout:
        return None  # input not recognised as a ResourceList: a plain-mode error
    data = YAML(typ="safe").load(stdout)
    assert isinstance(data, dict) and data.get("kind") == "ResourceList", stdout[:200]
    return data.get("results")


GRAPH_FORMATS = ["table", "json", "dot", "mermaid"]


def _check(
    marker: str, text: str | bytes, tmp_path: Path, krm_text: str | None = None, graph_formats: list[str] = GRAPH_FORMATS
) -> list[int]:
    """Run render, graph and KRM mode on the input; assert the marker stays on stdout only."""
    statuses = []
    log = tmp_path / "postrender.log"
    for args in (["-v"], *(["graph", "-o", f] for f in graph_formats)):
        if log.exists():
            log.unlink()
        result = run_postrender([*args, "--log-file", str(log)], text)
        statuses.append(result.status)
        assert result.status in (0, 1), (args, result.stderr)
        logged = log.read_text() if log.exists() else ""
        channels = {"stderr": result.stderr, "log file": logged}
        if args[0] == "graph":
            channels["graph output"] = result.stdout
        for channel, content in channels.items():
            for form in forms(marker):
                assert form not in content, f"{form} leaked to {channel} with {args}: {content[:500]}"
    if krm_text is not None:
        result = run_postrender([], krm_text)
        assert result.status in (0, 1), result.stderr
        results = repr(_results_of(result.stdout))
        for channel, content in {"stderr": result.stderr, "KRM results": results}.items():
            for form in forms(marker):
                assert form not in content, f"{form} leaked to {channel} in KRM mode: {content[:500]}"
    return statuses


@settings(max_examples=int(os.environ.get("POSTRENDER_FUZZ_EXAMPLES") or 60), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), marker=markers)
def test_secret_values_stay_on_stdout_when_rendering_succeeds(data, marker, tmp_path):
    stream, text = data.draw(ms.written(ms.streams(marker)))
    docs = [data.draw(ms.document_text(m)) for m in stream.manifests]
    graph_format = data.draw(st.sampled_from(GRAPH_FORMATS))
    statuses = _check(marker, text, tmp_path, ms.resource_list(docs), [graph_format])
    assert statuses == [0] * len(statuses)
    # The marker did go somewhere: stdout.
    out = run_postrender([], text).stdout
    assert marker in out or base64.b64encode(marker.encode()).decode() in out


@settings(max_examples=int(os.environ.get("POSTRENDER_FUZZ_EXAMPLES") or 100), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), marker=markers, fault=st.sampled_from(FAULTS))
def test_secret_values_stay_out_of_errors(data, marker, fault, tmp_path):
    stream, _ = data.draw(ms.written(ms.streams()))
    docs = [data.draw(ms.document_text(m)) for m in stream.manifests]
    position = data.draw(st.integers(0, len(docs)))
    docs.insert(position, _secret_block(marker, fault))
    text = "".join("---\n" + d for d in docs)
    graph_format = data.draw(st.sampled_from(GRAPH_FORMATS))
    statuses = _check(marker, text, tmp_path, ms.resource_list(docs), [graph_format])
    assert statuses[0] == 1, f"{fault} should be refused"


@pytest.mark.parametrize("fault", FAULTS)
def test_each_fault_is_refused_without_the_value(fault, tmp_path):
    marker = "ZQSECRETMARKERVALUE"
    text = _secret_block(marker, fault)
    statuses = _check(marker, text.encode(), tmp_path)
    assert statuses[0] == 1
    invalid = text.encode().replace(marker.encode(), marker[:8].encode() + b"\xff" + marker[8:].encode())
    assert _check(marker, invalid, tmp_path)[0] == 1


def test_verbose_output_names_but_never_shows_values(tmp_path):
    marker = "ZQVERBOSEMARKER"
    text = (
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\nstringData:\n  token: " + marker + "\n---\n"
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: p\nspec:\n  template:\n    spec:\n"
        "      containers:\n      - name: c\n        image: x\n"
        "        envFrom:\n        - secretRef:\n            name: creds\n"
    )
    log = tmp_path / "log"
    result = run_postrender(["-v", "--log-file", str(log)], text)
    assert result.status == 0
    assert "renamed Secret/creds" in result.stderr and "rewrote Deployment/p" in result.stderr
    for form in forms(marker):
        assert form not in result.stderr and form not in log.read_text()


def test_log_file_is_created_private(tmp_path):
    old = os.umask(0)
    try:
        log = tmp_path / "new.log"
        assert run_postrender(["--log-file", str(log)], "").status == 0
        assert stat.S_IMODE(log.stat().st_mode) == 0o600
        # A log that already exists with looser permissions is tightened.
        loose = tmp_path / "loose.log"
        loose.write_text("")
        loose.chmod(0o644)
        assert run_postrender(["--log-file", str(loose)], "").status == 0
        assert stat.S_IMODE(loose.stat().st_mode) == 0o600
        # And through the environment variable.
        from_env = tmp_path / "env.log"
        assert run_postrender([], "", env={"POSTRENDER_LOG_FILE": str(from_env)}).status == 0
        assert stat.S_IMODE(from_env.stat().st_mode) == 0o600
    finally:
        os.umask(old)
