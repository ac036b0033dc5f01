"""A value made once per object, found again by the object's identity.

For objects that are not hashable or not cheap to hash (a dict, a pydantic
record) and that the caller passes again unchanged: a card's constraint
checked at every experiment, a schema sent with every call, an episode's
earlier turns written into every later prompt. The object is held beside
its value, so its id cannot pass to another object while the entry is
kept; the memo is emptied when it holds `limit` entries, so it never grows
past that."""

from __future__ import annotations

from typing import Any, Callable, Generic, TypeVar

V = TypeVar("V")


class IdentityMemo(Generic[V]):
    """`get(obj, make)`: `make(obj)` the first time `obj` itself is asked for."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._kept: dict[int, tuple[Any, V]] = {}

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, obj: Any, make: Callable[[Any], V]) -> V:
        kept = self._kept.get(id(obj))
        if kept is not None and kept[0] is obj:
            return kept[1]
        value = make(obj)
        if len(self._kept) >= self._limit:
            self._kept.clear()
        self._kept[id(obj)] = (obj, value)
        return value
