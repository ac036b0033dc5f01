"""Source text and spans: where in a card a thing was written."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path


def content_hash(text: str) -> str:
    """The hash that identifies a card's text everywhere (sha256 of UTF-8):
    in the typed model, compiled manifests and the run store."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: `card NAME` at the start of a line (the grammar's first statement; NAME as in sci.lark).
_CARD_HEAD = re.compile(r"^\s*card\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)


def declared_card_name(text: str) -> str | None:
    """The name a card's text declares (`card NAME "TITLE" {`), without
    parsing it: build's fast path (which folder a card owns) and curation's
    drafts read it before, or instead of, checking the card."""
    m = _CARD_HEAD.search(text)
    return m.group(1) if m else None


def node(cls):
    """A frozen dataclass whose `__eq__`, `__hash__` and `__repr__` are
    shared functions reading the class's field names, instead of source that
    `dataclass` writes and compiles for each class: the same behaviour as
    `@dataclass(frozen=True)` (equal when of one class with equal fields,
    the hash of the field tuple, `Name(field=value, ...)`), at half the
    compiling when the module loads, which a lint pays on every file (the AST and the checked model use it)."""
    cls = dataclasses.dataclass(frozen=True, eq=False, repr=False)(cls)
    fields = dataclasses.fields(cls)
    cls._compared = tuple(f.name for f in fields if f.compare)
    cls._hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
    cls._shown = tuple(f.name for f in fields if f.repr)
    cls.__eq__, cls.__hash__, cls.__repr__ = _node_eq, _node_hash, _node_repr
    return cls


def _node_eq(self, other):
    if other.__class__ is not self.__class__:
        return NotImplemented
    return tuple(getattr(self, n) for n in self._compared) == tuple(getattr(other, n) for n in other._compared)


def _node_hash(self):
    return hash(tuple(getattr(self, n) for n in self._hashed))


def _node_repr(self):
    shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._shown)
    return f"{self.__class__.__qualname__}({shown})"


@dataclass(frozen=True, slots=True)
class Span:
    """A region of a source file: 1-based lines and columns, end exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def of(cls, item) -> "Span":
        """The span of a Lark token or tree (parsed with propagate_positions)."""
        meta = getattr(item, "meta", item)
        return cls(meta.line, meta.column, meta.end_line, meta.end_column)

    def to(self, other: "Span") -> "Span":
        """The span from the start of self to the end of other."""
        return Span(self.line, self.column, other.end_line, other.end_column)


@dataclass(frozen=True)
class SourceText:
    """A card's text and the path it was read from (for messages only)."""

    path: str
    text: str

    @cached_property
    def _lines(self) -> list[str]:
        # lines end at "\n" only, as Lark counts them (not at \f, \r, U+2028 ...);
        # split once, so rendering many diagnostics stays linear in the card's size
        return self.text.split("\n")

    def line(self, number: int) -> str:
        lines = self._lines
        if 1 <= number <= len(lines):
            return lines[number - 1].rstrip("\r")
        return ""


class CardReadError(OSError):
    """A card file that cannot be read; the message names the file and why."""


def read_card_text(path: Path) -> str:
    """A card file's text (UTF-8); only regular files are opened, so a FIFO
    or a device named *.sci cannot hang the reader."""
    try:
        if not path.is_file():
            why = "a broken link" if path.is_symlink() and not path.exists() else \
                  "no such file" if not path.exists() else "not a regular file"
            raise CardReadError(f"{path}: cannot read the card: {why}")
        return path.read_bytes().decode("utf-8")
    except CardReadError:
        raise
    except OSError as exc:
        raise CardReadError(f"{path}: cannot read the card: {exc.strerror or exc}") from None
