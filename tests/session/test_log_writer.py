"""lanTag.log.file.LogWriter (the log's I/O edge) and the exact size of a cut tail (issue #27)."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest

from lanTag.fair.hash_chain import HashChain
from lanTag.identity import Identity
from lanTag.log.entries import parse_log
from lanTag.log.file import LogWriter, read_log
from lanTag.log.verify import verify_log
from lanTag.peer.join_handshake import HostConfig, HostLobby
from tests.session.harness import toy_game_logs


@pytest.fixture(scope="module")
def game_log() -> bytes:
    return toy_game_logs("log-writer", 3)[0]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The file descriptors os.fsync was called with (the real fsync still runs)."""
    calls: list[int] = []
    real = os.fsync

    def spy(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    return calls


def test_append_writes_each_batch_in_order_and_creates_the_folder(
    tmp_path: Path, game_log: bytes
) -> None:
    path = tmp_path / "sub" / "dir" / "game.lantag"
    raws = [e.raw for e in parse_log(game_log).entries]
    writer = LogWriter(path, fsync_interval=None)
    writer.write(b"".join(raws[:3]))
    writer.write(b"")  # nothing to write: no-op
    # flushed at once: another reader (a crash right now) sees every byte written so far
    assert path.read_bytes() == b"".join(raws[:3])
    writer.write(b"".join(raws[3:]))
    writer.close()
    assert read_log(path) == game_log
    assert verify_log(read_log(path)).complete


def test_fsync_is_batched_by_the_interval_and_done_on_close(
    tmp_path: Path, fsyncs: list[int]
) -> None:
    clock = Clock()
    writer = LogWriter(tmp_path / "a.lantag", fsync_interval=0.5, clock=clock)
    writer.write(b"\x01")
    assert fsyncs == []  # 0 s since the last sync
    clock.now = 0.4
    writer.write(b"\x02")
    assert fsyncs == []
    clock.now = 0.5
    writer.write(b"\x03")
    assert len(fsyncs) == 1  # the interval has passed: one fsync for the three writes
    clock.now = 0.7
    writer.write(b"\x04")
    assert len(fsyncs) == 1  # the interval restarts at the last sync (0.5)
    writer.sync()
    assert len(fsyncs) == 2
    writer.sync()
    assert len(fsyncs) == 2  # nothing new written: nothing to make durable
    writer.write(b"\x05")
    writer.close()
    assert len(fsyncs) == 3  # the last write is made durable on close
    assert (tmp_path / "a.lantag").read_bytes() == b"\x01\x02\x03\x04\x05"


def test_without_an_interval_the_writer_never_fsyncs(tmp_path: Path, fsyncs: list[int]) -> None:
    clock = Clock()
    writer = LogWriter(tmp_path / "b.lantag", fsync_interval=None, clock=clock)
    writer.write(b"\x01")
    clock.now = 1000.0
    writer.write(b"\x02")
    writer.close()
    assert fsyncs == []
    assert (tmp_path / "b.lantag").read_bytes() == b"\x01\x02"


def test_a_torn_write_leaves_a_log_valid_up_to_its_last_whole_entry(
    tmp_path: Path, game_log: bytes
) -> None:
    raws = [e.raw for e in parse_log(game_log).entries]
    whole = b"".join(raws[:20])
    path = tmp_path / "torn.lantag"
    writer = LogWriter(path)
    writer.write(whole)
    writer.write(raws[20][:7])  # the process dies in the middle of entry 20
    writer.close()
    report = verify_log(read_log(path))
    assert report.valid and not report.complete, report.failure
    assert report.entries == 20
    assert report.truncated_bytes == 7


def test_reopening_appends_after_what_is_there(tmp_path: Path, game_log: bytes) -> None:
    # What a resume does (runtime.open_resume): cut the torn entry, reopen, go on writing.
    raws = [e.raw for e in parse_log(game_log).entries]
    path = tmp_path / "resumed.lantag"
    first = LogWriter(path)
    first.write(b"".join(raws[:10]) + raws[10][:5])
    first.close()
    os.truncate(path, len(b"".join(raws[:10])))
    second = LogWriter(path)
    second.write(b"".join(raws[10:]))
    second.close()
    assert read_log(path) == game_log  # nothing overwritten, nothing lost, one chain


def test_the_chain_secret_goes_to_a_private_sidecar_file_never_into_the_log(
    tmp_path: Path,
) -> None:
    from lanTag.peer.runtime import open_peer

    log_path = tmp_path / "game.lantag"
    identity = Identity(bytes(range(32)))
    config = HostConfig("prototag", "sidecar test", 1, bots=("random",), chain_length=16)

    anchors: list[bytes] = []

    def lobby(anchor: bytes) -> HostLobby:
        anchors.append(anchor)
        return HostLobby(config, identity, anchor, "host", os.urandom)

    sidecar = tmp_path / "game.lantag.secret"

    async def run() -> bytes:
        handle = await open_peer(
            lobby,
            identity,
            bind=("127.0.0.1", 0),
            log_path=log_path,
            chain_length=16,
        )
        try:
            # Nothing on disk before the game starts (a lobby left unstarted leaves no litter).
            assert not log_path.exists() and not sidecar.exists()
            handle.command(handle.machine.start_game)
            return handle.chain_secret
        finally:
            await handle.close()

    secret = asyncio.run(run())
    assert sidecar.read_text(encoding="utf-8") == secret.hex() + "\n"
    assert stat.S_IMODE(sidecar.stat().st_mode) == 0o600  # the seat's secret: owner only
    assert secret not in log_path.read_bytes()
    assert anchors == [HashChain(secret, 16).anchor]  # the secret of the seat's announced chain
    assert verify_log(read_log(log_path)).valid  # the started game's log, beside it


def test_the_file_and_its_sidecar_appear_with_the_first_bytes_only(tmp_path: Path) -> None:
    made: list[Path] = []
    path = tmp_path / "later" / "game.lantag"
    writer = LogWriter(path, before_create=lambda: made.append(writer.path))
    writer.write(b"")
    writer.sync()
    writer.move_to(tmp_path / "named" / "game.lantag")  # a joiner names it after the game
    assert not path.exists() and not (tmp_path / "named").exists() and made == []
    writer.close()  # a lobby left before the start: nothing was ever written
    assert list(tmp_path.iterdir()) == []
    writer = LogWriter(path, before_create=lambda: made.append(writer.path))
    writer.move_to(tmp_path / "named" / "game.lantag")
    writer.write(b"\x01")
    writer.write(b"\x02")
    assert made == [tmp_path / "named" / "game.lantag"]  # once, under the final name
    writer.close()
    assert (tmp_path / "named" / "game.lantag").read_bytes() == b"\x01\x02"
    assert not path.exists()


def test_truncated_bytes_is_exactly_what_is_left_of_the_cut_last_entry(game_log: bytes) -> None:
    entries = parse_log(game_log).entries
    last = entries[-1].raw
    whole = len(game_log) - len(last)
    for kept in (1, 2, len(last) // 2, len(last) - 1):  # cut at offsets inside the last entry
        cut = game_log[: whole + kept]
        report = verify_log(cut)
        assert report.truncated_bytes == kept, kept
        assert parse_log(cut).truncated_tail == kept, kept
        assert report.valid and report.entries == len(entries) - 1, report.failure
    intact = verify_log(game_log)
    assert intact.truncated_bytes == 0 and intact.entries == len(entries)


def test_the_default_interval_is_half_a_second_and_a_fresh_writer_is_clean(
    tmp_path: Path, fsyncs: list[int]
) -> None:
    clock = Clock()
    writer = LogWriter(tmp_path / "d.lantag", clock=clock)
    writer.sync()
    assert fsyncs == []  # nothing written yet: nothing to make durable
    writer.write(b"\x01")
    clock.now = 0.49
    writer.write(b"\x02")
    assert fsyncs == []
    clock.now = 0.5
    writer.write(b"\x03")
    assert len(fsyncs) == 1
    writer.close()


def test_parse_log_of_an_intact_log_reports_no_error(game_log: bytes) -> None:
    parsed = parse_log(game_log)
    assert parsed.error == "" and parsed.truncated_tail == 0
    assert b"".join(e.raw for e in parsed.entries) == game_log


def test_move_to_renames_the_file_and_goes_on_appending_there(
    tmp_path: Path, game_log: bytes
) -> None:
    raws = [e.raw for e in parse_log(game_log).entries]
    first = tmp_path / "first.lantag"
    writer = LogWriter(first, fsync_interval=None)
    writer.write(b"".join(raws[:10]))
    target = tmp_path / "new" / "folder" / "named.lantag"  # a folder that does not exist yet
    writer.move_to(target)
    assert writer.path == target and not first.exists()
    writer.write(b"".join(raws[10:]))
    writer.close()
    assert target.read_bytes() == game_log  # one file, nothing lost or rewritten
    (tmp_path / "again").mkdir()
    second = LogWriter(tmp_path / "b.lantag", fsync_interval=None)
    second.write(b"\x01")
    second.move_to(tmp_path / "again" / "b.lantag")  # the folder exists already: fine
    second.close()
    assert (tmp_path / "again" / "b.lantag").read_bytes() == b"\x01"
