"""Bytes in: standard input, files and folders, checked and decoded."""

from __future__ import annotations

import re
from pathlib import Path
from typing import BinaryIO

from .errors import Location, PostrenderError, UsageError
from .read import Source

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
_DOCUMENT_START = re.compile(rb"^---(?=[ \t\r\n]|$)", re.M)


def gather(paths: list[str], stdin: BinaryIO, max_bytes: int) -> list[Source]:
    if not paths or paths == ["-"]:
        return [decode(_read_limited(stdin, max_bytes, "standard input"), None)]
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in MANIFEST_SUFFIXES))
        elif path.is_file() or raw == "-":
            files.append(path)
        else:
            raise UsageError(f"{raw}: no such file or folder")
    sources: list[Source] = []
    total = 0
    for file in files:
        try:
            with open(file, "rb") as handle:
                data = _read_limited(handle, max_bytes - total, str(file))
        except OSError as exc:
            raise PostrenderError(f"{file}: {exc.strerror}") from None
        total += len(data)
        sources.append(decode(data, str(file)))
    return sources


def _read_limited(handle: BinaryIO, max_bytes: int, what: str) -> bytes:
    data = handle.read(max_bytes + 1) if max_bytes >= 0 else b""
    if len(data) > max_bytes:
        raise PostrenderError(f"{what}: input larger than the limit of {max_bytes} bytes (--max-bytes)")
    return data


def decode(data: bytes, name: str | None) -> Source:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        markers = len(_DOCUMENT_START.findall(before))
        document = markers + (0 if data.startswith(b"---") else 1)
        raise PostrenderError(
            f"invalid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            Location(document, name, line=line),
        ) from None
    return Source(name, text)

