"""The log verification tests replay games of the toy engine of tests/session."""

from tests.session.conftest import toy_engine

__all__ = ["toy_engine"]
