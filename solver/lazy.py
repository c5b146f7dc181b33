"""A lazy attribute: computed on first use, then kept on the instance.

functools.cached_property in Python 3.11 takes one lock per attribute for every instance
of the class: while one rule set's table is computed, every other thread that wants the
same attribute of any other instance waits (one slow upload stalled every visitor's
advice).  `lazy` locks per instance and attribute: two threads wanting the same value of
the same instance compute it once; any other instance goes its own way."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")
_LOCKS = "__lazy_locks__"  # (instance.__dict__: attribute -> the lock of its first compute)


class lazy(Generic[T]):  # noqa: N801 (named like the property it replaces)
    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> lazy[T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> T | lazy[T]:
        if instance is None:
            return self
        d = instance.__dict__
        try:
            return d[self.name]
        except KeyError:
            pass
        # (dict.setdefault is atomic: one lock per instance and attribute, made once)
        locks: dict[str, Any] = d.setdefault(_LOCKS, {})
        lock = locks.setdefault(self.name, threading.RLock())
        with lock:
            if self.name in d:
                return d[self.name]
            value = self.func(instance)
            d[self.name] = value  # (frozen dataclasses too: their __dict__, as cached_property)
        locks.pop(self.name, None)
        return value
