"""A running peer: the machine that joins sockets, session and log, the join
handshake, resume, and the on-disk identity (docs/ARCHITECTURE.md)."""
