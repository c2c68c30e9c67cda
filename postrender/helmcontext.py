"""The namespace, release and cluster of the Helm that runs postrender.

Neither Helm 3 nor Helm 4 tells a post-renderer any of them: a Helm 4
plugin gets only HELM_PLUGIN_NAME, HELM_PLUGIN_DIR and HELM_PLUGINS, and a
Helm 3 post-renderer only the environment Helm itself was started with. So
postrender reads them where Helm does: Helm's command line (the parent
process, or the first ancestor past shells) and Helm's environment, with
Helm's own precedence — a flag, then HELM_NAMESPACE / HELM_KUBECONTEXT, then
the kubeconfig's context, then "default".

Whatever cannot be read for certain is reported as a doubt: a render then
keeps postrender's own defaults, and `--retain` refuses to guess a cluster.
Nothing here talks to a cluster; it runs once per process, not per object.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Mapping
from typing import Protocol

from .kubeconfig import KubeconfigError, merged
from .records import record, replace
from .errors import UsageError
from .options import RenderOptions, check_namespace

COMMANDS = ("install", "upgrade", "template")
# Helm's default release name for `helm template CHART`.
TEMPLATE_DEFAULT_RELEASE = "release-name"

# --- Helm's flags --------------------------------------------------------------
# Which of Helm's flags take a value (`--flag VALUE` as well as `--flag=VALUE`)
# and which do not (booleans, and --dry-run/--wait, whose value is optional and
# so only ever given with `=`). Helm 3.17 and 4.1 together, from `helm COMMAND
# --help`; tests/integration/helm/test_helmcontext.py checks the tables against both binaries.
# A flag in neither list stops the reading: it could swallow the next word.
_GLOBAL_VALUE = frozenset(
    "burst-limit color colour content-cache kube-apiserver kube-as-group kube-as-user kube-ca-file "
    "kube-context kube-tls-server-name kube-token kubeconfig namespace qps registry-config "
    "repository-cache repository-config".split()
)
_GLOBAL_FLAG = frozenset("debug help kube-insecure-skip-tls-verify".split())
_COMMON_VALUE = frozenset(
    "ca-file cert-file description key-file keyring labels password post-renderer post-renderer-args "
    "repo set set-file set-json set-literal set-string timeout username values version".split()
)
_COMMON_FLAG = frozenset(
    "atomic create-namespace dependency-update devel disable-openapi-validation dry-run enable-dns force "
    "force-conflicts force-replace hide-notes insecure-skip-tls-verify no-hooks pass-credentials plain-http "
    "render-subchart-notes rollback-on-failure skip-crds skip-schema-validation take-ownership verify wait "
    "wait-for-jobs".split()
)
_COMMAND_VALUE = {
    "install": _COMMON_VALUE | {"name-template", "output"},
    "upgrade": _COMMON_VALUE | {"history-max", "output", "server-side"},
    "template": _COMMON_VALUE | {"api-versions", "kube-version", "name-template", "output-dir", "show-only"},
}
_COMMAND_FLAG = {
    "install": _COMMON_FLAG | {"generate-name", "hide-secret", "replace", "server-side"},
    "upgrade": _COMMON_FLAG | {"cleanup-on-fail", "hide-secret", "install", "reset-then-reuse-values",
                               "reset-values", "reuse-values"},
    "template": _COMMON_FLAG | {"generate-name", "include-crds", "is-upgrade", "release-name", "replace",
                                "server-side", "skip-tests", "validate"},
}
_SHORT = {"a": "api-versions", "f": "values", "g": "generate-name", "h": "help", "i": "install",
          "l": "labels", "n": "namespace", "o": "output", "s": "show-only"}
_TRUE = {"1", "t", "T", "true", "TRUE", "True"}

# Programs between Helm and postrender that do not change what Helm was told:
# the shell of a wrapper script (Helm 3 runs a path, Helm 4 a plugin command).
_PASS_THROUGH = frozenset("sh bash dash zsh ksh mksh ash busybox env nice nohup timeout stdbuf".split())
_HELM_PROGRAM = re.compile(r"helm(?:[-_.]?v?\d[\w.]*)?(?:\.exe)?", re.IGNORECASE)
_MAX_HOPS = 32

_SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"


@record(frozen=True)
class HelmContext:
    """What Helm was told, as far as postrender can learn it."""

    major: int  # 3 or 4
    pid: int | None  # Helm's process; None when only the environment says Helm runs us
    command: str | None = None  # install, upgrade or template
    release: str | None = None
    namespace: str | None = None  # as Helm resolves it, "default" included
    kubeconfig: str | None = None  # Helm's --kubeconfig, absolute; None: $KUBECONFIG as postrender reads it
    context: str | None = None  # --kube-context or HELM_KUBECONTEXT; None: the kubeconfig's current one
    cache_home: str | None = None  # Helm's cache directory (HELM_CACHE_HOME and XDG rules)
    output_dir: bool = False  # `helm template --output-dir`: Helm 3 then gives its post-renderer nothing
    # Why the command line was not fully understood: release, namespace and
    # context may then be wrong or missing.
    doubt: str | None = None
    # Why Helm's connection cannot be replicated although it was understood.
    cluster_doubt: str | None = None

    @property
    def hooks_hidden(self) -> bool:
        """Helm 3 renders hooks apart and never shows them to a post-renderer."""
        return self.major == 3

    def describe(self) -> str:
        """`helm 4 upgrade: release web, namespace shop, context live` (names only)."""
        details = [f"{what} {value}" for what, value in
                   (("release", self.release), ("namespace", self.namespace), ("context", self.context)) if value]
        head = f"helm {self.major}" + (f" {self.command}" if self.command else "")
        return head + (": " + ", ".join(details) if details else "")


@record(frozen=True)
class CommandLine:
    """Helm's command line, read with Helm's flag rules (spf13/pflag)."""

    command: str | None
    positionals: tuple[str, ...]
    values: Mapping[str, str]  # long flag name -> last value given
    doubt: str | None  # set when the reading stopped early

    def flag(self, name: str) -> bool:
        return self.values.get(name, "false") in _TRUE


def parse_command_line(argv: list[str]) -> CommandLine:
    command: str | None = None
    positionals: list[str] = []
    values: dict[str, str] = {}
    doubt: str | None = None
    args = argv[1:]
    i = 0
    while i < len(args) and doubt is None:
        token = args[i]
        i += 1
        if token == "--":
            positionals.extend(args[i:])
            break
        if token.startswith("--") and len(token) > 2:
            name, has_value, value = token[2:].partition("=")
            takes = _takes_value(name, command)
            if takes is None:
                if not has_value:
                    doubt = f"Helm's command line has a flag postrender does not know (--{name})"
                continue
            if takes and not has_value:
                if i >= len(args):
                    doubt = f"--{name} has no value"
                    break
                value = args[i]
                i += 1
            values[name] = value if takes or has_value else "true"
        elif token.startswith("-") and len(token) > 1:
            i, doubt = _short_flags(token, args, i, command, values)
        elif command is None:
            command = token
        else:
            positionals.append(token)
    return CommandLine(command, tuple(positionals), values, doubt)


def _short_flags(token: str, args: list[str], i: int, command: str | None,
                 values: dict[str, str]) -> tuple[int, str | None]:
    """`-n ns`, `-nns`, `-n=ns` and clusters of booleans such as `-gi`."""
    j = 1
    while j < len(token):
        name = _SHORT.get(token[j])
        takes = _takes_value(name, command) if name else None
        if name is None or takes is None:
            return i, f"Helm's command line has a flag postrender does not know (-{token[j]})"
        if takes:
            rest = token[j + 1:]
            rest = rest[1:] if rest.startswith("=") else rest
            if not rest:
                if i >= len(args):
                    return i, f"-{token[j]} has no value"
                rest, i = args[i], i + 1
            values[name] = rest
            return i, None
        values[name] = "true"
        j += 1
    return i, None


def _takes_value(name: str, command: str | None) -> bool | None:
    if name in _GLOBAL_VALUE:
        return True
    if name in _GLOBAL_FLAG:
        return False
    commands = [command] if command in _COMMAND_VALUE else list(_COMMAND_VALUE)
    takes = ({True for c in commands if name in _COMMAND_VALUE[c]}
             | {False for c in commands if name in _COMMAND_FLAG[c]})
    return takes.pop() if len(takes) == 1 else None


# --- processes -----------------------------------------------------------------


class Processes(Protocol):
    """Read-only facts about other processes of this user."""

    exact: bool  # False when command lines come back as one string split on blanks

    def parent(self, pid: int) -> int | None: ...

    def argv(self, pid: int) -> list[str] | None: ...

    def environ(self, pid: int) -> dict[str, str] | None: ...

    def cwd(self, pid: int) -> str | None: ...


class ProcFS:
    """Linux: /proc/PID/{stat,cmdline,environ,cwd}."""

    exact = True

    def __init__(self, root: str = "/proc"):
        self.root = root

    def parent(self, pid: int) -> int | None:
        try:
            with open(f"{self.root}/{pid}/stat", "rb") as handle:
                stat = handle.read()
            # The program name in parentheses may itself hold blanks and parentheses.
            return int(stat[stat.rindex(b")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            return None

    def argv(self, pid: int) -> list[str] | None:
        data = self._read(pid, "cmdline")
        return None if not data else [a.decode("utf-8", "surrogateescape") for a in data.rstrip(b"\0").split(b"\0")]

    def environ(self, pid: int) -> dict[str, str] | None:
        data = self._read(pid, "environ")
        return None if data is None else _environ(data.split(b"\0"))

    def cwd(self, pid: int) -> str | None:
        try:
            return os.readlink(f"{self.root}/{pid}/cwd")
        except OSError:
            return None

    def _read(self, pid: int, what: str) -> bytes | None:
        try:
            with open(f"{self.root}/{pid}/{what}", "rb") as handle:
                return handle.read()
        except OSError:
            return None


class PsTable:
    """Elsewhere (macOS): the parent from `ps`; the command line from the
    kernel (sysctl KERN_PROCARGS2, exact) where it answers, else from `ps`,
    which joins arguments with blanks and so cannot be read for certain."""

    def __init__(self) -> None:
        self.exact = True

    def parent(self, pid: int) -> int | None:
        out = self._ps(pid, "ppid=")
        try:
            return int(out) if out else None
        except ValueError:
            return None

    def argv(self, pid: int) -> list[str] | None:
        found = _procargs2(pid)
        if found is not None:
            return found[0]
        out = self._ps(pid, "command=")
        if not out:
            return None
        self.exact = False
        return out.split()

    def environ(self, pid: int) -> dict[str, str] | None:
        found = _procargs2(pid)
        return found[1] if found is not None else None

    def cwd(self, pid: int) -> str | None:
        return None

    @staticmethod
    def _ps(pid: int, field: str) -> str | None:
        import subprocess

        try:
            done = subprocess.run(["ps", "-ww", "-o", field, "-p", str(pid)], capture_output=True, text=True,
                                  timeout=5, check=False)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None


def _environ(entries: list[bytes]) -> dict[str, str]:
    env: dict[str, str] = {}
    for entry in entries:
        name, sep, value = entry.decode("utf-8", "surrogateescape").partition("=")
        if sep and name:
            env[name] = value
    return env


def parse_procargs2(data: bytes) -> tuple[list[str], dict[str, str]] | None:
    """argv and environment from a KERN_PROCARGS2 buffer: argc (int32), the
    executable path, NUL padding, argc arguments, then the environment."""
    if len(data) < 4:
        return None
    argc = int.from_bytes(data[:4], sys.byteorder, signed=True)
    end = data.find(b"\0", 4)
    if argc < 0 or end < 0:
        return None
    while end < len(data) and data[end] == 0:
        end += 1
    parts = data[end:].split(b"\0")
    if len(parts) < argc:
        return None
    argv = [p.decode("utf-8", "surrogateescape") for p in parts[:argc]]
    env_parts: list[bytes] = []
    for part in parts[argc:]:
        if not part:
            break
        env_parts.append(part)
    return argv, _environ(env_parts)


def _procargs2(pid: int) -> tuple[list[str], dict[str, str]] | None:
    if sys.platform != "darwin":
        return None
    try:
        import ctypes
        import ctypes.util

        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        ctl_kern, kern_argmax, kern_procargs2 = 1, 8, 49
        argmax = ctypes.c_int(0)
        size = ctypes.c_size_t(ctypes.sizeof(argmax))
        if libc.sysctl((ctypes.c_int * 2)(ctl_kern, kern_argmax), 2, ctypes.byref(argmax), ctypes.byref(size), None, 0):
            return None
        buffer = ctypes.create_string_buffer(argmax.value)
        size = ctypes.c_size_t(argmax.value)
        if libc.sysctl((ctypes.c_int * 3)(ctl_kern, kern_procargs2, pid), 3, buffer, ctypes.byref(size), None, 0):
            return None
        return parse_procargs2(buffer.raw[: size.value])
    except (OSError, AttributeError, ValueError):
        return None


def default_processes() -> Processes:
    return ProcFS() if os.path.isdir("/proc/self") else PsTable()


# --- detection -------------------------------------------------------------------


@functools.cache
def current() -> HelmContext | None:
    """The Helm running this process as its post-renderer, or None."""
    return detect(os.environ, default_processes(), os.getpid())


def detect(environ: Mapping[str, str], processes: Processes, pid: int) -> HelmContext | None:
    found = _find_helm(processes, pid)
    plugin = environ.get("HELM_PLUGIN_NAME")
    if found is None:
        return None
    if found == _UNREADABLE:
        if plugin and environ.get("HELM_PLUGIN_DIR"):
            # Helm 4 runs us as a plugin, but its command line cannot be read.
            return HelmContext(4, None, cache_home=_cache_home(environ),
                               doubt="Helm's command line cannot be read")
        return None
    helm_pid, argv, via = found
    line = parse_command_line(argv)
    major = 4 if plugin and line.values.get("post-renderer") == plugin else 3
    helm_env = processes.environ(helm_pid)
    if helm_env is None:
        helm_env = dict(environ)
    context = HelmContext(major, helm_pid, cache_home=_cache_home(helm_env))
    doubt = line.doubt
    if doubt is None and via:
        doubt = f"postrender runs under {via}, not directly under Helm"
    if doubt is None and not processes.exact:
        doubt = "Helm's command line could only be read through ps, which joins arguments with blanks"
    if doubt is None and line.command not in COMMANDS:
        doubt = f"`helm {line.command}` is not install, upgrade or template"
    if doubt is not None:
        return replace(context, doubt=doubt)
    release = _release(line)
    kubeconfig = line.values.get("kubeconfig") or None
    if kubeconfig and not os.path.isabs(kubeconfig):
        kubeconfig = os.path.join(processes.cwd(helm_pid) or os.getcwd(), kubeconfig)
    kube_context = line.values.get("kube-context") or helm_env.get("HELM_KUBECONTEXT") or None
    namespace = line.values.get("namespace") or helm_env.get("HELM_NAMESPACE") or None
    if namespace is None:
        namespace, doubt = kubeconfig_namespace(kubeconfig, kube_context, helm_env)
    cluster_doubt = None
    if line.values.get("kube-apiserver") or helm_env.get("HELM_KUBEAPISERVER"):
        cluster_doubt = "Helm is told --kube-apiserver (or HELM_KUBEAPISERVER), which a kubeconfig does not say"
    elif kubeconfig is None and helm_env.get("KUBECONFIG", "") != environ.get("KUBECONFIG", ""):
        cluster_doubt = "Helm's KUBECONFIG differs from postrender's"
    return replace(
        context, command=line.command, release=release, namespace=namespace, kubeconfig=kubeconfig,
        context=kube_context, doubt=doubt, cluster_doubt=cluster_doubt, output_dir=bool(line.values.get("output-dir")),
    )


_UNREADABLE = (0, [], None)


def _find_helm(processes: Processes, pid: int) -> tuple[int, list[str], str | None] | None:
    """The nearest ancestor that is Helm with a post-renderer, and the first
    program in between that is not a plain shell (None when there is none);
    _UNREADABLE when an ancestor could not be read."""
    via: str | None = None
    current_pid = processes.parent(pid)
    for _ in range(_MAX_HOPS):
        if current_pid is None:
            return _UNREADABLE
        if current_pid <= 1:
            return None
        argv = processes.argv(current_pid)
        if argv is None:
            return _UNREADABLE
        program = _program(argv[0]) if argv else None
        if program and _HELM_PROGRAM.fullmatch(program) and _has_post_renderer(argv):
            return current_pid, argv, via
        if via is None and program not in _PASS_THROUGH:
            via = program or f"process {current_pid}"
        current_pid = processes.parent(current_pid)
    return None


def _program(arg0: str) -> str:
    return os.path.basename(arg0).lstrip("-")  # a login shell is "-bash"


def _has_post_renderer(argv: list[str]) -> bool:
    return any(a == "--post-renderer" or a.startswith("--post-renderer=") for a in argv[1:])


def _release(line: CommandLine) -> str | None:
    """The release name; None when Helm generates one (--generate-name,
    --name-template) or the arguments are not NAME CHART."""
    given = line.positionals
    if len(given) == 2:
        return given[0]
    if len(given) == 1 and line.command == "template" and not (
            line.flag("generate-name") or line.values.get("name-template")):
        return TEMPLATE_DEFAULT_RELEASE
    return None


def _cache_home(environ: Mapping[str, str]) -> str:
    """helm.sh/helm/v3/pkg/helmpath: HELM_CACHE_HOME, else $XDG_CACHE_HOME/helm,
    else the platform's cache directory under $HOME, as `helm env` prints
    it. Helm takes the home from $HOME alone (client-go's homedir): without
    it, the cache is `.cache/helm`, relative to where Helm runs, and so is
    the log a README line tells a CI job to read."""
    if environ.get("HELM_CACHE_HOME"):
        return environ["HELM_CACHE_HOME"]
    base = environ.get("XDG_CACHE_HOME")
    if not base:
        home = environ.get("HOME", "")
        if sys.platform == "darwin":
            base = os.path.join(home, "Library", "Caches")
        elif sys.platform == "win32":
            base = environ.get("TEMP", "")
        else:
            base = os.path.join(home, ".cache")
    return os.path.join(base, "helm")


def kubeconfig_namespace(explicit: str | None, context: str | None,
                         environ: Mapping[str, str]) -> tuple[str | None, str | None]:
    """The namespace Helm uses when given none: the kubeconfig context's
    (merged as client-go merges), then in-cluster, then "default"."""
    try:
        namespace = merged(explicit, environ).namespace(context)
    except KubeconfigError as exc:
        return None, str(exc)
    if namespace:
        return namespace, None
    if environ.get("KUBERNETES_SERVICE_HOST") and environ.get("KUBERNETES_SERVICE_PORT") \
            and os.path.exists(os.path.join(_SA_DIR, "token")):
        if environ.get("POD_NAMESPACE"):
            return environ["POD_NAMESPACE"], None
        try:
            with open(os.path.join(_SA_DIR, "namespace")) as file:
                namespace = file.read().strip()
        except OSError:
            namespace = ""
        if namespace:
            return namespace, None
    return "default", None


# --- render options ----------------------------------------------------------------


def fill(options: RenderOptions, explicit_namespace: str | None = None,
         helm: HelmContext | None = None) -> RenderOptions:
    """Options completed with what Helm was told. Explicit postrender flags
    win; `--retain` refuses when Helm's cluster is not known for certain."""
    helm = helm if helm is not None else current()
    if helm is None:
        return options
    why = helm.doubt or helm.cluster_doubt
    if options.retain is not None and why:
        missing = [] if options.context else ["--context=CONTEXT"]
        if helm.doubt and not explicit_namespace:
            missing.append("--namespace=NAMESPACE")
        if missing:
            raise UsageError(
                f"--retain under Helm {helm.major}: {why}, so postrender cannot tell for certain which cluster "
                "and namespace Helm deploys to; pass them: " + " ".join(f"--post-renderer-args={m}" for m in missing)
            )
    changes: dict[str, object] = {"hooks_hidden": helm.hooks_hidden}
    if helm.doubt is None:
        if not explicit_namespace and helm.namespace:
            # Checked as --namespace is (Helm's own -n or $HELM_NAMESPACE).
            changes["namespace"] = check_namespace(helm.namespace, "Helm's namespace (-n or $HELM_NAMESPACE)")
        if options.scope is None and helm.release and _is_label_value(helm.release):
            changes["scope"] = helm.release
        # Which cluster Helm deploys to matters only to --retain, the one
        # render that reads a cluster; set without it, the options would be
        # refused as given for nothing (check_cluster), failing every
        # `helm ... --kube-context prod` run.
        if options.retain is not None and options.kubeconfig is None and helm.kubeconfig:
            changes["kubeconfig"] = helm.kubeconfig
        if options.retain is not None and options.context is None and helm.context:
            changes["context"] = helm.context
    return replace(options, **changes)


def _is_label_value(value: str) -> bool:
    from .vocabulary import is_label_value

    return is_label_value(value)
