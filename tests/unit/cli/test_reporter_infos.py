"""Info lines (renamed, rewrote, keeps its name...) cost a string each per
object: they are built only when they go somewhere."""

import io

from postrender.options import RenderOptions
from postrender.pipeline.read.documents import Source
from postrender.pipeline.render import render
from postrender.report import Reporter

STREAM = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: app}
data: {a: "1"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers: [{name: web, image: nginx, envFrom: [{configMapRef: {name: app}}]}]
"""


def _render(reporter: Reporter) -> Reporter:
    render([Source(None, STREAM)], RenderOptions(), reporter)
    return reporter


def test_infos_are_kept_only_when_asked_for():
    quiet = _render(Reporter(stderr=io.StringIO()))
    assert not quiet.wants_info and quiet.infos == []
    kept = _render(Reporter(stderr=io.StringIO(), keep_infos=True))
    assert any(line.startswith("renamed ConfigMap/app -> app-") for line in kept.infos), kept.infos
    assert any(line.startswith("rewrote Deployment/web ") for line in kept.infos), kept.infos


def test_verbose_and_the_log_file_still_get_every_info_line(tmp_path):
    stderr = io.StringIO()
    _render(Reporter(verbose=True, stderr=stderr))
    assert "postrender: renamed ConfigMap/app -> app-" in stderr.getvalue()
    log = tmp_path / "log"
    reporter = Reporter(log_file=str(log), stderr=io.StringIO())
    reporter.open_log()
    assert reporter.wants_info
    _render(reporter)
    reporter.close()
    assert "postrender: rewrote Deployment/web " in log.read_text()


def test_every_reloader_reason_an_object_keeps_its_name_for_is_said_once():
    """`ignore` is no warning, and was taken for one said already: -v said
    nothing of why the object kept its name. Each Reloader reason is said
    once: as a warning, or under -v."""
    from conftest import run_postrender

    def stream(annotation: str) -> str:
        return STREAM.replace("metadata: {name: app}", f"metadata: {{name: app, annotations: {{{annotation}}}}}", 1)

    ignored = run_postrender(["-v"], stream('reloader.stakater.com/ignore: "true"'))
    assert ignored.stderr.count("ConfigMap/app keeps its name: reloader.stakater.com/ignore") == 1, ignored.stderr
    assert "warning" not in ignored.stderr
    quiet = run_postrender([], stream('reloader.stakater.com/ignore: "true"'))
    assert quiet.stderr == ""


def test_lines_shown_are_kept_for_delivery_only_under_a_host_that_hides_stderr(monkeypatch):
    """diagnostics.deliver reads what went to stderr only under a host
    (Helm, a kustomize plugin); elsewhere a warning per document (40,000
    documents each holding a key twice) would be kept for nothing."""
    from postrender import report
    from postrender.diagnostics import Host

    delivered = []
    monkeypatch.setattr(report, "deliver", lambda lines, **_: delivered.append(list(lines)))
    monkeypatch.setattr(report, "host", lambda: None)
    alone = Reporter(stderr=io.StringIO())
    alone.warn("one")
    alone.warn("two")
    assert alone._shown is None
    alone.close()
    assert delivered == [[]]

    asked = []
    monkeypatch.setattr(report, "host", lambda: asked.append(1) or Host("helm 4", False, "/nonexistent/log"))
    hosted = Reporter(stderr=io.StringIO())
    hosted.warn("one")
    hosted.warn("two")
    hosted.close()
    assert delivered[-1] == ["postrender: warning: one", "postrender: warning: two"]
    assert asked == [1]  # asked once, at the first line


DOUBLED = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: app}
data:
  k: v
  k: w
"""


def test_a_plain_render_says_its_warnings_and_keeps_none_of_them():
    """The command line's render and kustomize's exec plugin only write the
    stream out: a warning per document (40,000 documents each holding a key
    twice) was kept three times over, as the reporter's record, read's
    list and the source's, for nothing. graph, diff and a KRM function read
    them, and still get them."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent("""
        import json, sys
        from postrender import cli
        from postrender.pipeline import render as rendering
        real = rendering.render
        def spy(sources, options, reporter, stream=None, release=False):
            result = real(sources, options, reporter, stream, release)
            print(json.dumps([release, len(reporter.warnings), len(result.analysis.warnings),
                              len(result.analysis.stream.warnings), [len(s.left_out) for s in sources]]),
                  file=sys.stderr)
            return result
        rendering.render = spy
        sys.exit(cli.main([]))
    """)
    run = subprocess.run([sys.executable, "-c", script], input=DOUBLED, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    warning, kept = run.stderr.splitlines()
    assert "duplicate key 'k'" in warning
    assert "k: v" not in run.stdout and "k: w" in run.stdout  # the earlier entry left out, as before
    assert kept == "[true, 0, 0, 0, [0]]"

    reporter = Reporter(stderr=io.StringIO())
    render([Source(None, DOUBLED)], RenderOptions(), reporter)
    assert [w.message for w in reporter.warnings] == [warning.split("warning: ", 1)[1]]
