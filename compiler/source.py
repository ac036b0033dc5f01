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
    """A frozen dataclass whose methods are shared functions reading the
    class's field names, instead of source that `dataclass` writes and
    compiles for each class: the same behaviour as `@dataclass(frozen=True)`
    (equal when of one class with equal fields, the hash of the field tuple,
    `Name(field=value, ...)`, assignment refused with FrozenInstanceError,
    `dataclasses.fields` and `replace`, pickling). Only `__init__` is
    written for each class, and only when the class is first instantiated:
    a lint pays on every file for loading the AST and the checked model,
    which use it, and builds a few of their classes."""
    doc = cls.__dict__.get("__doc__")
    if not doc:  # dataclass would ask inspect for a signature to make one
        cls.__doc__ = cls.__name__
    bases = [b.__dataclass_params__ for b in cls.__mro__[1:] if "__dataclass_params__" in b.__dict__]
    if not all(p.frozen for p in bases):
        raise TypeError("cannot inherit frozen dataclass from a non-frozen one")
    # fields only, no `init`, not frozen: every node is frozen by the shared __setattr__ below, so
    # dataclass compiles nothing. Over a frozen base dataclass would write the two frozen methods
    # (an exec each, ~0.15 ms; the AST's fifteen `Named` statements were ~5 ms of every lint), and
    # it refuses a class that is not frozen: the bases read as not frozen while it records the fields
    for p in bases:
        p.frozen = False
    try:
        cls = dataclasses.dataclass(init=False, eq=False, repr=False)(cls)
    finally:
        for p in bases:
            p.frozen = True
    cls.__setattr__, cls.__delattr__ = _node_setattr, _node_delattr
    cls.__dataclass_params__.frozen = True  # as it is: a dataclass subclass must be frozen too
    fields = dataclasses.fields(cls)
    if len(fields) != len(cls.__dataclass_fields__) or any(f.kw_only for f in fields):
        raise TypeError(f"{cls.__name__}: a node has plain fields only (no InitVar, ClassVar or kw_only)")
    init = [f for f in fields if f.init]
    for before, after in zip(init, init[1:]):
        if _has_default(before) and not _has_default(after):
            raise TypeError(f"non-default argument {after.name!r} follows default argument")
    if not doc:
        cls.__doc__ = f"{cls.__name__}({', '.join(f.name for f in init)})"
    cls._compared = tuple(f.name for f in fields if f.compare)
    cls._hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
    cls._shown = tuple(f.name for f in fields if f.repr)
    cls.__eq__, cls.__hash__, cls.__repr__ = _node_eq, _node_hash, _node_repr
    if "__init__" not in cls.__dict__:  # a class's own __init__ is kept, as dataclass keeps it
        cls.__init__ = _init_on_first_use(cls)
    return cls


def _has_default(f: dataclasses.Field) -> bool:
    return f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING


def _init_on_first_use(cls):
    def __init__(self, *args, **kwargs):
        cls.__init__ = init = _node_init(cls)
        init(self, *args, **kwargs)
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


class _Factory:
    """The default of a parameter whose field has a default_factory."""

    def __repr__(self):
        return "<factory>"


_FACTORY = _Factory()


def _node_init(cls):
    """`cls.__init__` as `@dataclass(frozen=True)` writes it."""
    fields = dataclasses.fields(cls)
    scope = {"__node_set": object.__setattr__, "__node_factory": _FACTORY}
    params, body = [], []
    for i, f in enumerate(fields):
        if f.default_factory is not dataclasses.MISSING:
            scope[f"__node_factory{i}"] = f.default_factory
            value = (f"__node_factory{i}() if {f.name} is __node_factory else {f.name}" if f.init else f"__node_factory{i}()")
            default = "=__node_factory"
        elif f.default is not dataclasses.MISSING:
            scope[f"__node_default{i}"] = f.default
            value, default = (f.name if f.init else f"__node_default{i}"), f"=__node_default{i}"
        elif f.init:
            value, default = f.name, ""
        else:  # no value to give it: left unset, as dataclass leaves it
            continue
        if f.init:
            params.append(f.name + default)
        body.append(f"    __node_set(__dataclass_self__, {f.name!r}, {value})")
    source = f"def __init__({', '.join(['__dataclass_self__', *params])}):\n" + "\n".join(body or ["    pass"])
    exec(source, scope)  # noqa: S102 - our own source, from the class's field names
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__code__ = init.__code__.replace(co_qualname=init.__qualname__)  # what a TypeError names
    return init


def _node_setattr(self, name, value):
    if "_compared" in type(self).__dict__ or name in self.__dataclass_fields__:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def _node_delattr(self, name):
    if "_compared" in type(self).__dict__ or name in self.__dataclass_fields__:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


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
