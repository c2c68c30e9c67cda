"""The README's CI recipes for `postrender diff`, run as written.

The GitHub Actions and GitLab CI snippets are read out of README.md; their
render steps (a git worktree of the base, `helm template` of base and head,
`postrender diff` with the head on standard input) run in a real git
repository whose two commits change the fixture chart's values. Installing
tools and posting the comment need the network and a forge: those steps are
checked for what they call, not run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from conftest import ROOT, require_tool
from manifests import CHART, tool_env

MARKER = "<!-- postrender-diff -->"


def _snippet(after: str) -> dict:
    """The first ```yaml block after the line naming `after` in the README."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("<!-- section: diff -->"):readme.index("<!-- end: diff -->")]
    start = section.index("```yaml\n", section.index(after)) + len("```yaml\n")
    return YAML(typ="safe").load(section[start:section.index("```", start)])


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str, dict[str, str]]:
    """A repository whose head commit changes the greeting in values-prod.yaml."""
    helm = require_tool("helm3")
    git = require_tool("git")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "helm").symlink_to(helm)  # CI images call it `helm`
    env = tool_env(HELM_CACHE_HOME=str(tmp_path / "cache"), HELM_CONFIG_HOME=str(tmp_path / "config"),
                   HELM_DATA_HOME=str(tmp_path / "data"), KUBECONFIG=str(tmp_path / "no-kubeconfig"),
                   GIT_CONFIG_GLOBAL=os.devnull, GIT_AUTHOR_NAME="ci", GIT_AUTHOR_EMAIL="ci@example.com",
                   GIT_COMMITTER_NAME="ci", GIT_COMMITTER_EMAIL="ci@example.com")
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    work = tmp_path / "repo"
    shutil.copytree(CHART, work / "charts" / "app")

    def run(*args: str) -> str:
        done = subprocess.run([git, *args], cwd=work, capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    run("init", "-q", "-b", "main")
    run("add", ".")
    run("commit", "-qm", "base")
    base = run("rev-parse", "HEAD")
    values = work / "charts" / "app" / "values-prod.yaml"
    values.write_text(values.read_text().replace("greeting: bonjour", "greeting: hola"))
    run("commit", "-qam", "head: a new greeting")
    return work, base, env


def _installs_this_release(command: str) -> bool:
    """postrender is not on PyPI: a recipe installs the release tag of this
    version from the repository pyproject.toml names (scripts/release
    refuses a tag other than v<version>)."""
    from postrender import __version__

    homepage = re.search(r'^Homepage = "(.*)"$', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    return command.split()[:2] in (["pip", "install"], ["pipx", "install"]) and \
        command.split()[2] == f'"git+{homepage}@v{__version__}"'


def _check_comment(work: Path) -> None:
    comment = (work / "diff.md").read_text()
    assert comment.startswith(MARKER + "\n### postrender diff\n")
    rolls = comment.split("#### Rolls because its config changed")[1].split("####")[0]
    for workload in ("Deployment/app-web", "CronJob/app-report"):
        assert f"`{workload}`" in rolls
    # The pre-upgrade hook keeps its names: listed, but not as rolling.
    assert "`Job/app-migrate`" not in rolls and "`Job/app-migrate`" in comment
    assert "ConfigMap/app-settings" in rolls and "changed: greeting" in rolls
    # The pre-upgrade hook, listed first: it runs before the release is applied.
    held = comment.split("#### Does not roll, though its config changed")[1].split("####")[0]
    assert "`Job/app-migrate`" in held and "`Job/app-migrate`" not in rolls
    assert "Secret/" not in comment.split("#### Config changes")[1].split("####")[0]


def test_github_actions_recipe_renders_base_and_head_and_writes_the_comment(repo):
    work, base, env = repo
    workflow = _snippet(".github/workflows/postrender-diff.yml")
    assert workflow["permissions"]["pull-requests"] == "write"
    steps = {step.get("name"): step for step in workflow["jobs"]["diff"]["steps"]}
    render = steps["Render base and head, compare"]
    assert render["shell"] == "bash"  # GitHub then runs `bash -eo pipefail`
    step_env = {key: str(value) for key, value in render["env"].items()}
    assert step_env.pop("BASE") == "${{ github.event.pull_request.base.sha }}"
    result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", render["run"]], cwd=work,
                            capture_output=True, text=True, env={**env, **step_env, "BASE": base})
    assert result.returncode == 0, result.stderr
    _check_comment(work)
    (install,) = [step["run"] for step in workflow["jobs"]["diff"]["steps"] if "install" in step.get("run", "")]
    assert _installs_this_release(install)
    comment = steps["Comment"]["run"]
    assert re.search(r"gh pr comment .* --edit-last --create-if-none --body-file diff\.md", comment)


def test_gitlab_ci_recipe_renders_base_and_head_and_writes_the_note(repo):
    work, base, env = repo
    job = _snippet("`.gitlab-ci.yml`")["postrender-diff"]
    assert job["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    variables = {key: str(value) for key, value in job["variables"].items()}
    assert variables.pop("GIT_DEPTH") == "0"  # the base commit must be in the clone
    script = job["script"]
    # Installing pip packages and Helm needs the network; the rest runs as written.
    installs = [line for line in script if line.startswith(("pip install", "curl -fsSL"))]
    assert len(installs) == 2
    assert _installs_this_release(installs[0])
    render = [line for line in script[:-1] if line not in installs]
    assert render[0] == "set -o pipefail"
    result = subprocess.run(["bash", "-e", "-c", "\n".join(render)], cwd=work, capture_output=True, text=True,
                            env={**env, **variables, "CI_MERGE_REQUEST_DIFF_BASE_SHA": base})
    assert result.returncode == 0, result.stderr
    _check_comment(work)
    post = script[-1]
    assert post.startswith("curl --fail-with-body --request POST")
    assert '--data-urlencode "body@diff.md"' in post
    assert post.endswith('"$CI_API_V4_URL/projects/$CI_PROJECT_ID/merge_requests/$CI_MERGE_REQUEST_IID/notes"')
