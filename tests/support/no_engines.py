"""A lanTag with no engine at all, for the check of a log without its rules (SPEC §9.2).

``lantag verify`` of a log whose engine this lanTag lacks takes the lane of
lanTag.log.without_rules; tests and the vector generator run it with the registry emptied,
so nothing in that lane can reach an engine, not even one of another rules version.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from lanTag.rules.registry import engine_ids, game_entry, register_entry, unregister_engine


@contextmanager
def no_engines() -> Iterator[None]:
    """Every engine unregistered for the block, then registered again in the same order."""
    entries = [game_entry(engine_id) for engine_id in engine_ids()]
    for engine_id in engine_ids():
        unregister_engine(engine_id)
    try:
        yield
    finally:
        for engine_id in engine_ids():  # one registered meanwhile goes too
            unregister_engine(engine_id)
        for entry in entries:
            register_entry(entry)
