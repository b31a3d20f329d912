"""Hang guards that run on every supported Python (asyncio.timeout is 3.11+)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


async def within(seconds: float, awaitable: Awaitable[T]) -> T:
    """``await awaitable``, or the builtin TimeoutError after ``seconds`` (on 3.10
    asyncio.wait_for raises asyncio.TimeoutError, not yet the builtin one)."""
    try:
        return await asyncio.wait_for(awaitable, seconds)
    except asyncio.TimeoutError:
        raise TimeoutError(f"still waiting after {seconds:g} s") from None


async def poll(predicate: Callable[[], bool], step: float) -> None:
    """Return once ``predicate()`` holds, checking every ``step`` seconds."""
    while not predicate():
        await asyncio.sleep(step)
