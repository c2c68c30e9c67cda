"""`postrender gc`'s table: what the cluster names reaches a terminal escaped."""

from datetime import datetime, timedelta, timezone

from postrender.cluster.gc import Decision, Policy
from postrender.cluster.gccommand import _json, _table_text
from postrender.cluster.execute import Outcome
from postrender.cluster.live import LiveVersion

NOW = datetime(2026, 11, 24, tzinfo=timezone.utc)
POLICY = Policy(1, timedelta(0), NOW)


def _version(name: str, namespace: str = "apps") -> LiveVersion:
    return LiveVersion("ConfigMap", namespace, name, "uid-1", "7", NOW - timedelta(hours=2))


def test_control_characters_from_the_cluster_are_escaped() -> None:
    # A custom resource's name may hold an escape sequence (its name is only
    # a path segment), and it reaches the table as the user of a version.
    user = "Widget/evil\x1b]0;owned\x07\x1b[2J"
    decisions = [Decision(_version("cfg-5f7c8d9b6k"), False, f"in use by {user}")]
    text = _table_text(decisions, None, POLICY)
    assert "\x1b" not in text and "\x07" not in text
    assert "in use by Widget/evil\\x1b]0;owned\\x07\\x1b[2J" in text


def test_an_api_error_in_the_result_is_escaped() -> None:
    decision = Decision(_version("cfg-5f7c8d9b6k"), True, "unused, not among the newest 1")
    text = _table_text([decision], [Outcome(decision, "error: forbidden\r\nfake: row")], POLICY)
    assert "\r" not in text and text.count("\n") == 2  # the header and the one row
    assert "error: forbidden\\x0d\\x0afake: row" in text


def test_plain_names_are_written_as_they_are() -> None:
    decisions = [Decision(_version("cfg-5f7c8d9b6k"), True, "unused, not among the newest 1")]
    lines = _table_text(decisions, None, POLICY).splitlines()
    assert lines[0].split() == ["NAMESPACE", "NAME", "AGE", "DECISION", "REASON"]
    assert lines[1].split()[:4] == ["apps", "ConfigMap/cfg-5f7c8d9b6k", "2h", "delete"]


def test_json_output_escapes_control_characters_itself() -> None:
    decisions = [Decision(_version("cfg-5f7c8d9b6k"), False, "in use by Widget/\x1b[2J")]
    text = _json(decisions, None, POLICY)
    assert "\x1b" not in text and "\\u001b[2J" in text
