"""The edges: real sockets, the clock, OS randomness, files.  Everything else is pure.

``open_peer`` puts a PeerMachine on a UDP socket; ``local_table`` builds the
`lantag play` setup (you plus bot peers, each on its own loopback socket, so
every game exercises the full stack).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import getpass
import os
import re
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from lanTag.errors import LanTagError, LocalProtocolError
from lanTag.fair.hash_chain import DEFAULT_LENGTH, HashChain
from lanTag.files import read_text, write_atomic, write_text_atomic
from lanTag.identity import Identity
from lanTag.log.file import LogWriter
from lanTag.net.faults import NetSim
from lanTag.net.link import LinkLayer
from lanTag.net.udp import UdpPump
from lanTag.peer.join_handshake import HostConfig, HostLobby, JoinLobby
from lanTag.peer.machine import Driver, LinkSender, PeerMachine
from lanTag.peer.names import clean_nickname
from lanTag.peer.resume import check_not_over, plan_resume, restore_session
from lanTag.session.transport import Addr

APP = "lantag"


def config_dir() -> Path:
    """Where the identity lives: ``$XDG_CONFIG_HOME/lantag`` when that is set (any OS),
    else the OS's convention (platformdirs): ``~/.config/lantag`` on Linux,
    ``~/Library/Application Support/lantag`` on macOS, ``%LOCALAPPDATA%\\lantag`` on Windows."""
    base = os.environ.get("XDG_CONFIG_HOME")
    if base:
        return Path(base) / "lantag"
    return Path(platformdirs.user_config_dir(APP, appauthor=False))


def data_dir() -> Path:
    """Where logs go: ``$XDG_DATA_HOME/lantag`` when set, else the OS's convention
    (``~/.local/share/lantag`` on Linux; the same folder as :func:`config_dir` elsewhere)."""
    base = os.environ.get("XDG_DATA_HOME")
    if base:
        return Path(base) / "lantag"
    return Path(platformdirs.user_data_dir(APP, appauthor=False))


def legacy_config_dir() -> Path:
    """Where lanTag kept the identity before platformdirs, on every OS."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "lantag"


def identity_path() -> Path:
    """The identity file; one left in the old place (``~/.config/lantag`` on macOS or
    Windows) is moved here first.  Never lost: the copy is written (atomically, synced)
    before the old file goes, and if the move fails the old file is used where it is."""
    path = config_dir() / "identity"
    legacy = legacy_config_dir() / "identity"
    if path.exists() or legacy == path or not legacy.exists():
        return path
    try:
        data = legacy.read_bytes()
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, data, private=True, exclusive=True)
    except FileExistsError:
        return path  # another lantag moved it meanwhile
    except OSError:
        return legacy
    with contextlib.suppress(OSError):
        legacy.unlink()
    return path


def default_nickname() -> str:
    """The login name: ``USER`` (Linux, macOS), ``USERNAME`` (Windows), else the OS's."""
    name = os.environ.get("USER") or os.environ.get("USERNAME")
    if not name:
        with contextlib.suppress(Exception):  # getpass raises OSError, KeyError, ImportError
            name = getpass.getuser()
    return "".join(c for c in name or "" if c.isprintable()).strip()[:32] or "player"


@dataclass(frozen=True)
class LocalIdentity:
    identity: Identity
    nickname: str


NICKNAME = re.compile(r"[^\x00-\x1f\x7f]{1,32}")


class IdentityError(LanTagError, ValueError):
    """A bad nickname or a damaged identity file; the message says what to do."""


def check_nickname(nickname: str) -> str:
    """One form for the name (lanTag.peer.names: NFC, nothing invisible), or IdentityError."""
    raw = _from_argv(nickname).strip()
    nickname = clean_nickname(raw, limit=None)
    if not NICKNAME.fullmatch(raw) or not NICKNAME.fullmatch(nickname):
        raise IdentityError("a nickname is 1-32 printable characters on one line")
    return nickname


def _from_argv(text: str) -> str:
    """Undo the locale's decoding of a command-line argument that it could not decode.

    Under a non-UTF-8 locale (a C locale, say) Python turns each byte of "Zoë" it cannot
    decode into a lone surrogate; the terminal most likely sent UTF-8, so decode that.
    """
    if not any("\ud800" <= c <= "\udfff" for c in text):
        return text
    try:
        return os.fsencode(text).decode("utf-8")
    except UnicodeError:
        raise IdentityError(
            "your nickname is not UTF-8 text (what is the terminal's encoding?)"
        ) from None


def load_identity(create: bool = True, nickname: str | None = None) -> LocalIdentity:
    """This laptop's key and nickname (created on first use, file mode 0600)."""
    if nickname is not None:
        nickname = check_nickname(nickname)
    path = identity_path()
    if path.exists():
        try:
            lines = read_text(path).split("\n")
            seed = bytes.fromhex(lines[0].strip())
            nick = lines[1].strip() if len(lines) > 1 else ""
            identity = Identity(seed)
        except (ValueError, OSError) as exc:
            raise IdentityError(
                f"your identity file {path} is damaged ({exc}); move it away to make a new one"
            ) from None
        if nickname and nickname != nick:  # atomic: a failed write keeps the old file
            write_text_atomic(path, f"{seed.hex()}\n{nickname}\n", private=True)
            nick = nickname
        return LocalIdentity(identity, (nick or "player")[:32])
    if not create:
        raise FileNotFoundError(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    seed = secrets.token_bytes(32)
    nick = nickname or default_nickname()
    write_text_atomic(path, f"{seed.hex()}\n{nick}\n", private=True, exclusive=True)
    return LocalIdentity(Identity(seed), nick)


def default_log_dir() -> Path:
    """Where logs go when ``--log`` is not given."""
    return data_dir() / "logs"


def table_slug(name: str, limit: int = 24) -> str:
    """A table name as a safe file-name part: ASCII letters and digits, dashes between words."""
    words = "".join(c.lower() if c.isascii() and c.isalnum() else " " for c in name).split()
    return "-".join(words)[:limit].strip("-")


def default_log_path(engine: str, table: str = "") -> Path:
    """DATE-TIME-GAME-TABLE-RANDOM.lantag in :func:`default_log_dir` (random: two games in
    the same second never share a file)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    # Both names may come from the network (a joiner's welcome): slugs, never path parts.
    parts = [stamp, table_slug(engine), table_slug(table), secrets.token_hex(3)]
    return default_log_dir() / ("-".join(p for p in parts if p) + ".lantag")


def secret_path_of(log_path: Path) -> Path:
    """The chain secret kept next to a seat's log (resume needs it; it never goes in the log)."""
    return log_path.with_suffix(log_path.suffix + ".secret")


@dataclass
class PeerHandle:
    """A running peer: the machine, its socket pump and its log file."""

    machine: PeerMachine
    pump: UdpPump
    log: LogWriter | None
    chain_secret: bytes
    log_path: Path | None = None
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def address(self) -> Addr:
        return self.pump.address

    def rename_log(self, path: Path) -> None:
        """Move the log (and its chain secret) to ``path``: a joiner names it after the game."""
        if self.log is None or self.log_path is None:
            return
        old = self.log_path
        self.log.move_to(path)
        if secret_path_of(old).exists():
            os.replace(secret_path_of(old), secret_path_of(path))
        self.log_path = path

    def now(self) -> float:
        return self.pump.now()

    def command(self, fn: Callable[[float], None]) -> None:
        """Run a local command on the machine, then flush (UI key presses, host start...)."""
        now = self.now()
        fn(now)
        self.machine.poke(now)
        self.pump.poke()

    async def linger(self, max_seconds: float = 3.0) -> None:
        """Before closing: let the links deliver what is still in flight (final acks, votes)."""
        deadline = time.monotonic() + max_seconds
        while time.monotonic() < deadline:
            links = self.machine.link.stats.links.values()
            if all(link.in_flight == 0 and link.queued == 0 for link in links):
                return
            await asyncio.sleep(0.02)

    async def await_seals(self) -> None:
        """After game over: take the other seats' seals of the final state for at most the
        session's bounded wait (SPEC §3 SEAL); a seat that never seals is just not listed."""
        session = self.machine.session
        while session is not None and session.sealing(self.now()):
            await asyncio.sleep(0.02)

    async def close(self) -> None:
        await self.await_seals()
        await self.linger()
        await self.pump.close()
        if self.log is not None:
            self.log.close()


async def open_peer(
    lobby_factory: Callable[[bytes], HostLobby | JoinLobby],
    identity: Identity,
    *,
    bind: Addr = ("0.0.0.0", 0),
    driver: Driver | None = None,
    log_path: Path | None = None,
    netsim: NetSim | None = None,
    chain_length: int = DEFAULT_LENGTH,
) -> PeerHandle:
    """Bind a socket and start a peer.  ``lobby_factory(anchor)`` builds its lobby side."""
    chain_secret = secrets.token_bytes(32)
    anchor = HashChain(chain_secret, chain_length).anchor
    writer = open_log(log_path, chain_secret)
    machine = PeerMachine(
        LinkLayer(secrets.randbits(256)),  # a key: epochs must not be guessable
        lobby_factory(anchor),
        identity,
        chain_secret,
        secrets.token_bytes,
        driver=driver,
        write_log=writer.write if writer else None,
    )
    pump = await _bind(machine, bind, netsim)
    machine.local_addr = pump.address
    return PeerHandle(machine, pump, writer, chain_secret, log_path)


def open_log(log_path: Path | None, chain_secret: bytes) -> LogWriter | None:
    """A game's log writer, with the seat's chain secret beside it (resume needs it; it
    never goes in the shareable log itself); None without a path.

    Both files appear with the game's first log bytes, when it starts: a join refused or
    a lobby left before the start leaves nothing.  The folder is checked (and made) now,
    so a log that cannot be written is said before any network."""
    if log_path is None:
        return None
    try:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        if not os.access(log_path.parent, os.W_OK):
            raise PermissionError(errno.EACCES, "Permission denied")
    except OSError as exc:
        raise LocalProtocolError(f"cannot write the log {log_path}: {exc.strerror}") from None

    def write_secret() -> None:
        path = writer.path  # (renamed after the game if it was: PeerHandle.rename_log)
        write_text_atomic(secret_path_of(path), chain_secret.hex() + "\n", private=True)

    writer = LogWriter(log_path, before_create=write_secret)
    return writer


def _next_game_files(handle: PeerHandle, log_path: Path | None) -> tuple[bytes, LogWriter | None]:
    """The next game of a series: the last game's log closed, a fresh chain and log."""
    chain_secret = secrets.token_bytes(32)
    writer = open_log(log_path, chain_secret)
    if handle.log is not None:
        handle.log.close()
    handle.log, handle.log_path, handle.chain_secret = writer, log_path, chain_secret
    return chain_secret, writer


def host_next_game(
    handle: PeerHandle, config: HostConfig, me: LocalIdentity, log_path: Path | None
) -> HostLobby:
    """After a game is over: the same table's next game (lanTag.peer.series), logged to
    ``log_path``; ``config.previous_game`` names the game just over."""
    from lanTag.peer import series

    chain_secret, writer = _next_game_files(handle, log_path)
    lobby = series.host_next_game(
        handle.machine,
        config,
        me.nickname,
        chain_secret,
        secrets.token_bytes,
        writer.write if writer else None,
        handle.now(),
    )
    handle.pump.poke()
    return lobby


def join_next_game(handle: PeerHandle, log_path: Path | None) -> JoinLobby:
    """On the host's ``next``: join the same table's next game, logged to ``log_path``."""
    from lanTag.peer import series

    chain_secret, writer = _next_game_files(handle, log_path)
    lobby = series.join_next_game(
        handle.machine, chain_secret, writer.write if writer else None, handle.now()
    )
    handle.pump.poke()
    return lobby


async def _bind(machine: PeerMachine, bind: Addr, netsim: NetSim | None) -> UdpPump:
    try:
        return await UdpPump.start(machine, bind, netsim)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise LocalProtocolError(f"cannot use UDP address {bind[0]}:{bind[1]}: {reason}") from None


async def open_resume(
    log_path: Path,
    me: LocalIdentity,
    *,
    bind: Addr | None = None,
    driver: Driver | None = None,
    netsim: NetSim | None = None,
) -> PeerHandle:
    """Restart a crashed seat from its log (and the log's .secret file), on its old address.

    Raises lanTag.peer.resume.GameAlreadyOver, before touching the network, when the log
    itself shows the game finished.
    """
    data = log_path.read_bytes()
    plan = plan_resume(data)
    check_not_over(plan)
    secret_path = log_path.with_suffix(log_path.suffix + ".secret")
    try:
        chain_secret = bytes.fromhex(read_text(secret_path).strip())
    except (OSError, ValueError) as exc:
        raise LocalProtocolError(
            f"cannot read the seat's chain secret {secret_path}: {exc}"
        ) from None
    if plan.whole_bytes < len(data):
        os.truncate(log_path, plan.whole_bytes)  # drop the entry the crash cut short
    writer = LogWriter(log_path)
    machine = PeerMachine(
        LinkLayer(secrets.randbits(256)),  # a key: epochs must not be guessable
        None,
        me.identity,
        chain_secret,
        secrets.token_bytes,
        driver=driver,
        write_log=writer.write,
    )
    pump = await _bind(machine, bind or plan.local_addr or ("0.0.0.0", 0), netsim)
    machine.local_addr = pump.address
    now = pump.now()
    session = restore_session(plan, me.identity, chain_secret, LinkSender(machine.link), now)
    machine.resume(session, now)
    pump.poke()
    return PeerHandle(machine, pump, writer, chain_secret, log_path)


async def heard_from_peers(handle: PeerHandle, timeout: float) -> bool:
    """After a resume: wait up to ``timeout`` s for any frame from another seat's peer.

    True at once when the game is over or nobody else plays a seat; False when no
    peer said anything in time (they all left: the game is over or abandoned).
    """
    deadline = time.monotonic() + timeout
    while True:
        session = handle.machine.session
        if session is None or session.state.is_over:
            return True
        others = [a for seat, a in session.peers.items() if seat != session.seat]
        if not others or any(handle.machine.link.last_heard(a) is not None for a in others):
            return True
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.02)


async def open_host(
    config: HostConfig,
    me: LocalIdentity,
    **kwargs: object,
) -> PeerHandle:
    def make(anchor: bytes) -> HostLobby:
        return HostLobby(config, me.identity, anchor, me.nickname, secrets.token_bytes)

    return await open_peer(make, me.identity, chain_length=config.chain_length, **kwargs)  # type: ignore[arg-type]


async def open_join(
    host: Addr,
    me: LocalIdentity,
    *,
    password: str = "",
    spectator: bool = False,
    expect_fingerprint: str = "",
    known_hosts: Mapping[str, str] | None = None,
    trust_changed_key: bool = False,
    **kwargs: object,
) -> PeerHandle:
    """``expect_fingerprint``: the advert's host key (pinned); ``known_hosts``: host
    nickname -> fingerprint seen before (a change stops the join: HostKeyChanged)."""
    length = kwargs.get("chain_length", DEFAULT_LENGTH)
    assert isinstance(length, int)

    def make(anchor: bytes) -> JoinLobby:
        return JoinLobby(
            host,
            me.identity,
            anchor,
            me.nickname,
            password=password,
            spectator=spectator,
            chain_length=length,
            expect_fingerprint=expect_fingerprint,
            known_hosts=known_hosts,
            trust_changed_key=trust_changed_key,
            random_bytes=secrets.token_bytes,
        )

    return await open_peer(make, me.identity, **kwargs)  # type: ignore[arg-type]


def bot_identity(index: int) -> LocalIdentity:
    return LocalIdentity(Identity(secrets.token_bytes(32)), f"bot-{index + 1}")


async def wait_until(predicate: Callable[[], bool], timeout: float, step: float = 0.01) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(step)
    return True
