"""Test-only helpers: whole peers on the simulated network, and adversarial peers.

Nothing in the product imports this package.  ``lanTag.testing.table`` builds a
table of whole peers (links + lobby + session + bot driver) on
:class:`~lanTag.net.sim_network.SimNetwork`; ``lanTag.testing.adversary`` wraps one
of them in a cheating peer.  Used by ``tests/chaos`` and ``scripts/``.
"""
