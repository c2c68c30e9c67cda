"""cli.write_stdout: the stream as UTF-8 bytes, a large part encoded a piece
at a time (never a second copy of it whole), byte for byte the same."""

import io

import pytest

from postrender import cli


class _Stdout(io.TextIOWrapper):
    """A text stdout over bytes, whose buffer takes at most `most` bytes a
    write, as a pipe whose reader is slow does."""

    def __init__(self, most: int) -> None:
        self.raw_bytes = io.BytesIO()
        super().__init__(self.raw_bytes, encoding="ascii")
        self.most = most
        self.writes: list[int] = []

    @property
    def buffer(self):  # type: ignore[override]
        stdout = self

        class Partial:
            def write(self, data) -> int:
                taken = bytes(data[:stdout.most])
                stdout.writes.append(len(taken))
                return stdout.raw_bytes.write(taken)

            def flush(self) -> None:
                pass

        return Partial()


@pytest.mark.parametrize("most", [1 << 16, 1 << 30])
def test_a_large_part_is_written_whole_in_pieces(monkeypatch, most):
    # Characters of 1 to 4 bytes straddle every piece's bounds.
    part = ("é€😀a" * ((3 << 20) // 4 + 7))
    parts = ["head\n", part, "tail\n"]
    stdout = _Stdout(most)
    monkeypatch.setattr(cli.sys, "stdout", stdout)
    cli.write_stdout(iter(parts))
    assert stdout.raw_bytes.getvalue() == "".join(parts).encode("utf-8")
    # Never more than a piece's bytes at once (4 bytes a character at most).
    assert max(stdout.writes) <= 4 * cli._ENCODED_AT_ONCE
    assert len(stdout.writes) > 3
