from __future__ import annotations

from collections.abc import Iterator

import pytest

from lanTag.rules.registry import register_engine, unregister_engine


@pytest.fixture(autouse=True)
def toy_engine() -> Iterator[None]:
    register_engine("toy", "tests.session.toygame", "Toy")
    yield
    unregister_engine("toy")
