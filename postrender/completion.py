"""`postrender completion bash|zsh|fish`: completion scripts made from the
argparse parsers themselves, so a new flag or command completes at once.

Each shell completes: the command (first word; `render` is the default, so
files complete there too), the command's flags, the values of flags with a
fixed set of choices, and file names where a flag or argument takes a path.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from dataclasses import dataclass

SHELLS = ("bash", "zsh", "fish")
_PATH_METAVARS = {"FILE", "PATH"}


@dataclass(frozen=True)
class Flag:
    names: tuple[str, ...]
    help: str
    takes_value: bool
    choices: tuple[str, ...]
    path: bool  # the value is a file or folder
    # Its value only as `--flag=VALUE` (it may stand alone: --keep-original):
    # a word after it is not its value, so none is offered there.
    attached: bool = False
    # What each choice does, where the help says (choice_help); fish shows
    # a flag's description beside each of its values unless a value has one.
    choice_helps: tuple[str, ...] = ()


@dataclass(frozen=True)
class Spec:
    name: str
    summary: str
    flags: tuple[Flag, ...]
    positional_choices: tuple[str, ...]
    positional_paths: bool


def _specs(parsers: dict[str, argparse.ArgumentParser]) -> list[Spec]:
    from .options import bare_flags

    alone = bare_flags()
    specs = []
    for name, parser in parsers.items():
        flags: list[Flag] = []
        choices: tuple[str, ...] = ()
        paths = False
        for action in parser._actions:
            if action.help == argparse.SUPPRESS:
                continue
            if action.option_strings:
                takes_value = action.nargs != 0
                flag_choices = tuple(str(c) for c in action.choices or ())
                flags.append(Flag(
                    tuple(action.option_strings), _short_help(action.help or ""), takes_value,
                    flag_choices,
                    takes_value and str(action.metavar) in _PATH_METAVARS,
                    any(name in alone for name in action.option_strings),
                    tuple(choice_help(action.help or "", c) for c in flag_choices),
                ))
            elif action.choices:
                choices = tuple(str(c) for c in action.choices)
            else:
                paths = paths or str(action.metavar) in _PATH_METAVARS
        summary = (parser.description or "").split("\n")[0].rstrip(".")
        specs.append(Spec(name, summary, tuple(flags), choices, paths))
    return specs


def choice_help(text: str, choice: str) -> str:
    """What a flag's help says of one of its choices, written `CHOICE: what`
    or `CHOICE (what)` ("rename: version ConfigMaps and Secrets by content",
    "dot (Graphviz)"); "" where it says nothing of it."""
    match = re.search(rf"(?<![-\w]){re.escape(choice)}(?::\s+|\s+\()(?!default:)([^;()]+)", text)
    return _short_help(" ".join(match.group(1).split())).rstrip(",") if match else ""


def _short_help(text: str) -> str:
    first = re.split(r"[;(]", text)[0].strip()
    return first if len(first) <= 70 else first[:67].rstrip() + "..."


def script(shell: str, parsers: dict[str, argparse.ArgumentParser], summaries: dict[str, str]) -> str:
    """`summaries`: each command's one-line summary (cli.COMMANDS), the
    caller's to give so this module needs nothing from the command line."""
    specs = _specs(parsers)
    specs = [Spec(s.name, summaries.get(s.name, s.summary), s.flags, s.positional_choices, s.positional_paths)
             for s in specs]
    return {"bash": _bash, "zsh": _zsh, "fish": _fish}[shell](specs)


# --- bash ------------------------------------------------------------------------


def _bash(specs: list[Spec]) -> str:
    names = " ".join(s.name for s in specs)
    flag_cases, value_cases, positional_cases = [], [], []
    for spec in specs:
        flags = " ".join(n for f in spec.flags for n in f.names)
        flag_cases.append(f"        {spec.name}) flags=\"{flags}\" ;;")
        for flag in spec.flags:
            if not flag.takes_value:
                continue
            pattern = "|".join(f"{spec.name}:{n}" for n in flag.names)
            if flag.choices:
                action = f'COMPREPLY=($(compgen -W "{" ".join(flag.choices)}" -- "$cur"))'
            elif flag.path:
                action = '_postrender_files'
            else:
                action = "COMPREPLY=()"
            if flag.attached:
                # Its value only after `=`: a word after it is a path, as the parser reads it.
                value_cases.append(f"        {pattern}) if [[ $attached == 1 ]]; then {action}; return; fi ;;")
            else:
                value_cases.append(f"        {pattern}) {action}; return ;;")
        if spec.positional_choices:
            positional_cases.append(
                f'        {spec.name}) COMPREPLY=($(compgen -W "{" ".join(spec.positional_choices)}" -- "$cur")) ;;')
        elif spec.positional_paths:
            positional_cases.append(f"        {spec.name}) _postrender_files ;;")
    nl = "\n"
    return f"""# bash completion for postrender. Load it with: source <(postrender completion bash)
_postrender_files() {{
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
}}

_postrender() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    # --flag=value arrives as three words: --flag, =, value.
    local attached=0
    if [[ "$cur" == "=" ]]; then
        cur=""
        attached=1
    elif [[ "$prev" == "=" && $COMP_CWORD -ge 2 ]]; then
        prev="${{COMP_WORDS[COMP_CWORD-2]}}"
        attached=1
    fi
    [[ "$cur" == "=" ]] && cur=""
    local command=render first=1
    case " {names} " in
        *" ${{COMP_WORDS[1]}} "*) if [[ $COMP_CWORD -gt 1 ]]; then command="${{COMP_WORDS[1]}}"; first=2; fi ;;
    esac
    case "$command:$prev" in
{nl.join(value_cases)}
    esac
    local flags=""
    case "$command" in
{nl.join(flag_cases)}
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
        return
    fi
    if [[ $COMP_CWORD -eq 1 ]]; then
        _postrender_files
        COMPREPLY+=($(compgen -W "{names}" -- "$cur"))
        return
    fi
    case "$command" in
{nl.join(positional_cases)}
    esac
}}
complete -F _postrender postrender
"""


# --- zsh -------------------------------------------------------------------------


def _zsh_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "'\\''").replace("[", "(").replace("]", ")").replace(":", "\\:")


def _zsh_flag(flag: Flag) -> list[str]:
    value = ""
    if flag.takes_value:
        if flag.choices:
            value = f":value:({' '.join(flag.choices)})"
        elif flag.path:
            value = ":path:_files"
        else:
            value = ":value: "
    repeatable = "*" if flag.names[-1] in ("--config", "--filename", "--namespace") else ""
    exclusive = f"({' '.join(flag.names)})" if len(flag.names) > 1 and not repeatable else ""
    out = []
    for name in flag.names:
        equals = ("=-" if flag.attached else "=") if name.startswith("--") and flag.takes_value else ""
        out.append(f"'{exclusive}{repeatable}{name}{equals}[{_zsh_text(flag.help)}]{value}'")
    return out


def _zsh(specs: list[Spec]) -> str:
    described = "\n".join(f"    '{s.name}:{_zsh_text(s.summary)}'" for s in specs)
    functions = []
    cases = []
    for spec in specs:
        arguments = [item for flag in spec.flags for item in _zsh_flag(flag)]
        if spec.positional_choices:
            arguments.append(f"'1:{spec.name}:({' '.join(spec.positional_choices)})'")
        elif spec.positional_paths:
            arguments.append("'*:path:_files'")
        body = " \\\n    ".join(arguments)
        functions.append(f"_postrender_{spec.name}() {{\n  _arguments -s \\\n    {body}\n}}")
        cases.append(f"    {spec.name}) shift words; (( CURRENT-- )); _postrender_{spec.name} ;;")
    nl = "\n"
    return f"""#compdef postrender
# zsh completion for postrender. Install: postrender completion zsh > "${{fpath[1]}}/_postrender"
# or load it now: source <(postrender completion zsh)

{(nl + nl).join(functions)}

_postrender() {{
  local -a commands
  commands=(
{described}
  )
  if (( CURRENT == 2 )) && [[ $words[2] != -* ]]; then
    _describe -t commands 'postrender command' commands
    _files
    return
  fi
  case $words[2] in
{nl.join(cases)}
    *) _postrender_render ;;
  esac
}}

if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _postrender "$@"
else
  compdef _postrender postrender
fi
"""


# --- fish ------------------------------------------------------------------------


def _fish_text(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish_choices(words: Sequence[str], helps: Sequence[str]) -> str:
    """fish's candidate list, each value with its own description after a
    tab, empty where the help says nothing of it: without a tab, fish shows
    the flag's description beside every value ("annotate  rename: version
    ConfigMaps...")."""
    return _fish_text(" ".join(f"{word}\\t{_fish_word(help_)}" for word, help_ in zip(words, helps)))


def _fish_word(text: str) -> str:
    # One word of `complete -a`'s list, which fish splits as it splits a command line.
    return re.sub(r"([\\ '\"$*?~#(){}\[\];|&<>`])", r"\\\1", text)


def _fish(specs: list[Spec]) -> str:
    others = [s.name for s in specs if s.name != "render"]
    lines = [
        "# fish completion for postrender. Install:",
        "#   postrender completion fish > ~/.config/fish/completions/postrender.fish",
        "complete -c postrender -e",
    ]
    first = f"not __fish_seen_subcommand_from {' '.join(s.name for s in specs)}"
    for spec in specs:
        lines.append(f"complete -c postrender -n '{first}' -f -a {spec.name} -d {_fish_text(spec.summary)}")
    for spec in specs:
        if spec.name == "render":
            condition = f"not __fish_seen_subcommand_from {' '.join(others)}"
        else:
            condition = f"__fish_seen_subcommand_from {spec.name}"
        if not spec.positional_paths:
            lines.append(f"complete -c postrender -n '{condition}' -f")
        if spec.positional_choices:
            lines.append(f"complete -c postrender -n '{condition}' -f -a '{' '.join(spec.positional_choices)}'")
        for flag in spec.flags:
            parts = [f"complete -c postrender -n '{condition}'"]
            for name in flag.names:
                parts.append(f"-l {name[2:]}" if name.startswith("--") else f"-s {name[1:]}")
            if flag.attached:
                # fish has no value that must be attached: the `=` forms are words of their own.
                forms = _fish_choices([f"{flag.names[-1]}={choice}" for choice in flag.choices], flag.choice_helps)
                lines.append(f"complete -c postrender -n '{condition}' -f -a {forms}")
            elif flag.choices:
                parts.append(f"-x -a {_fish_choices(flag.choices, flag.choice_helps)}")
            elif flag.path:
                parts.append("-r -F")
            elif flag.takes_value:
                parts.append("-x")
            parts.append(f"-d {_fish_text(flag.help)}")
            lines.append(" ".join(parts))
    return "\n".join(lines) + "\n"
