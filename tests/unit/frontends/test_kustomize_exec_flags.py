"""The flags kustomize passes the exec plugin (argsOneLiner, argsFromFile)
may not move the stream: kustomize sends it on standard input and reads it
from standard output. `-o FILE` wrote it to the file and left kustomize 0
bytes, exit 0; `--krm` was ignored; a second --plugin-config was read
instead of kustomize's. Refused, as file arguments already were."""

import pytest

from conftest import run_postrender

STREAM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n"


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "postrender.yaml"
    path.write_text("apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {name: p}\nversionAll: true\n")
    return path


@pytest.mark.parametrize("words,flag", [
    (["-o", "{out}"], "-o/--output"),
    (["--output", "{out}"], "-o/--output"),
    (["--output={out}"], "-o/--output"),
    (["-o{out}"], "-o/--output"),
    (["--krm"], "--krm"),
    (["--plugin-config", "{config}"], "a second --plugin-config"),
])
def test_flags_that_move_the_stream_are_refused(tmp_path, config, words, flag):
    out = tmp_path / "diverted.yaml"
    args = [w.format(out=out, config=config) for w in words]
    result = run_postrender(["--plugin-config", str(config), *args], STREAM)
    assert result.status == 2 and result.stdout == ""
    assert result.stderr.startswith(f"postrender: error: {flag} is not available with --plugin-config")
    assert not out.exists()


@pytest.mark.parametrize("words", [["-f", "{stream}"], ["-"], ["{stream}"]])
def test_inputs_other_than_standard_input_are_refused(tmp_path, config, words):
    stream = tmp_path / "other.yaml"
    stream.write_text(STREAM)
    result = run_postrender(["--plugin-config", str(config), *[w.format(stream=stream) for w in words]], STREAM)
    assert result.status == 2 and "reads the resources from standard input" in result.stderr


def test_flags_that_keep_the_channels_still_work(tmp_path, config):
    # A log beside stderr, and render options, change neither channel.
    log = tmp_path / "postrender.log"
    result = run_postrender(["--plugin-config", str(config), "--log-file", str(log), "-v", "--mutable"], STREAM)
    assert result.status == 0, result.stderr
    assert "name: c-" in result.stdout and "immutable" not in result.stdout
    assert "renamed ConfigMap/c" in log.read_text()


@pytest.mark.parametrize("order", ["file first", "flag first"])
def test_a_file_not_holding_kustomize_s_config_string_is_read_as_input(tmp_path, config, order):
    """KUSTOMIZE_PLUGIN_CONFIG_STRING reaches whatever a script kustomize
    runs runs in turn. Its first word is the config file only when that
    file holds exactly the string, as kustomize writes it: `postrender
    FILE -n shop` read FILE as a config ("expected one PostRender object")."""
    stream = tmp_path / "stream.yaml"
    stream.write_text(STREAM + "---\n" + STREAM.replace("name: c", "name: d"))
    words = [str(stream), "-n", "shop"] if order == "file first" else ["-n", "shop", str(stream)]
    result = run_postrender(words, env={"KUSTOMIZE_PLUGIN_CONFIG_STRING": config.read_text()})
    assert result.status == 0, result.stderr
    assert "name: d" in result.stdout and "PostRender" not in result.stdout
    # The config file kustomize wrote, named first: read as the config (versionAll).
    as_plugin = run_postrender([str(config)], STREAM, env={"KUSTOMIZE_PLUGIN_CONFIG_STRING": config.read_text()})
    assert as_plugin.status == 0, as_plugin.stderr
    assert "name: c-" in as_plugin.stdout  # versioned, unreferenced: versionAll came from the config


@pytest.mark.parametrize("written, said", [
    ('"true"', "mutable must be true or false unquoted (a boolean), not the string 'true'"),
    ("'False'", "mutable must be true or false unquoted (a boolean), not the string 'False'"),
    ("yes", "mutable must be true or false unquoted (a boolean), not the string 'yes'"),
    ("1", "mutable must be true or false, not 1"),
])
def test_a_quoted_boolean_is_said_to_be_a_string(tmp_path, written, said):
    # "mutable must be true or false, not 'true'" read as a contradiction (newcomer60).
    path = tmp_path / "postrender.yaml"
    path.write_text(f"apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {{name: p}}\nmutable: {written}\n")
    result = run_postrender(["--plugin-config", str(path)], STREAM)
    assert result.status == 2 and result.stdout == ""
    assert said in result.stderr, result.stderr
