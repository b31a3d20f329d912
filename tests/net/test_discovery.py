"""Real python-zeroconf on loopback: advertise, browse, update, withdraw.

Everything is pinned to 127.0.0.1 so nothing is multicast beyond this host.
The timeouts are hang guards, not latency assertions.
"""

from __future__ import annotations

import asyncio
import secrets
import socket
from collections.abc import Callable

import pytest
from zeroconf import (
    DNSIncoming,
    DNSOutgoing,
    DNSQuestion,
    IPVersion,
    Zeroconf,
    current_time_millis,
)
from zeroconf.asyncio import AsyncZeroconf

from lanTag.net.discovery import (
    SERVICE_TYPE,
    AdvertiserStateError,
    LobbyAdvert,
    LobbyAdvertiser,
    LobbyBrowser,
    browse,
    service_info,
)
from lanTag.net.lobby_adverts import LobbyTable, parse_txt
from tests.aio import poll, within

LOOPBACK = ["127.0.0.1"]
HANG_GUARD = 60.0  # a hang guard only: zeroconf runs late on a loaded 2-core machine
TXT, PTR, SRV, IN = 16, 12, 33, 1  # DNS record types and class


def _multicast_loopback_problem() -> str | None:
    group = "224.0.0.251"
    recv = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    send = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        recv.bind(("0.0.0.0", 0))
        port = recv.getsockname()[1]
        mreq = socket.inet_aton(group) + socket.inet_aton("127.0.0.1")
        recv.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
        send.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
        send.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
        send.sendto(b"probe", (group, port))
        recv.settimeout(2.0)
        recv.recvfrom(16)
        return None
    except OSError as exc:
        return f"multicast on 127.0.0.1 unavailable here: {exc!r}"
    finally:
        recv.close()
        send.close()


pytestmark = pytest.mark.skipif(
    (problem := _multicast_loopback_problem()) is not None, reason=problem or ""
)


def advert(fp: str, **kw: object) -> LobbyAdvert:
    return LobbyAdvert(
        **{
            "name": "Loopback game",
            "engine": "boardtag",
            "fingerprint": fp,
            "port": 40555,
            "seats_taken": 1,
            "seats_total": 4,
            **kw,
        }
    )  # type: ignore[arg-type]


def mine(fp: str):  # type: ignore[no-untyped-def]
    return lambda table: [lobby for lobby in table.lobbies() if lobby.fingerprint == fp]


async def test_advertised_game_is_seen_updated_and_withdrawn() -> None:
    fp = secrets.token_hex(8)  # other processes on this host may browse/advertise too
    seen: list[LobbyTable] = []
    async with LobbyBrowser(LOOPBACK, on_change=seen.append) as browser:
        adv = LobbyAdvertiser(advert(fp), LOOPBACK)
        await adv.start()
        try:
            table = await browser.wait_for(lambda t: bool(mine(fp)(t)), HANG_GUARD)
            [lobby] = mine(fp)(table)
            assert (lobby.name, lobby.engine, lobby.seats_taken, lobby.seats_total) == (
                "Loopback game",
                "boardtag",
                1,
                4,
            )
            assert (lobby.port, lobby.state, lobby.password) == (40555, "lobby", False)
            assert lobby.addresses == ("127.0.0.1",)

            await adv.update(seats_taken=3, state="playing")
            table = await browser.wait_for(
                lambda t: [(x.seats_taken, x.state) for x in mine(fp)(t)] == [(3, "playing")],
                HANG_GUARD,
            )
        finally:
            await adv.close()
        await browser.wait_for(lambda t: not mine(fp)(t), HANG_GUARD)
    assert seen  # the callback saw every change
    with pytest.raises(AdvertiserStateError):
        await adv.update(seats_taken=2)
    await adv.close()  # idempotent


async def test_browse_lists_a_running_advert() -> None:
    fp = secrets.token_hex(8)
    async with LobbyAdvertiser(advert(fp, name="Listed", password=True), LOOPBACK):
        # One listing of 1 s may end before a loaded machine has resolved the advert: list
        # again until it shows (a hang guard of 30 listings, each a whole fresh browse).
        for _ in range(30):
            found = await browse(1.0, interfaces=LOOPBACK)
            if any(x.fingerprint == fp for x in found):
                break
    [lobby] = [x for x in found if x.fingerprint == fp]
    assert lobby.name == "Listed" and lobby.password


# ---------------------------------------------------------------- serialised announcements


class Wire:
    """Every lanTag TXT record the advertisers in this process send, in send order."""

    def __init__(self, fp: str) -> None:
        self.fp = fp
        self.sent: list[tuple[int, dict[bytes, bytes | None]]] = []  # (ttl, properties)
        self.answers = 0  # query answers among them (TXT as an additional record)
        # The advertiser's own announcements among them: the whole service (its PTR, SRV
        # and TXT) as answers.  An answer to a query another process on this machine sent
        # (a browse: TXT as an additional; a resolve: no PTR) is not one.
        self.announced: list[tuple[int, dict[bytes, bytes | None]]] = []

    def states(self) -> list[str]:
        return _states(self.sent)

    def announcements(self) -> list[str]:
        return _states(self.announced)


def _states(sent: list[tuple[int, dict[bytes, bytes | None]]]) -> list[str]:
    return [
        f"{(props.get(b'seats') or b'').decode()} {(props.get(b'state') or b'').decode()}"
        for ttl, props in sent
        if ttl
    ]


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> Wire:
    spy = Wire(secrets.token_hex(8))
    send = Zeroconf.async_send

    def spying_send(self: Zeroconf, out: DNSOutgoing, *args: object, **kw: object) -> None:
        answers = [r for r, _ in out.answers]
        whole = {PTR, SRV} <= {r.type for r in answers}
        for record in answers + out.additionals:
            props = parse_txt(getattr(record, "text", b""))
            if record.type == TXT and props.get(b"fp") == spy.fp.encode():
                spy.sent.append((record.ttl, props))
                spy.answers += record in out.additionals
                if whole and record in answers:
                    spy.announced.append((record.ttl, props))
        send(self, out, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(Zeroconf, "async_send", spying_send)
    return spy


async def _until(predicate: Callable[[], bool], what: str) -> None:
    try:
        await within(HANG_GUARD, poll(predicate, 0.02))  # a hang guard, never a latency check
    except TimeoutError:
        pytest.fail(f"hang guard ({HANG_GUARD:.0f}s): still waiting for {what}")


def _after_first(sent: list[str], latest: str) -> list[str]:
    return sent[sent.index(latest) :]


async def test_an_update_right_after_start_replaces_the_registration_announcements(
    wire: Wire,
) -> None:
    adv = LobbyAdvertiser(advert(wire.fp), LOOPBACK)
    await adv.start()
    try:
        await adv.update(state="playing")  # no loop turn in between: nothing stale was sent
        await _until(lambda: not adv.announcing, "the update's announcements")
        assert wire.announcements() == ["1/4 playing"] * 3, wire.states()
    finally:
        await adv.close()


async def test_an_update_between_registration_announcements_cancels_the_rest(
    wire: Wire,
) -> None:
    adv = LobbyAdvertiser(advert(wire.fp), LOOPBACK)
    await adv.start()
    try:
        await _until(lambda: len(wire.sent) >= 1, "the first registration announcement")
        await adv.update(state="playing")
        await _until(lambda: not adv.announcing, "the update's announcements")
        sent = wire.announcements()
        assert sent[0] == "1/4 lobby"
        assert _after_first(sent, "1/4 playing") == ["1/4 playing"] * 3, wire.states()
    finally:
        await adv.close()


async def test_racing_updates_compose_and_the_latest_is_announced_last(wire: Wire) -> None:
    adv = LobbyAdvertiser(advert(wire.fp), LOOPBACK)
    await adv.start()
    try:
        await asyncio.gather(
            adv.update(seats_taken=2), adv.update(state="playing"), adv.update(seats_taken=3)
        )
        assert (adv.advert.seats_taken, adv.advert.state) == (3, "playing")
        await _until(lambda: not adv.announcing, "the last update's announcements")
        sent = wire.announcements()
        assert _after_first(sent, "3/4 playing") == ["3/4 playing"] * 3, wire.states()
    finally:
        await adv.close()


async def test_close_during_announcements_sends_nothing_after_the_goodbyes(wire: Wire) -> None:
    adv = LobbyAdvertiser(advert(wire.fp), LOOPBACK)
    await adv.start()
    await adv.update(seats_taken=2)
    await _until(lambda: len(wire.sent) >= 1, "the first announcement")
    await adv.close()
    ttls = [ttl for ttl, _ in wire.sent]
    first_goodbye = ttls.index(0)
    assert ttls[first_goodbye:] == [0] * len(ttls[first_goodbye:]) and ttls[0] > 0, ttls
    assert not adv.announcing


async def test_a_query_answer_queued_before_an_update_goes_out_with_the_new_txt(
    wire: Wire,
) -> None:
    """zeroconf delays answers to records it multicast within the last second by one
    second (RFC 6762 §14); one built before an update must not go out with the old TXT
    after the update's announcements."""
    adv = LobbyAdvertiser(advert(wire.fp), LOOPBACK)
    asker = AsyncZeroconf(interfaces=LOOPBACK, ip_version=IPVersion.V4Only)
    await adv.start()
    try:
        zc = adv._zc.zeroconf  # type: ignore[union-attr]
        queued = lambda: bool(zc.out_delay_queue.queue or zc.out_queue.queue)  # noqa: E731
        query = DNSOutgoing(0)
        query.add_question(DNSQuestion(SERVICE_TYPE, PTR, IN))
        asker.zeroconf.async_send(query)
        await _until(lambda: queued() or wire.answers > 0, "the advertiser to queue its answer")
        if not queued():  # only if this machine was slow: announced over a second ago
            pytest.skip("the answer went out at once: nothing was queued across the update")
        await adv.update(seats_taken=2)
        await _until(lambda: not (queued() or adv.announcing), "the queued answer to go out")
        sent = wire.states()
        assert sent[0] == "1/4 lobby"
        assert set(_after_first(sent, "2/4 lobby")) == {"2/4 lobby"}, sent
    finally:
        await adv.close()
        await asker.async_close()


# ---------------------------------------------------------------- browser: TXT heard last wins


def _broadcast(zc: Zeroconf, fp: str, seats: int) -> bytes:
    info = service_info(advert(fp, seats_taken=seats, seats_total=3), ["127.0.0.1"])
    [packet] = zc.generate_service_broadcast(info, None).packets()
    return packet


@pytest.mark.parametrize(
    ("heard", "shown"),
    [
        # (seats, ms after the first packet): what the browser hears, in order
        ([(1, 0), (2, 400), (1, 450)], 1),  # a stale announcement heard last is what it is
        # ...but a re-announcement of the current TXT must win again, although that TXT
        # is still cached (zeroconf fires no Updated for it) and not flushed (< 1 s).
        ([(2, 0), (1, 50), (2, 1100), (2, 1325)], 2),
        ([(1, 0), (2, 1200), (1, 1700)], 1),  # a player left: 1/3 again within a second
        ([(1, 0), (2, 1200), (1, 1700), (2, 1900)], 2),
    ],
)
async def test_browser_shows_the_txt_heard_last(heard: list[tuple[int, int]], shown: int) -> None:
    fp = secrets.token_hex(8)
    async with LobbyBrowser(LOOPBACK) as browser:
        zc = browser._zc.zeroconf  # type: ignore[union-attr]
        start = current_time_millis()
        seen = []
        for seats, at in heard:
            # Straight into the record manager, stamped as received at ``start + at``.
            zc.record_manager.async_updates_from_response(
                DNSIncoming(_broadcast(zc, fp, seats), now=start + at)
            )
            [lobby] = mine(fp)(browser.table)  # applied synchronously: no waiting
            seen.append(lobby.seats_taken)
        assert seen == [seats for seats, _ in heard[:-1]] + [shown]
