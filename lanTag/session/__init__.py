"""The pure lockstep session: signed messages, agreement on each step, the log it writes.

docs/ARCHITECTURE.md maps its modules; nothing here does I/O or reads a clock.
"""
