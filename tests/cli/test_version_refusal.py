"""Two installs whose Prototag rules versions differ cannot start a game together: real
`lantag host` and `lantag join` processes on loopback, the joiner's install made older by a
sitecustomize module that lowers its Prototag rules version.  Both sides say why."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lanTag.rules.registry import get_game
from lanTag.wire import PROTOCOL_VERSION
from tests.cli.helpers import (
    HANG_GUARD,
    announced_port,
    host_said,
    lantag,
    lantag_process,
    make_home,
)

ROOT = Path(__file__).resolve().parents[2]


def test_a_joiner_with_other_rules_is_refused_and_both_sides_name_the_versions(
    tmp_path: Path,
) -> None:
    mine = get_game("prototag").rules_version
    older = tmp_path / "older"
    older.mkdir()
    (older / "sitecustomize.py").write_text(
        "import lanTag.games.prototag.engine as p\n"
        f"p.Prototag.rules_version = {mine + 1}\n",  # 'newer' joiner: the host must upgrade
        encoding="utf-8",
    )
    host_home, joiner_home = make_home(tmp_path / "host"), make_home(tmp_path / "joiner")
    host = lantag_process(
        host_home, "host", "--headless", "--no-advertise", "--bind", "127.0.0.1", "--port", "0"
    )
    try:
        port = announced_port(host)
        joined = lantag(
            joiner_home,
            "join",
            f"127.0.0.1:{port}",
            "--headless",
            "--bind",
            "127.0.0.1",
            # This tree's lanTag under the older rules (not the one an install points at).
            env={"PYTHONPATH": os.pathsep.join([str(older), str(ROOT)])},
        )
        assert joined.returncode == 1, joined.stderr
        assert (
            f"refused: the host runs Prototag rules {mine}, you have {mine + 1}: the host "
            "should upgrade lanTag" in joined.stderr
        )
        told = host_said(host)
        assert told.startswith("lobby: refused ")
        assert told.rstrip().endswith(
            f"they have Prototag rules {mine + 1}, this game plays rules {mine}"
        )
    finally:
        host.kill()
        host.communicate(timeout=HANG_GUARD)


_PREVIOUS = PROTOCOL_VERSION - 1  # the last release (protocol 4): the peers a table meets first
_PREVIOUS_INSTALL = (
    "import lanTag.wire, lanTag.session.messages, lanTag.session.compatibility\n"
    "import lanTag.peer.join_handshake, lanTag.peer.joiner\n"
    "for m in (lanTag.wire, lanTag.session.messages, lanTag.session.compatibility,\n"
    "          lanTag.peer.join_handshake, lanTag.peer.joiner):\n"
    f"    m.PROTOCOL_VERSION = {_PREVIOUS}\n"
)


@pytest.mark.parametrize("older", ["joiner", "host"])
def test_a_peer_of_the_previous_protocol_and_one_of_this_refuse_each_other_politely(
    tmp_path: Path, older: str
) -> None:
    """Real processes, one of them made a protocol-4 install by a sitecustomize module: no
    seat is taken, the joiner exits 1 naming both versions, nobody shows a traceback."""
    mine = PROTOCOL_VERSION
    old = tmp_path / "old"
    old.mkdir()
    (old / "sitecustomize.py").write_text(_PREVIOUS_INSTALL, encoding="utf-8")
    host_env, joiner_env = {}, {}
    (host_env if older == "host" else joiner_env)["PYTHONPATH"] = str(old)
    host_home, joiner_home = make_home(tmp_path / "host"), make_home(tmp_path / "joiner")
    host = lantag_process(
        host_home,
        *("host", "--headless", "--no-advertise", "--bind", "127.0.0.1", "--port", "0"),
        env=host_env,
    )
    try:
        port = announced_port(host)
        joined = lantag(
            joiner_home,
            "join",
            f"127.0.0.1:{port}",
            "--headless",
            "--bind",
            "127.0.0.1",
            env=joiner_env,
        )
        assert joined.returncode == 1, joined.stderr
        assert "Traceback" not in joined.stderr
        if older == "joiner":
            refusal = f"refused: the host runs lanTag protocol {mine}, you have {_PREVIOUS}"
            assert refusal in joined.stderr
            told = host_said(host)
            assert told.startswith("lobby: refused ")
            assert told.rstrip().endswith(
                f"they run lanTag protocol {_PREVIOUS}, this game protocol {mine}"
            )
        else:
            assert f"the host runs lanTag protocol {_PREVIOUS}, you have {mine}" in joined.stderr
    finally:
        host.kill()
        _out, err = host.communicate(timeout=HANG_GUARD)
    assert "Traceback" not in err
