"""Errors that reach the user as one line: which document, which line, what."""

from __future__ import annotations

from .records import record

OUT_OF_MEMORY = "out of memory: the input needs more than this process may use (raise the limit, or split the input)"


def memory_short(exc: BaseException) -> bool:
    """Whether `exc` says the process ran out of memory: a MemoryError, or an
    extension module the loader could not map under a memory limit
    (`ulimit -v`: "failed to map segment from shared object"). Without a
    limit the same words mean something else (a noexec mount, SELinux): a
    broken install, not memory."""
    if isinstance(exc, MemoryError):
        return True
    if not isinstance(exc, ImportError):
        return False
    if "Cannot allocate memory" in str(exc):
        return True
    return "failed to map segment" in str(exc) and _memory_limited()


def _memory_limited() -> bool:
    try:
        import resource

        return any(resource.getrlimit(limit)[0] != resource.RLIM_INFINITY
                   for limit in (resource.RLIMIT_AS, resource.RLIMIT_DATA))
    except (ImportError, OSError, ValueError, AttributeError):
        return False


@record(frozen=True)
class Location:
    """Where in the input something is. Every field is optional context."""

    document: int | None = None  # 1-based position in the stream
    source: str | None = None  # file argument, `# Source:` comment or Helm 4 annotation
    kind: str | None = None
    name: str | None = None
    line: int | None = None  # 1-based line in the stream
    # The line in that chart file's rendered text (read.documents.Rendered), when
    # `source` is a chart file named by Helm.
    rendered_line: int | None = None
    # `source` is a file an annotation names (Helm 4, kustomize's origin), in
    # a stream its host wrote again: `line` is the stream's, not the file's.
    stream_line: bool = False

    def describe(self) -> str:
        parts: list[str] = []
        if self.document is not None:
            parts.append(f"document {self.document}")
        details: list[str] = []
        if self.source:
            details.append(self.source)
            if self.rendered_line is not None:
                details.append(f"rendered line {self.rendered_line}")
        if self.kind or self.name:
            details.append(f"{self.kind or '?'}/{self.name or '?'}")
        if details:
            parts.append(f"({', '.join(details)})")
        if self.line is not None:
            parts.append(self.line_text(self.line))
        return " ".join(parts)

    def line_text(self, line: int) -> str:
        """`line N`, a line of where it is: `stream line N` where its file is
        one an annotation names, whose lines the stream's are not."""
        return f"stream line {line}" if self.stream_line and self.source else f"line {line}"


class PostrenderError(Exception):
    """A problem with the input or the environment; exit status 1."""

    def __init__(self, message: str, location: Location | None = None, field: str | None = None,
                 value: str | None = None) -> None:
        """`field`: the path of the field it is about, where one is (a KRM
        result's `field`); `value`: that field's value, where showing it
        shows no secret (a name, never a Secret's data)."""
        super().__init__(message)
        self.message = message
        self.location = location
        self.field = field
        self.value = value

    def __str__(self) -> str:
        where = self.location.describe() if self.location else ""
        text = f"{where}: {self.message}" if where else self.message
        # Any line break, not only LF: names and `# Source:` comments come from
        # the input, which may hold a lone CR or U+2028.
        return " ".join(text.splitlines())

    def problems(self) -> list["PostrenderError"]:
        """Each problem, reported on a line of its own."""
        return [self]


class Problems(PostrenderError):
    """Several problems found at once: the render fails naming every one."""

    def __init__(self, problems: list[PostrenderError]) -> None:
        super().__init__(problems[0].message, problems[0].location)
        self._problems = problems

    def problems(self) -> list[PostrenderError]:
        return list(self._problems)


class UsageError(Exception):
    """Bad command line or configuration; exit status 2."""
