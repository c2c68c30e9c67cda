"""Command line: `postrender [render]`, `graph`, `diff`, `gc`, `version`, `completion`.

Exit status: 0 done, 1 bad input or environment, 2 usage, 128+N when ended
by signal N (130 Ctrl-C, 143 SIGTERM, 141 a closed pipe). stdout receives
the stream only once everything succeeded.

Commands are rows of `COMMANDS`; render options are rows of
`options.OPTIONS` (shared with the kustomize and KRM configs). Adding either
is one row.
"""

from __future__ import annotations

import argparse
import errno
import gc
import os
import re
import signal
import stat
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NoReturn

from .printable import quoted
from .records import record
from . import signals
from .signals import Interrupted, on_signal
from .errors import OUT_OF_MEMORY, PostrenderError, UsageError, memory_short
from .report import Reporter

PROG = "postrender"


class _Parser(argparse.ArgumentParser):
    def __init__(self, **kwargs: Any) -> None:
        # No abbreviated flags, as in kubectl and helm (cobra): an abbreviation
        # is taken silently, so `postrender -v --version` rendered with
        # --version-all, and a flag added later changes what an old one means.
        super().__init__(allow_abbrev=False, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see {self.prog} --help)")


class _ShowHelp(Exception):
    """--help: the text goes out the way any output does (a closed pipe included)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class _HelpAction(argparse.Action):
    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show this help and exit")

    def __call__(self, parser, namespace, values, option_string=None) -> None:  # type: ignore[override]
        raise _ShowHelp(parser.format_help())


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=30, width=min(100, _terminal_width()))


def _terminal_width() -> int:
    try:
        return os.get_terminal_size(2).columns - 2
    except OSError:
        return 98


# --- commands ---------------------------------------------------------------


@record(frozen=True)
class Command:
    name: str
    summary: str
    examples: str  # shown under "Examples:" in the command's --help
    arguments: Callable[[argparse.ArgumentParser], None]
    # The output (whole, or part by part), or the output and an exit status (diff --exit-code).
    run: Callable[[argparse.Namespace, Reporter], str | Iterable[str] | tuple[str, int]]
    usage: str = ""


def _add_render_options(parser: argparse.ArgumentParser, groups: dict[str, argparse._ArgumentGroup],
                        cluster: bool = True) -> None:
    """cluster=False: the options that read a cluster are still parsed (so
    the command can refuse one with its reason) but left out of --help."""
    from .options import OPTIONS, dest, non_empty

    for option in OPTIONS:
        group = groups[option.group]
        help_text = option.help
        if option.env:
            help_text += f" (default: ${option.env})"
        elif option.default is not None:
            help_text += f" (default: {option.default})"
        if option.cluster and not cluster:
            help_text = argparse.SUPPRESS
        common = {"dest": dest(option), "help": help_text}
        if option.kind == "bool":
            group.add_argument(*option.flags, action="store_true", default=None, **common)
        elif option.kind == "files":
            group.add_argument(*option.flags, action="append", metavar=option.metavar, type=non_empty(option.flag),
                               **common)
        elif option.kind == "choice":
            group.add_argument(*option.flags, choices=option.choices, **common)
        else:
            group.add_argument(*option.flags, metavar=option.metavar,
                               type=lambda text, option=option: option.convert_text(text), **common)


def _groups(parser: argparse.ArgumentParser, names: Sequence[str]) -> dict[str, argparse._ArgumentGroup]:
    return {name: parser.add_argument_group(name) for name in names}


def _input_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument("paths", nargs="*", metavar="PATH",
                       help="files, folders (their *.yaml, *.yml, *.json) or - for standard input; "
                            "process substitution <(...) and FIFOs work (default: standard input)")
    group.add_argument("-f", "--filename", action="append", default=[], metavar="PATH", dest="filenames",
                       help="as PATH, kubectl's spelling (repeatable; read before PATH arguments)")


def _diagnostic_arguments(group: argparse._ArgumentGroup,
                          says: str = "print each rename and rewritten reference") -> None:
    """`says`: what -v prints, in the command's own terms."""
    from .options import non_empty

    group.add_argument("-v", "--verbose", action="count", default=0,
                       help=f"{says}; -v=N as kubectl (N>=1 is -v)")
    # The same count as -v, so the last word wins: `-v=0 -v` is verbose, `-v -v=0` is not.
    group.add_argument("--verbosity", dest="verbose", type=lambda t: _count(t, "-v", 0, _HIGHEST_VERBOSITY),
                       help=argparse.SUPPRESS)
    group.add_argument("--log-file", metavar="PATH", type=non_empty("--log-file"),
                       help="also write diagnostics here, mode 0600 (default: $POSTRENDER_LOG_FILE)")
    group.add_argument("-h", "--help", action=_HelpAction)


# kubectl's (klog's) -v is an int32: any N it takes is taken, not just 0 to
# 99 (cli62); beyond, a number no one means (`-v=10**30` in digits).
_HIGHEST_VERBOSITY = 2**31 - 1


def _count(text: str, name: str, low: int, high: int) -> int:
    from .options import parse_count

    return parse_count(text, name, low, high)


def _render_arguments(parser: argparse.ArgumentParser) -> None:
    from .options import DIAGNOSTICS, HELP_GROUPS, INPUT, INTEGRATIONS, OUTPUT, non_empty

    groups = _groups(parser, HELP_GROUPS)
    _input_arguments(groups[INPUT])
    groups[OUTPUT].add_argument("-o", "--output", metavar="FILE", dest="output_file",
                                help="write here instead of standard output: whole or not at all "
                                     "(a temporary file, then renamed)")
    _add_render_options(parser, groups)
    _diagnostic_arguments(groups[DIAGNOSTICS])
    # Anywhere among the flags, as most tools take it (Argo CD's plugin puts
    # its own flags first): the version, and no manifests.
    groups[DIAGNOSTICS].add_argument("--version", action="store_true",
                                     help="print the version and exit (postrender version)")
    _krm_argument(groups[INTEGRATIONS])
    groups[INTEGRATIONS].add_argument(
        # Appended: kustomize passes its file first, and one more from
        # argsOneLiner is refused, not silently read instead (kustomize_exec).
        "--plugin-config", metavar="FILE", action="append", type=non_empty("--plugin-config"),
        help="options from a kustomize PostRender config (the file kustomize passes an exec plugin)")


def _graph_arguments(parser: argparse.ArgumentParser) -> None:
    from .frontends.graph.formats import names as graph_formats
    from .options import DIAGNOSTICS, HELP_GROUPS, INPUT, INTEGRATIONS, OUTPUT

    groups = _groups(parser, HELP_GROUPS)
    _input_arguments(groups[INPUT])
    groups[OUTPUT].add_argument("-o", "--output", choices=graph_formats(), default="table", dest="format",
                                help="table, json (with the render's warnings), dot (Graphviz) or mermaid "
                                     "(default: table)")
    _add_render_options(parser, groups, cluster=False)
    _diagnostic_arguments(groups[DIAGNOSTICS])
    _krm_argument(groups[INTEGRATIONS], "show the render of a KRM ResourceList, its functionConfig applied, as "
                                        "render --krm does it")


def _krm_argument(group: argparse._ArgumentGroup, does: str = "read and write a KRM ResourceList") -> None:
    group.add_argument("--krm", action="store_true", help=f"{does} (detected on standard input without this flag)")


def _diff_arguments(parser: argparse.ArgumentParser) -> None:
    from .frontends.diff.formats import names
    from .options import DIAGNOSTICS, HELP_GROUPS, INPUT, OUTPUT

    groups = _groups(parser, HELP_GROUPS)
    groups[INPUT].add_argument("old", metavar="OLD", help="the render before: a file, a folder or - (standard input)")
    groups[INPUT].add_argument("new", metavar="NEW", help="the render after, likewise; raw or already post-rendered")
    groups[OUTPUT].add_argument("-o", "--output", choices=names(), default=names()[0], dest="format",
                                help=f"{', '.join(names())} (default: {names()[0]})")
    groups[OUTPUT].add_argument("--show-values", action="store_true",
                                help="show changed ConfigMap values (Secret values are never shown)")
    groups[OUTPUT].add_argument("--exit-code", action="store_true",
                                help="exit 1, as git diff does, when a pod template changes (it rolls, waits or is "
                                     "refused), an object could not be compared, or the API server refuses a "
                                     "ConfigMap's or Secret's update")
    _add_render_options(parser, groups, cluster=False)
    _diagnostic_arguments(groups[DIAGNOSTICS])


def _gc_arguments(parser: argparse.ArgumentParser) -> None:
    from .cluster.args import add_gc_arguments

    add_gc_arguments(parser)
    _diagnostic_arguments(parser.add_argument_group("Diagnostics"),
                          "print where it collects, what it found in use, and each version deleted or kept")


def _version_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("Output")
    group.add_argument("-o", "--output", choices=("text", "json"), default="text", dest="format",
                       help="text or json (default: text)")
    group.add_argument("-h", "--help", action=_HelpAction)


def _completion_arguments(parser: argparse.ArgumentParser) -> None:
    from .completion import SHELLS

    group = parser.add_argument_group("Shell")
    group.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    group.add_argument("-h", "--help", action=_HelpAction)


def _render(args: argparse.Namespace, reporter: Reporter) -> str | Iterable[str]:
    from .frontends import names_a_resource_list, render, resource_list_text
    from .inputs import InvalidUTF8

    options = render_options(args)
    _check_under_helm(args)
    if args.plugin_config:
        from .frontends import kustomize_exec as kustomize_exec

        kustomize_exec.check_arguments(args)  # before any input is read
        return kustomize_exec.run(args.plugin_config[0], _sources(args, options, reporter), options, reporter)
    try:
        sources = _sources(args, options, reporter)
    except InvalidUTF8 as exc:
        # A ResourceList is answered as one, with the error in its results,
        # whatever went wrong: the orchestrator reads the answer, not stderr.
        if args.krm or not [p for p in (*args.filenames, *args.paths) if p != "-"] and \
                "ResourceList" in exc.replaced:
            from .frontends import krm

            if args.krm or krm.claims_resource_list(exc.replaced):
                raise krm.unread(exc) from None
        raise
    if not any(source.size for source in sources):
        _say_helm_gave_nothing(reporter)
    # A plain stream's run does not load the KRM front end.
    if args.krm or resource_list_text(sources):
        from .frontends import krm

        resource_list = None if args.krm else krm.detect(sources, options)
        if args.krm or resource_list is not None:
            return krm.written(sources, options, reporter, resource_list)
    read = None
    if names_a_resource_list(sources):
        from .frontends import krm

        # A file's ResourceList is rendered as a plain stream: a
        # functionConfig that would set options is said to be left unapplied.
        read = krm.read_plainly(sources, options, reporter)
    # Released: each document's node graph is dropped as its edits are
    # spliced, so the output's splices replace the graphs in memory.
    reporter.keep_warnings = False  # said as they come; nothing reads them again
    result = render(sources, options, reporter, read, release=True)
    if _left_to_exit is not None:
        _left_to_exit.append(result)  # see run()
    # Part by part: the writing holds the documents' text and edits, not their node graphs.
    return result.written


def _graph(args: argparse.Namespace, reporter: Reporter) -> str:
    from .frontends.graph.command import check, show

    options = render_options(args)
    check(options, args.format)
    return show(_sources(args, options, reporter), options, args.format, reporter, krm=args.krm)


def _diff(args: argparse.Namespace, reporter: Reporter) -> tuple[str, int]:
    from .frontends.diff.command import run

    report, output = run(args.old, args.new, render_options(args), args.format, args.show_values, reporter)
    # An object diff could not pair may roll unseen, and a refused update
    # fails the deploy: a gate must pass neither.
    return output, 1 if args.exit_code and (report.template_changes or report.unpaired or report.refused) else 0


def _gc(args: argparse.Namespace, reporter: Reporter) -> str:
    # Imported only here: the Kubernetes client loads for gc, never for a render.
    from .cluster.gccommand import run

    return run(args, reporter)


def _version(args: argparse.Namespace, reporter: Reporter) -> str:
    from .version import describe

    return describe(args.format)


def _completion(args: argparse.Namespace, reporter: Reporter) -> str:
    from .completion import script

    return script(args.shell, build_parsers(), {command.name: command.summary for command in COMMANDS})


COMMANDS: tuple[Command, ...] = (
    Command(
        "render", "version ConfigMaps and Secrets in a manifest stream (the default command)",
        """\
  helm template my-app ./chart | postrender -n prod > manifests.yaml
  postrender -f base.yaml -f overlay/ -o out.yaml       # files and folders; out.yaml whole or untouched
  postrender <(helm template my-app ./chart) extra.yaml # process substitution, FIFOs, - for stdin
  helm upgrade --install my-app ./chart --post-renderer postrender   # Helm 3 (Helm 4: the plugin)
  kustomize build overlay/ | postrender --strategy annotate | kubectl apply -f -
  postrender --retain 2 -n shop -f rendered.yaml          # carry previous versions forward (cluster)""",
        _render_arguments, _render,
        usage="postrender [render] [flags] [PATH | -f PATH | -]...",
    ),
    Command(
        "graph", "show the reference graph: what a render would do, and why",
        """\
  helm template my-app ./chart | postrender graph
  postrender graph -o json manifests/ | jq '.warnings'
  postrender graph -o dot manifests/ | dot -Tsvg > refs.svg
  postrender graph --strategy annotate --keep-original -f app.yaml""",
        _graph_arguments, _graph,
        usage="postrender graph [flags] [PATH | -f PATH | -]...",
    ),
    Command(
        "diff", "say which workloads a change rolls, and why",
        """\
  postrender diff base.yaml head.yaml                    # a table; dangerous cases first
  helm template my-app ./chart -f prod.yaml | postrender diff base.yaml -
  postrender diff -o json --exit-code base/ head/        # exit 1 when a pod template changes
  postrender diff -o markdown --show-values base.yaml head.yaml > comment.md""",
        _diff_arguments, _diff,
        usage="postrender diff [flags] OLD NEW",
    ),
    Command(
        "gc", "delete versions nothing uses any more (dry run unless --yes)",
        """\
  postrender gc -n shop                                  # dry run: what would go, and why
  postrender gc -n shop --scope web --keep 3 --min-age 1h --yes
  postrender gc -A -o json""",
        _gc_arguments, _gc,
    ),
    Command(
        "version", "print the version of postrender, ruamel.yaml and its C parser",
        """\
  postrender version
  postrender version -o json""",
        _version_arguments, _version,
    ),
    Command(
        "completion", "print a shell completion script (bash, zsh, fish)",
        """\
  source <(postrender completion bash)                   # in ~/.bashrc
  postrender completion zsh > "${fpath[1]}/_postrender"  # then restart zsh
  postrender completion fish > ~/.config/fish/completions/postrender.fish""",
        _completion_arguments, _completion,
    ),
)
_BY_NAME = {command.name: command for command in COMMANDS}


def _commands_text() -> str:
    width = max(len(c.name) for c in COMMANDS)
    return "Commands:\n" + "\n".join(f"  {c.name.ljust(width)}  {c.summary}" for c in COMMANDS)


DESCRIPTION = (
    "postrender reads a rendered manifest stream (Helm, kustomize, any) and writes it with every "
    "ConfigMap and Secret renamed <name>-<content hash>, made immutable, and every reference to it "
    "rewritten, so pods roll when their configuration changes."
)


def build_parser(name: str) -> argparse.ArgumentParser:
    command = _BY_NAME[name]
    prog = PROG if name == "render" else f"{PROG} {name}"
    description = f"{command.summary}." if name != "render" else f"{DESCRIPTION}\n\n{_commands_text()}"
    parser = _Parser(
        prog=prog, usage=command.usage or None, description=description, add_help=False,
        epilog=f"Examples:\n{command.examples}\n\n"
               f"Exit status: 0 done, 1 bad input or environment (nothing on stdout), 2 usage error, "
               f"129/130/143 interrupted (SIGHUP/SIGINT/SIGTERM), 152 the CPU time limit reached (SIGXCPU), "
               f"141 the reader stopped reading.",
        formatter_class=_HelpFormatter,
    )
    command.arguments(parser)
    return parser


def build_parsers() -> dict[str, argparse.ArgumentParser]:
    return {command.name: build_parser(command.name) for command in COMMANDS}


# A pattern, compiled (by re's cache) when an argument is first read: a run
# without arguments, as under Helm, never pays for it.
_VERBOSITY = r"-v=?(?!v*$)(.*)|--v=(.*)|--verbose=(.*)"


def _kubectl_spellings(argv: list[str]) -> list[str]:
    """`-v=N`, `-vN`, `--v=N`, `--verbose=N` (kubectl's) become --verbosity=N."""
    out: list[str] = []
    for i, arg in enumerate(argv):
        if arg == "--":
            return out + argv[i:]
        match = re.fullmatch(_VERBOSITY, arg)
        out.append(f"--verbosity={next(g for g in match.groups() if g is not None)}" if match else arg)
    return out


def parse(argv: Sequence[str]) -> argparse.Namespace:
    args = list(argv)
    typed = args[0] if args else None
    if args[:1] == ["--version"]:
        args = ["version", *args[1:]]
    if args[:1] == ["help"] and not os.path.exists("help"):
        # `postrender help [COMMAND]`, as helm and kubectl take it: it read
        # as a file named help (newcomer60).
        # `help help`, `help -h`: postrender's own help, as helm's and
        # kubectl's; a second word is refused, not ignored (cli62).
        topic = [word for word in args[1:2] if word not in ("help", "-h", "--help")]
        if len(args) > 2:
            raise UsageError(f"help takes one command, not {' '.join(args[1:])}; "
                             f"the commands are {', '.join(_BY_NAME)}")
        if topic and topic[0] not in _BY_NAME:
            raise UsageError(f"help {topic[0]}: no such command; the commands are {', '.join(_BY_NAME)}")
        args = [*topic, "--help"]
    name = args[0] if args and args[0] in _BY_NAME else "render"
    if args and args[0] == name:
        args = args[1:]
    elif args:
        _check_not_a_mistyped_command(args[0])
    _check_text_for_helm(name, args, typed)
    parser = build_parser(name)
    args = _bare_flags(_kubectl_spellings(args))
    if name in ("render", "graph"):
        # Flags and paths in any order, as kubectl and helm take them; after
        # `--` only paths, which parse_intermixed_args would read as flags
        # again (a file named `-x.yaml`: "unrecognized arguments").
        after = args.index("--") if "--" in args else len(args)
        if name == "render":  # only a render is run by a host (graph --krm --help is help)
            _check_no_text_for_a_host(args[:after])
        namespace = parser.parse_intermixed_args(args[:after])
        _check_no_path_is_a_misplaced_word(list(argv), namespace.paths)
        namespace.paths = [*namespace.paths, *args[after + 1:]]
        if getattr(namespace, "version", False):
            return parse(["version"])
    else:
        namespace = parser.parse_args(args)
    namespace.command = name
    return namespace


def _optional_values() -> dict[str, Callable[[str], bool]]:
    """Each flag whose value is optional, so taken only as `FLAG=VALUE`, and
    which words it takes: the word after it is a path."""
    from .options import bare_values

    whole_number = re.compile("[0-9]+").fullmatch
    return {"-v": whole_number, "--verbose": whole_number,
            **{flag: values.__contains__ for flag, values in bare_values().items()}}


# The commands that take a render's flags and paths.
_TAKES_RENDER_WORDS = ("render", "graph", "diff")


def _check_no_path_is_a_misplaced_word(argv: list[str], paths: list[str]) -> None:
    """A path that is not there but was meant as something else says so,
    not just "no such file or folder": the value of the optional-value flag
    before it (`--keep-original none`, kubectl's `-v 1`), or a command
    after flags (`postrender -v graph`, as kubectl and helm take them)."""
    words = argv[:argv.index("--")] if "--" in argv else argv
    optional = None
    for position, word in enumerate(words):
        if position and word in paths and not os.path.exists(word):
            before = words[position - 1]
            optional = optional or _optional_values()
            if before in optional and optional[before](word):
                raise UsageError(f"{word}: no such file or folder; {before} takes its value only after =: "
                                 f"write {before}={word}")
            if word in _BY_NAME and words[0] not in _BY_NAME:
                # Only where no command came first (`graph render` named one);
                # the words before it carried over only to a command that
                # takes a render's (review62b: `--keep-original=none version`).
                carried = " ".join(words[:position]) if word in _TAKES_RENDER_WORDS else ""
                raise UsageError(f"{word}: no such file or folder; a command goes first: "
                                 f"{PROG} {word} {carried + ' ' if carried else ''}...")


def _check_not_a_mistyped_command(word: str) -> None:
    """A first word that is no command is the default command's first path;
    one that is no path but spelt like a command (`grpah`) was meant as
    that command, and "no such file or folder" would not say so."""
    if word.startswith("-") or "/" in word or "." in word or os.path.exists(word):
        return
    import difflib

    close = difflib.get_close_matches(word, [*_BY_NAME, "help"], n=1, cutoff=0.6)
    if close:
        raise UsageError(f"{word}: no such command, file or folder; did you mean `{PROG} {close[0]}`?"
                         f" (see {PROG} --help)")


def _reporter_for_refused(argv: list[str]) -> Reporter:
    """A reporter for a command line refused as it was read: its log is the
    one the run would have had (`--log-file` as written, else
    $POSTRENDER_LOG_FILE), since under Helm 4, which hides stderr, the log
    is where the refusal reaches the person who named it. Which words of a
    refused line are its inputs and its -o file is not known (`-fin.yaml`,
    `--output=x`), so the log is written only where it cannot be one of
    them: a file not there yet, or one a postrender run's header begins."""
    log_file, named = _log_setting(None)
    words = argv[:argv.index("--")] if "--" in argv else argv
    for position, word in enumerate(words):
        # `--log-file --bogus`: argparse takes no flag as its value, nor do we.
        if word == "--log-file" and position + 1 < len(words) and not words[position + 1].startswith("-"):
            log_file, named = words[position + 1] or log_file, "--log-file"
        elif word.startswith("--log-file="):
            log_file, named = word.partition("=")[2] or log_file, "--log-file"
    if not log_file or not _a_log_or_nothing(log_file):
        return Reporter()
    reporter = Reporter(log_file=log_file, log_named=named)
    try:
        reporter.open_log()
    except (UsageError, OSError):
        return Reporter()
    return reporter


_LOG_FILE_VARIABLE = "POSTRENDER_LOG_FILE"


def _log_setting(given: str | None) -> tuple[str | None, str]:
    """The log file, and where it was set, as messages name it: `--log-file`
    as given, else $POSTRENDER_LOG_FILE (set once for a CI job or a
    repo-server, a user looks for a flag that is not there; cli62)."""
    if given:
        return given, "--log-file"
    return os.environ.get(_LOG_FILE_VARIABLE) or None, f"${_LOG_FILE_VARIABLE}"


def _a_log_or_nothing(path: str) -> bool:
    """Whether `path` is not there yet, or is a postrender log (it starts with
    run_header's line). A symbolic link is neither: open_private_log refuses it."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(64)
    except FileNotFoundError:
        return not os.path.islink(path)
    except OSError:
        return False
    return re.match(rb"--- [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z postrender ", head) is not None


def _check_log_file_apart(log_file: str | None, args: argparse.Namespace, named: str = "--log-file") -> None:
    """The log is appended to (and made mode 0600): naming an input there
    spoiled the input, and naming the -o file lost the log when the output
    replaced it."""
    if not log_file:
        return
    where = os.path.realpath(log_file)
    try:
        log = os.stat(log_file)
    except OSError:
        log = None  # not there yet: nothing else can be it
    output = getattr(args, "output_file", None)
    inputs = [*(getattr(args, "filenames", None) or ()), *(getattr(args, "paths", None) or ())]
    # Standard input and output stand for the files they are (`< in.yaml`, `> out.yaml`), if any.
    streams = ([(0, "standard input")] if not inputs or "-" in inputs else []) + \
        ([(1, "standard output")] if output in (None, "-") else [])
    # Files the run reads besides its inputs: appended to, a config no longer reads.
    read = [*((p, "a --config file") for p in getattr(args, "config_files", None) or ()),
            *((p, "the --plugin-config file") for p in getattr(args, "plugin_config", None) or ()),
            (getattr(args, "kubeconfig", None), "the --kubeconfig file"),
            *((getattr(args, side, None), f"diff's {side.upper()}") for side in ("old", "new"))]
    for path, what in [(output, "the -o file"), *((p, "an input") for p in inputs), *streams, *read]:
        if path is None or path in ("", "-"):
            continue
        # A path by its name, or any of them as a hard link to the log.
        same = (isinstance(path, str) and os.path.realpath(path) == where
                or log is not None and _same_file(path, log))
        if same:
            raise UsageError(f"{named} {log_file} is also {what}: the log is appended to it; name another file")


def _same_file(path: str | int, info: os.stat_result) -> bool:
    """Whether `path` (or an open descriptor) is the file `info` describes."""
    try:
        here = os.stat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (info.st_dev, info.st_ino)


def _check_no_text_for_a_host(args: list[str]) -> None:
    """--help and --version write text where kustomize, running postrender
    as its exec plugin or KRM function, reads resources: refused there, as
    -o is, rather than failing in kustomize as malformed YAML."""
    text = next((a for a in args if a == "--version" or _asks_help(a)), None)
    if text is None:
        return  # most runs: the host flags' table is not loaded
    from .hostflags import CHANNELS, PLUGIN_CONFIG

    hosts = (PLUGIN_CONFIG["plugin_config"], CHANNELS["krm"])
    hosted = next((a for a in args if a.split("=", 1)[0] in hosts), None)
    if hosted is not None:
        raise UsageError(f"{text} is not available with {hosted.split('=', 1)[0]}: kustomize reads what postrender "
                         "writes as the resources (a flag in argsOneLiner/argsFromFile?)")


# Short flags that take a value: what follows one in a cluster (`-nh`) is
# its value; `-v` too, read as kubectl's `-vN` (_kubectl_spellings).
_SHORT_WITH_VALUE = frozenset("fonlv")


def _asks_help(word: str) -> bool:
    """`--help`, `-h`, or `-h` in a cluster of short flags (`-hv`), as
    argparse reads them."""
    if word == "--help":
        return True
    if not word.startswith("-") or word.startswith("--"):
        return False
    for letter in word[1:]:
        if letter == "h":
            return True
        if letter in _SHORT_WITH_VALUE:
            return False
    return False


def _check_text_for_helm(name: str, args: list[str], typed: str | None) -> None:
    """Help, the version, a completion script, a graph, a diff or gc's
    report, asked for through --post-renderer-args, is what Helm would
    deploy as the manifest (Helm 3 took `postrender 0.1.0` as an empty
    release). Refused when Helm runs postrender itself. `typed`: the
    command as the user wrote it (`--version` asks for `version`)."""
    before = args[:args.index("--")] if "--" in args else args
    asked = typed if name != "render" else next((a for a in before if _asks_help(a)), None)
    if asked is None:
        return  # most runs: Helm is not looked for
    helm = _helm_parent()
    if helm is not None:
        raise UsageError(f"{asked}: Helm {helm.major} deploys what its post-renderer writes on standard output as the "
                         "manifest; take it out of --post-renderer-args")


def _helm_parent():
    """The Helm that runs postrender itself, as its parent process, or None:
    under it, what postrender writes on standard output is the manifest. A
    script Helm runs instead may write what it likes."""
    from . import helmcontext

    helm = helmcontext.current()
    return helm if helm is not None and helm.pid is not None and os.getppid() == helm.pid else None


def _say_helm_gave_nothing(reporter: Reporter) -> None:
    """Helm 3's `template --output-dir` writes the chart's files itself and
    runs its post-renderer on nothing (Helm 4 post-renders the files): the
    files are not versioned, and the run, with nothing to say, would pass
    unseen."""
    helm = _helm_parent()
    if helm is not None and helm.major == 3 and helm.command == "template" and helm.output_dir:
        reporter.warn("Helm 3 writes `helm template --output-dir` files itself and gives its post-renderer nothing:"
                      " those files are not versioned; write standard output to a file instead, or use Helm 4,"
                      " which post-renders them")


def _check_under_helm(args: argparse.Namespace) -> None:
    """Helm gives its post-renderer the chart's manifest on standard input
    and deploys what it writes on standard output, even nothing (Helm 3):
    flags in --post-renderer-args that send the stream to a file, or read
    files instead of standard input, would deploy an empty release, which
    an upgrade takes as every object deleted. Refused before any work, when
    Helm runs postrender itself: a script Helm runs may pass such flags and
    write the result out itself."""
    from .inputs import refuse_empty_paths

    output_file = getattr(args, "output_file", None)
    inputs = [*args.filenames, *args.paths]
    refuse_empty_paths(inputs)
    to_a_file = output_file not in (None, "-")
    if args.plugin_config or args.krm or not to_a_file and (not inputs or "-" in inputs):
        return  # most runs: nothing to ask of Helm
    helm = _helm_parent()
    if helm is None:
        return
    if to_a_file:
        # lstrip: Helm gives `--post-renderer-args='-o FILE'` as one argument, read as -o " FILE".
        raise UsageError(f"-o {output_file.lstrip()}: Helm {helm.major} deploys what its post-renderer writes on "
                         "standard output, and would get nothing; take -o out of --post-renderer-args")
    raise UsageError(f"{inputs[0]}: under Helm {helm.major}, the chart's manifest comes on standard input, which "
                     "postrender would not read with files named; add - to read it as well")


def render_options(args: argparse.Namespace):
    from .options import OPTIONS, RenderOptions, dest, with_values

    values = {}
    for option in OPTIONS:
        value = getattr(args, dest(option), None)
        if value is None and option.env and os.environ.get(option.env):
            # Checked as the flag is: HELM_NAMESPACE=Prod would quietly
            # pair no implicit namespace with the objects that state `prod`.
            value = option.convert_text(os.environ[option.env], f"${option.env}")
        if value is not None:
            values[option.field] = value
    options = with_values(RenderOptions(), values)
    # Under Helm: Helm's namespace, release (the default scope) and cluster.
    from . import helmcontext

    return helmcontext.fill(options, explicit_namespace=getattr(args, "namespace", None))


def _sources(args: argparse.Namespace, options, reporter: Reporter):
    from .inputs import gather

    return gather([*args.filenames, *args.paths], sys.stdin, options.limits.max_bytes, reporter.notice,
                  getattr(args, "stdin_name", None))


# --- running, and ending well --------------------------------------------------


def _bare_flags(args: list[str]) -> list[str]:
    """A flag that may stand alone (a bare `--keep-original` means all:
    options.Option.bare) takes its value only as `--flag=VALUE`, so
    `--keep-original dir/` keeps reading dir/."""
    from .options import bare_flags

    alone = bare_flags()
    out: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":
            return out + args[i:]
        out.append(alone.get(arg, arg))
    return out


# Set by run(): what a render leaves for the process's end to drop.
_left_to_exit: list[object] | None = None


def run() -> NoReturn:
    """The console script and `python -m postrender`: main(), then the process ends at once.

    A render's node graphs are millions of small objects. Freed one by one,
    then the interpreter's own teardown, they cost a few percent of a large
    render, for memory the process is about to give back whole. By the time
    main() returns, all it promised is done: the output written and flushed,
    or a file replaced; the log closed. So the render's analysis is kept
    until here, and the process leaves with os._exit, which skips both.
    (The stream command drops each document's node graph once it is
    spliced, write.write's `release`, for a lower peak; the records left,
    objects, references, versions, are still left to the exit.)
    """
    global _left_to_exit
    _left_to_exit = []
    # And the cyclic collector stays off while the kept analysis is alive
    # (see _without_cyclic_gc): the process ends before it could matter.
    gc.disable()
    status = main()
    try:
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError):
        # What Python's own exit would do when the last flush fails: say
        # nothing more (the reporter had its say), but not succeed.
        status = status or 1
    try:
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass
    os._exit(status)


def main(argv: Sequence[str] | None = None, *, stdin_name: str | None = None) -> int:
    """`stdin_name`: what messages call standard input, for a caller that
    pipes in a stream no one sees, whose lines are no file's (the Argo CD
    plugin's `kustomize build`)."""
    argv = sys.argv[1:] if argv is None else argv
    if os.environ.get("KUSTOMIZE_PLUGIN_CONFIG_STRING") is not None:
        # Linked as the plugin: `PostRender <config file> [args]`.
        from .frontends.kustomize_exec import exec_plugin_argv

        argv = exec_plugin_argv(argv, os.environ["KUSTOMIZE_PLUGIN_CONFIG_STRING"])
    # The reporter of this run, once there is one: an interrupt may come at any point.
    current: list[Reporter] = [Reporter()]
    # What a caller had, given back as the run ends; taken before any is
    # replaced, so that a signal as they are replaced is handled below.
    previous = signals.handlers()
    try:
        _install_signal_handlers()
        status = _main(list(argv), current, stdin_name)
        if signals.received is not None:
            # Raised where Python swallowed it (signals.on_signal): the run went on.
            status = _interrupted(signals.received, current[0])
        # Within the try: a signal until they are held is handled below.
        signals.hold()
    except KeyboardInterrupt:
        status = _interrupted(signal.SIGINT, current[0])
    except Interrupted as exc:
        status = _interrupted(exc.signum, current[0])
    except Exception as exc:  # noqa: BLE001
        # Raised where _main's own handlers are no help: while an error was
        # being reported (a module it loads lazily, under a memory limit),
        # or as the output was written (its bytes, a part at a time).
        try:  # here, not in a function: a signal at its start would be outside its try
            signals.hold()
        except (KeyboardInterrupt, Interrupted):
            pass  # noted all the same (signals.on_signal sets `received` before it raises)
        status = _failed_late(exc, current[0])
    except BaseException:
        _close(current[0], previous)  # SystemExit, from code a caller gave: closed, then on its way
        raise
    return _close(current[0], previous, status)


def _close(reporter: Reporter, previous: dict[int, object], status: int = 1) -> int:
    """Closes the run's reporter (the rest of its log written, what a hidden
    stderr needs delivered), then gives the signal handlers back. A signal
    that comes meanwhile is noted, not raised (main holds them as its run
    ends: raised in the middle of writing the log, one was a traceback, and
    the log lost its last lines). The run is done by then, its output
    written: it ends as it would have, which is what the signal asked.
    Given back with the signals held by the kernel, so that one that comes
    then reaches the caller's handler, not one of postrender's."""
    try:
        reporter.close()
    except Exception as exc:  # noqa: BLE001 - out of memory as the log is written
        status = _failed_late(exc, reporter)
    finally:
        with signals.deferred():
            _restore_signal_handlers(previous)
    return status


def _failed_late(exc: Exception, reporter: Reporter) -> int:
    """The line for an exception _main did not handle, as _main says one;
    written straight to the descriptor where even the reporter fails (out
    of memory, it may have nothing left to format a line with)."""
    try:
        reporter.error(_unexpected(exc))
    except Exception:  # noqa: BLE001
        try:
            os.write(2, b"postrender: error: " + OUT_OF_MEMORY.encode() + b"\n" if memory_short(exc)
                     else b"postrender: error: internal error\n")
        except OSError:
            pass
    return 1


def _unexpected(exc: Exception) -> str:
    """The one line for an exception no handler expects."""
    if os.environ.get("POSTRENDER_DEBUG") and sys.stderr is not None:
        import traceback  # only here: loading it costs every run a few ms

        # To stderr only: with it closed, traceback would print to stdout, into the stream.
        traceback.print_exception(exc, file=sys.stderr)
    if memory_short(exc):
        # Not a bug to report nor a broken install: the machine's or the job's limit.
        return OUT_OF_MEMORY
    if isinstance(exc, ImportError) and exc.name:
        # A broken install, not a bug: say what to mend (a module name quotes no input).
        return f"cannot load the module {quoted(exc.name)} postrender needs; reinstall postrender with its dependencies"
    # The exception text could quote input, so only its type is shown.
    return f"internal error ({type(exc).__name__}); please report it with POSTRENDER_DEBUG=1 output"


def _interrupted(signum: int, reporter: Reporter) -> int:
    # One line: Helm 4 discards stderr, so the log file says why it stopped too.
    reporter.error(signals.line(signum))
    return 128 + signum


def _install_signal_handlers() -> None:
    # entry.py installs signals.stop_at_once before this module loads; here
    # the run's own, for the console script and a caller that calls main().
    signals.received = None
    signals.install(on_signal)


def _restore_signal_handlers(previous: dict[int, object]) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)  # type: ignore[arg-type]


def _main(argv: list[str], current: list[Reporter], stdin_name: str | None = None) -> int:
    reporter = current[0]
    status = 0
    output_file = None
    args = None
    try:
        args = parse(argv)
        args.stdin_name = stdin_name
        verbosity = getattr(args, "verbose", 0)
        log_file, named = _log_setting(getattr(args, "log_file", None))
        reporter = current[0] = Reporter(verbose=verbosity >= 1, log_file=log_file, log_named=named)
        _check_log_file_apart(log_file, args, named)
        reporter.open_log()
        output_file = getattr(args, "output_file", None)
        if output_file == "":
            raise UsageError("-o/--output: an empty path (use - for standard output)")
        if output_file in (None, "-"):
            _check_stdout(_stdout_advice(args))
        output = _without_cyclic_gc(_BY_NAME[args.command].run, args, reporter)
        if isinstance(output, tuple):
            output, status = output
    except _ShowHelp as shown:
        # Help is output too: refused as any command's, not an internal
        # error as it is written to a closed stdout (cli62).
        try:
            _check_stdout("")
        except UsageError as exc:
            return _refused(argv, exc, current)
        output, output_file = shown.text, None
    except UsageError as exc:
        if args is None:  # the command line itself was refused, before the run's reporter was made
            return _refused(argv, exc, current)
        reporter.error(str(exc))
        return 2
    except PostrenderError as exc:
        from .frontends.krm import ResourceListError

        for problem in exc.problems():
            reporter.error(str(problem))
        if not isinstance(exc, ResourceListError):
            return 1
        # The KRM spec wants the ResourceList, with the error in `results`, even on failure.
        output, status = exc.output, exc.status
    except OSError as exc:
        reporter.error(_os_error(exc))
        return 1
    except Exception as exc:  # noqa: BLE001 - a deploy path must never see a traceback
        reporter.error(_unexpected(exc))
        return 1
    parts = [output] if isinstance(output, str) else output
    # The log first: a run killed as its output is written (a reader that
    # stopped reading, a deployer's timeout) has said all it will.
    reporter.write_log()
    try:
        if output_file not in (None, "-"):
            write_file(output_file, parts)
        else:
            write_stdout(parts)
    except BrokenPipeError:
        # The reader stopped reading (`| head`): nothing to say, as for cat.
        return 128 + signal.SIGPIPE
    except OSError as exc:
        # -o FILE: named as given, not by the file beside it written first.
        what = "standard output" if output_file in (None, "-") else output_file
        reporter.error(_os_error(exc, what))
        return 1
    return status


def _refused(argv: list[str], exc: UsageError, current: list[Reporter]) -> int:
    """A command line refused before its run's reporter was made."""
    reporter = current[0] = _reporter_for_refused(argv)
    reporter.error(str(exc))
    return 2


def _os_error(exc: OSError, what: str | None = None) -> str:
    where = what or exc.filename
    return f"{where + ': ' if where else ''}{exc.strerror or type(exc).__name__}"


def _stdout_advice(args: argparse.Namespace) -> str:
    """What to do instead of writing to stdout: only a command whose -o
    names a file has somewhere else (graph's, diff's and version's -o is
    a format)."""
    return "; pass -o FILE" if hasattr(args, "output_file") else ""


def _check_stdout(advice: str) -> None:
    """Refuse before any work when standard output cannot take the output:
    every command's, and help's."""
    if sys.stdout is None:
        raise UsageError(f"standard output is closed{advice}")
    fd = _fileno(sys.stdout)
    if fd is None:
        return
    try:
        import fcntl

        mode = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE
    except OSError:
        raise UsageError(f"standard output is closed{advice}") from None
    if mode == os.O_RDONLY:
        raise UsageError(f"standard output is not open for writing{advice}")


def _fileno(stream: object) -> int | None:
    try:
        return stream.fileno()  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return None


# Characters of a part encoded at once (write_stdout): as many as the
# writer puts in a part of a large document (write._PART), so that a part
# and its bytes are the most held as it is written.
_ENCODED_AT_ONCE = 1 << 18


def write_stdout(parts: Iterable[str]) -> None:
    """The stream as UTF-8 bytes, whatever the locale says about stdout,
    encoded a part at a time: never a second copy of the whole stream."""
    stdout = sys.stdout
    buffer = getattr(stdout, "buffer", None)
    fd = _fileno(stdout)
    rewind = _where_the_stream_starts(fd, stdout)
    try:
        if buffer is not None:
            stdout.flush()
            for part in parts:
                # A large part (one big document, a whole List) is encoded a
                # piece at a time: its bytes whole would be another copy of it.
                for at in range(0, len(part), _ENCODED_AT_ONCE):
                    # A pipe may take part of a large write (its reader stopped after
                    # 64 KiB); BufferedWriter then reports the count instead of an error.
                    data = memoryview(part[at:at + _ENCODED_AT_ONCE].encode("utf-8"))
                    while data:
                        data = data[buffer.write(data):]
                # Let go before the next part is made: held, this one and
                # its last bytes were two MiB more at a large List's peak.
                part = data = None  # (data: unset for an empty part)
            buffer.flush()
        else:
            for part in parts:
                stdout.write(part)
            stdout.flush()
    except BaseException as stopped:
        if rewind is not None:
            # A file (`> out.yaml`): what was written of the stream goes,
            # so a full disk or an interrupt leaves nothing of it, as -o does.
            try:
                os.ftruncate(fd, rewind)  # type: ignore[arg-type]
                # And back there: stderr may share the file (`> log 2>&1`),
                # and its message goes where the stream would have started.
                os.lseek(fd, rewind, os.SEEK_SET)  # type: ignore[arg-type]
            except OSError:
                pass
        if (rewind is not None or isinstance(stopped, OSError)) and fd is not None:
            # Python flushes stdout again at exit and would print a second,
            # unhandled error, or write what is buffered after the cut:
            # point the descriptor at /dev/null first.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, fd)
            os.close(devnull)
        raise


def _where_the_stream_starts(fd: int | None, stdout: object) -> int | None:
    """Where in a regular file standing for stdout the stream starts (its
    end, when opened to append: `>>`), to cut it back to; None for a pipe,
    a terminal or a device, where what is written is gone."""
    if fd is None:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        stdout.flush()  # type: ignore[attr-defined]
        import fcntl  # (POSIX; stdout is a regular file only here)

        if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND:
            return os.fstat(fd).st_size
        return os.lseek(fd, 0, os.SEEK_CUR)
    except (OSError, ValueError, ImportError):
        return None


def write_file(path: str, parts: Iterable[str]) -> None:
    """Write all of the parts, as UTF-8, to path or nothing: a new file
    beside it, renamed over it once whole. A FIFO or device (/dev/stdout) is
    written directly.

    The new file has no name while it is written (Linux's O_TMPFILE), so a
    run killed then (SIGKILL, the OOM killer, a CI timeout) leaves nothing
    behind: a stream's Secrets are never left in a stray file beside the
    output, for a `git add -A` to pick up. It is given a name only once
    whole, and renamed over the target at once. Where the system or file
    system has no unnamed files it is written under a hidden temporary
    name, removed on any error Python sees.

    It replaces the file `> FILE` would have truncated, and keeps what `>`
    keeps: the mode, the owner and group, and extended attributes (ACLs).
    Where the group cannot be kept (a user not in it), the group's
    permissions are dropped rather than given to the user's own group.
    Another user's file (mode 0666) becomes the writer's own, and a hard
    link to the old file keeps its bytes, as after `sed -i`: the price of
    whole or nothing."""
    try:
        existing = os.stat(path)
    except FileNotFoundError:
        existing = None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        with open(path, "wb") as handle:
            _write_parts(handle, parts)
        return
    # Through a symlink, the file it points to is replaced, not the link.
    target = os.path.realpath(path)
    directory, name = os.path.split(target)
    if existing is not None and not os.access(target, os.W_OK):
        # `>` would refuse it; a file renamed over it would not ask.
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
    fd = _unnamed_file(directory)
    temporary = None
    if fd is None:
        import tempfile  # only for -o FILE: it loads shutil, random, bz2 and lzma

        try:
            fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
        except OSError as exc:
            if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
                # The file may be writable: `>` would write it in place.
                raise OSError(exc.errno, f"cannot create a file in its folder, to rename over it ({exc.strerror})",
                              path) from None
            raise
    try:
        with os.fdopen(fd, "wb") as handle:
            _write_parts(handle, parts)
            handle.flush()
            _keep_attributes(handle.fileno(), target, existing)
            os.fsync(handle.fileno())
            if temporary is None:
                temporary = _name_unnamed(handle.fileno(), directory, name)
        os.replace(temporary, target)
    except BaseException:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass
        raise


def _unnamed_file(directory: str) -> int | None:
    """A new file in `directory` that has no name yet (O_TMPFILE), or None
    where the system or its file system makes none."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None:
        return None
    try:
        fd = os.open(directory, flag | os.O_WRONLY | os.O_CLOEXEC, 0o600)
    except OSError:
        return None  # (not supported there; the named way says what else is wrong)
    if not os.path.exists(f"/proc/self/fd/{fd}"):
        # No /proc (a bare container): it could never be given a name.
        os.close(fd)
        return None
    return fd


def _name_unnamed(fd: int, directory: str, name: str) -> str:
    """Gives the unnamed file a hidden name beside the target, to rename:
    linkat(2) of /proc/self/fd/N with AT_SYMLINK_FOLLOW, as open(2) shows
    (os.link calls linkat, not link(2), only when given a directory fd)."""
    directory_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for _ in range(100):
            candidate = f".{name}.{os.urandom(6).hex()}.tmp"
            try:
                os.link(f"/proc/self/fd/{fd}", candidate, dst_dir_fd=directory_fd, follow_symlinks=True)
                return os.path.join(directory, candidate)
            except FileExistsError:
                continue
    finally:
        os.close(directory_fd)
    raise FileExistsError(f"no free temporary name beside {name}")


def _keep_attributes(fd: int, target: str, existing: os.stat_result | None) -> None:
    """What `> FILE` would give the new file: the old file's mode, owner,
    group and extended attributes; a new file the umask's mode."""
    if existing is None:
        os.fchmod(fd, 0o666 & ~_umask())
        return
    mode = stat.S_IMODE(existing.st_mode)
    written = os.fstat(fd)
    if (written.st_uid, written.st_gid) != (existing.st_uid, existing.st_gid):
        try:
            os.fchown(fd, existing.st_uid, existing.st_gid)
        except PermissionError:
            try:
                os.fchown(fd, -1, existing.st_gid)
            except PermissionError:
                # The group's bits would now be the user's own group's.
                mode &= ~0o070
    os.fchmod(fd, mode)
    _copy_extended_attributes(target, fd)


def _copy_extended_attributes(source: str, fd: int) -> None:
    """Copies the extended attributes the user may set (a POSIX ACL is
    one: system.posix_acl_access); one it may not set is left out, as
    `cp --preserve=xattr` leaves it."""
    listxattr = getattr(os, "listxattr", None)
    if listxattr is None:
        return
    try:
        names = listxattr(source)
    except OSError:
        return
    for attribute in names:
        try:
            os.setxattr(fd, attribute, os.getxattr(source, attribute))
        except OSError:
            pass


def _write_parts(handle, parts: Iterable[str]) -> None:
    for part in parts:
        handle.write(part.encode("utf-8"))
        del part  # before the next part is made (write_stdout)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _without_cyclic_gc(command: Callable[[argparse.Namespace, Reporter], str | Iterable[str] | tuple[str, int]],
                       args: argparse.Namespace, reporter: Reporter) -> str | Iterable[str] | tuple[str, int]:
    """Run a command with Python's cyclic garbage collector paused.

    A stream becomes millions of small node objects, all alive until the end
    and free of reference cycles (recursive aliases are refused). Each pass
    of the collector walks all of them, so its cost grows with the heap and
    made a linear render quadratic: 4.4 s instead of 1.7 s at 4,000 objects.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return command(args, reporter)
    finally:
        if enabled:
            gc.enable()
