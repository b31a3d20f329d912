"""Everything below the session: reliable links over UDP, fault injection, discovery.

* :mod:`~lanTag.net.frame`, :mod:`~lanTag.net.linkstate`, :mod:`~lanTag.net.link`:
  the sans-IO reliable datagram link layer (no clock, no sockets, no randomness).
* :mod:`~lanTag.net.endpoint`: the ``DatagramMachine`` protocol every driver runs.
* :mod:`~lanTag.net.faults`: seeded fault injection; :mod:`~lanTag.net.sim_network`: an
  in-memory network on a virtual clock; :mod:`~lanTag.net.udp`: the asyncio pump.
* :mod:`~lanTag.net.lobby_adverts` (pure) and :mod:`~lanTag.net.discovery` (zeroconf): mDNS lobbies.

See docs/NETWORK.md for the wire format and the design.
"""
