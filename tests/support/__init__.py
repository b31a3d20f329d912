"""Test-only helpers: whole peers on the simulated network, and adversarial peers.

Not part of the product: the wheel ships ``lanTag`` only, and no lanTag module imports
``tests`` (tests/test_architecture.py).  ``tests.support.table`` builds a table of whole
peers (links + lobby + session + bot driver) on :class:`~lanTag.net.sim_network.SimNetwork`;
``tests.support.adversary`` wraps one of them in a cheating peer.  Three run as processes,
``python -m tests.support.adversary`` (the cheating peer), ``.crowd`` and ``.squatters``,
with the repository root on the import path (``processes.root_env``).  Used by the tests
and ``scripts/``.
"""
