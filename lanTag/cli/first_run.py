"""The first run: ask for a nickname before the identity is made (never without a terminal).

Every command that seats you (play, host, join) and `lantag id` go through
:func:`identity_for_play`.  Without a terminal (scripts, CI, --headless under a pipe)
nothing is asked: the login name is the nickname, as before.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable

from lanTag.peer.runtime import (
    IdentityError,
    LocalIdentity,
    check_nickname,
    default_nickname,
    identity_path,
    load_identity,
)


def ask_nickname(default: str, ask: Callable[[str], str], say: Callable[[str], None]) -> str:
    """Ask until the answer is a nickname; an empty answer (or end of input) is ``default``."""
    while True:
        try:
            answer = ask(f"Your nickname at the table [{default}]: ").strip()
        except EOFError:
            return default
        if not answer:
            return default
        try:
            return check_nickname(answer)
        except IdentityError as exc:
            say(f"  {exc}; try again")


def ask_line(prompt: str) -> str:
    """``input(prompt)``, but the first Ctrl-C ends it (KeyboardInterrupt: lantag exits 130).

    Inside a command's event loop, asyncio's own SIGINT handler only cancels the main
    task, which a blocking ``input()`` never notices: the first Ctrl-C was swallowed
    until Enter.  Python's default handler raises in the read itself."""
    try:
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:  # not the main thread: nothing to swap, input() as it is
        return input(prompt)
    try:
        return input(prompt)
    finally:
        signal.signal(signal.SIGINT, previous)


def identity_for_play(
    ask: Callable[[str], str] = ask_line, interactive: bool | None = None
) -> LocalIdentity:
    """This laptop's identity; on the first run with a terminal, the nickname is asked."""
    if interactive is None:
        interactive = sys.stdin.isatty() and sys.stdout.isatty()
    if identity_path().exists() or not interactive:
        return load_identity()

    def say(text: str) -> None:
        print(text, file=sys.stderr)

    say("First run: others at the table will see you by a nickname.")
    nickname = ask_nickname(default_nickname(), ask, say)
    me = load_identity(nickname=nickname)
    say(f"You are {me.nickname} (change it any time: lantag id --nickname NAME)")
    return me
