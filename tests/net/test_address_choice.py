"""The right address of a host with several adapters (issue #23): ranking, the hint,
and a joiner that races the advertised addresses on real loopback sockets."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest

from lanTag.cli.play_commands import host_answered
from lanTag.net.addresses import rank_addresses, typeable_addresses
from lanTag.peer.join_handshake import HostConfig, JoinLobby
from lanTag.peer.machine import BotDriver
from lanTag.peer.runtime import open_host, open_join
from tests.net.real_table import LOCAL, TIMEOUTS, me, wait_for

GAME_NIGHT = ["172.25.16.1", "169.254.12.7", "100.101.102.103", "10.8.0.6", "192.168.1.23"]
HOME_LAN = [ipaddress.IPv4Network("192.168.1.0/24"), ipaddress.IPv4Network("127.0.0.0/8")]


def test_the_address_on_a_local_subnet_comes_first_virtual_and_link_local_last() -> None:
    ranked = rank_addresses([*GAME_NIGHT, "127.0.0.1", "fe80::1", "bogus"], HOME_LAN)
    assert ranked == [
        "192.168.1.23",  # on the joiner's own subnet
        "10.8.0.6",  # ordinary (a VPN, say): the host's order kept
        "172.25.16.1",  # WSL2 / Hyper-V / docker
        "100.101.102.103",  # Tailscale / CGNAT
        "169.254.12.7",  # APIPA
        "127.0.0.1",
    ]
    # Without a shared subnet the host's order is kept within each tier (no string sort:
    # "10.100.0.6" < "10.77.0.1" as text, which is how joiners went to the wrong one).
    assert rank_addresses(["10.77.0.1", "10.100.0.6"]) == ["10.77.0.1", "10.100.0.6"]
    lab = [ipaddress.IPv4Network("10.77.0.0/24")]
    assert rank_addresses(["10.100.0.6", "169.254.12.7", "10.77.0.1"], lab)[0] == "10.77.0.1"
    # a link-local or /32 subnet of the joiner's proves nothing about a shared LAN
    apipa = [ipaddress.IPv4Network("169.254.0.0/16"), ipaddress.IPv4Network("10.8.0.6/32")]
    assert rank_addresses(["169.254.12.7", "10.8.0.6", "10.0.0.2"], apipa) == [
        "10.8.0.6",
        "10.0.0.2",
        "169.254.12.7",
    ]


def test_the_hint_lists_typeable_addresses_default_route_first() -> None:
    assert typeable_addresses(GAME_NIGHT, "10.8.0.6", HOME_LAN) == [
        "10.8.0.6",
        "192.168.1.23",
        "172.25.16.1",
        "100.101.102.103",
    ]
    assert typeable_addresses(GAME_NIGHT, None, HOME_LAN)[0] == "192.168.1.23"
    assert typeable_addresses(["169.254.1.1"], None) == ["127.0.0.1"]


def test_the_first_address_to_answer_becomes_the_host() -> None:
    first, second, stranger = ("10.100.0.6", 4242), ("10.77.0.1", 4242), ("10.77.0.9", 1)
    lobby = JoinLobby(first, me("j").identity, bytes(32), "j")
    lobby.also_try(second)
    lobby.also_try(second)  # once only
    assert [addr for addr, _ in lobby.outbox] == [first, second]
    from lanTag.peer.join_handshake import lobby_message
    from lanTag.session.compatibility import rules_version_of
    from lanTag.session.messages import PROTOCOL_VERSION

    versions = (PROTOCOL_VERSION, rules_version_of("prototag"), "", "host", b"")
    welcome = lobby_message(
        "welcome", bytes(32), bytes(32), "prototag", "g", 2, False, 1, *versions
    )
    lobby.receive(welcome, second)
    assert lobby.host == second and lobby.host_key == bytes(32)
    lobby.receive(welcome, first)  # the same host, late, on its other address: ignored
    assert lobby.host == second
    lobby.also_try(("10.77.0.2", 4242))  # answered: no more hellos
    assert len(lobby.outbox) == 3  # hello, hello, join
    with pytest.raises(Exception, match="not the host"):
        lobby.receive(welcome, stranger)


async def test_a_joiner_races_the_addresses_and_plays_on_the_one_that_answered(
    tmp_path: Path,
) -> None:
    """The first advertised address is dead (nothing listens on 127.0.0.2 there); after
    the stagger the joiner also says hello to the next one, which answers: the game is
    played on it to the end."""
    from lanTag.cli.headless import play_headless

    config = HostConfig("prototag", "race", 2, timeouts=TIMEOUTS)
    host = await open_host(config, me("host"), bind=(LOCAL, 0), driver=BotDriver("random"))
    port = host.address[1]
    dead, live = ("127.0.0.2", port), (LOCAL, port)
    joiner = await open_join(dead, me("j"), bind=(LOCAL, 0), driver=BotDriver("random"))
    try:
        assert await host_answered(joiner, 30.0, also=[live])
        lobby = joiner.machine.lobby
        assert isinstance(lobby, JoinLobby) and lobby.host == live and lobby.tried == [dead, live]
        await wait_for(lambda: host.machine.lobby.taken == 2, "the joiner seated")  # type: ignore[union-attr]
        host.command(host.machine.start_game)
        await wait_for(lambda: joiner.machine.session is not None, "START")
        await play_headless(joiner)
        session = joiner.machine.session
        assert session is not None and session.state.is_over
    finally:
        await joiner.close()
        await host.close()


def test_hello_to_two_addresses_of_one_host_gets_one_challenge_and_one_join() -> None:
    """The host answers both hellos (same joiner address) with the same challenge, and
    the joiner, seeing the same welcome twice, joins once."""
    import secrets

    from lanTag.peer.join_handshake import HostLobby

    host = HostLobby(
        HostConfig("prototag", "g", 2), me("h").identity, bytes(32), "h", secrets.token_bytes
    )
    joiner_addr = ("10.77.0.2", 5000)
    a, b = ("10.100.0.6", 4242), ("10.77.0.1", 4242)
    joiner = JoinLobby(a, me("j").identity, bytes(32), "j")
    joiner.also_try(b)
    for _, hello in list(joiner.outbox):
        host.receive(hello, joiner_addr)
    joiner.outbox.clear()
    welcomes = [payload for _, payload in host.outbox]
    assert len(welcomes) == 2 and welcomes[0] == welcomes[1]  # one challenge
    host.outbox.clear()
    joiner.receive(welcomes[0], a)
    joiner.receive(welcomes[1], a)  # the reply to the second hello, from the same source
    assert len(joiner.outbox) == 1  # one join
    host.receive(joiner.outbox[0][1], joiner_addr)
    assert host.taken == 2  # the host and the one joiner
