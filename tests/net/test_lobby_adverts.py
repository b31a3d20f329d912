"""LobbyTable and TXT validation: pure, no zeroconf."""

from __future__ import annotations

import json

import pytest

from lanTag.net.discovery import SERVICE_TYPE, LobbyAdvert
from lanTag.net.lobby_adverts import (
    BadTxt,
    LobbyInfo,
    LobbyTable,
    ServiceAdded,
    ServiceRemoved,
    ServiceUpdated,
    format_lobbies,
    lobby_from_txt,
    parse_txt,
)
from lanTag.wire import PROTOCOL_VERSION

GOOD = {
    b"v": b"1",
    b"engine": b"boardtag",
    b"name": b"Friday night",
    b"seats": b"2/4",
    b"pw": b"1",
    b"fp": b"0123456789abcdef",
    b"state": b"lobby",
    b"port": b"40123",
}
NAME = "Friday night 0123456789abcdef-40123." + SERVICE_TYPE


def txt(**changes: bytes | None) -> dict[bytes, bytes | None]:
    props: dict[bytes, bytes | None] = dict(GOOD)
    for key, value in changes.items():
        if value is None:
            del props[key.encode()]
        else:
            props[key.encode()] = value
    return props


def test_good_txt_parses() -> None:
    info = lobby_from_txt(NAME, GOOD, ["192.0.2.7", "192.0.2.7", "10.0.0.1"])
    assert info == LobbyInfo(
        instance=NAME,
        name="Friday night",
        engine="boardtag",
        version=1,
        seats_taken=2,
        seats_total=4,
        password=True,
        fingerprint="0123456789abcdef",
        state="lobby",
        port=40123,
        addresses=("10.0.0.1", "192.0.2.7"),
    )
    assert not info.full


@pytest.mark.parametrize(
    "bad",
    [
        {"v": None},
        {"v": b"x"},
        {"v": b"0"},
        {"engine": b"Board Tag"},
        {"name": b""},
        {"name": b"\xff\xfe"},
        {"name": b"a\nb"},
        {"name": b"n" * 41},
        {"seats": b"5/4"},
        {"seats": b"2"},
        {"seats": b"0/0"},
        {"seats": b"-1/4"},
        {"pw": b"yes"},
        {"fp": b"XYZ"},
        {"fp": b"abc"},
        {"state": b"over"},
        {"port": b"0"},
        {"port": b"70000"},
        {"port": None},
        {"state": None},
    ],
)
def test_bad_txt_is_refused_with_the_field_named(bad: dict[str, bytes | None]) -> None:
    [key] = bad
    with pytest.raises(BadTxt, match=key):
        lobby_from_txt(NAME, txt(**bad))


def test_table_add_update_remove() -> None:
    t0 = LobbyTable()
    t1 = t0.apply(ServiceAdded(NAME, GOOD, ("192.0.2.7",)))
    assert t0.lobbies() == () and len(t1.lobbies()) == 1  # immutable: t0 untouched
    t2 = t1.apply(ServiceUpdated(NAME, txt(seats=b"4/4", state=b"playing")))
    [lobby] = t2.lobbies()
    assert (lobby.seats_taken, lobby.state, lobby.full) == (4, "playing", True)
    t3 = t2.apply(ServiceRemoved(NAME.upper()))  # DNS names are case-insensitive
    assert t3.lobbies() == ()
    assert t3.apply(ServiceRemoved(NAME)) is t3


def test_foreign_garbage_is_ignored_and_a_bad_update_withdraws() -> None:
    t = LobbyTable().apply(ServiceAdded("junk._lantag._udp.local.", {b"hello": None}))
    assert t.lobbies() == () and t.ignored == 1
    t = t.apply(ServiceAdded(NAME, GOOD)).apply(ServiceUpdated(NAME, txt(seats=b"9/4")))
    assert t.lobbies() == () and t.ignored == 2


def test_lobbies_sorted_by_name() -> None:
    other = "alpha 0123456789abcdef-1." + SERVICE_TYPE
    t = (
        LobbyTable()
        .apply(ServiceAdded(NAME, GOOD))
        .apply(ServiceAdded(other, txt(name=b"alpha", port=b"1")))
    )
    assert [lobby.name for lobby in t.lobbies()] == ["alpha", "Friday night"]


def test_format_text_and_json() -> None:
    lobbies = LobbyTable().apply(ServiceAdded(NAME, GOOD, ("192.0.2.7",))).lobbies()
    text = format_lobbies(lobbies, json=False, why_not=why_not)
    header, row, note = text.splitlines()  # GOOD is a protocol-1 advert: not joinable here
    assert note == (
        f"  ✗ cannot join: the host runs lanTag protocol 1, you have {PROTOCOL_VERSION}: the host "
        "should upgrade "
        "lanTag (or you install the host's release)"
    )
    assert header.split() == [
        "NAME",
        "ENGINE",
        "SEATS",
        "PW",
        "STATE",
        "ADDRESS",
        "HOST",
        "KEY",
        "V",
    ]
    assert "Friday night" in row and "192.0.2.7:40123" in row and "2/4" in row
    data = json.loads(format_lobbies(lobbies, json=True, why_not=why_not))
    assert data[0]["fingerprint"] == "0123456789abcdef" and data[0]["password"] is True
    assert format_lobbies([], json=False) == "no games found"
    assert json.loads(format_lobbies([], json=True)) == []


def test_advert_is_validated_and_round_trips_through_txt() -> None:
    advert = LobbyAdvert("Friday night", "boardtag", "0123456789abcdef", 40123, 2, 4, True)
    props = {k.encode(): v.encode() for k, v in advert.txt().items()}
    assert props == {
        **GOOD,
        b"v": b"%d" % PROTOCOL_VERSION,
        b"rules": b"1",
        b"rev": b"0",
        b"lt": b"",
    }
    assert advert.instance_name() == NAME
    with pytest.raises(BadTxt, match="seats"):
        LobbyAdvert("x", "boardtag", "0123456789abcdef", 1, 5, 4)
    dotted = LobbyAdvert("a.b" + "é" * 30, "boardtag", "0123456789abcdef", 1, 0, 2)
    label = dotted.instance_name().removesuffix("." + SERVICE_TYPE)
    assert "." not in label and len(label.encode()) <= 63


# --------------------------------------------------------------------------- TXT rdata


def _rdata(*strings: bytes) -> bytes:
    return b"".join(bytes([len(s)]) + s for s in strings)


def test_parse_txt_round_trips_what_zeroconf_publishes() -> None:
    from zeroconf import ServiceInfo

    advert = LobbyAdvert("Friday night", "boardtag", "0123456789abcdef", 40123, 2, 4)
    info = ServiceInfo(SERVICE_TYPE, advert.instance_name(), port=40123, properties=advert.txt())
    assert (
        parse_txt(info.text)
        == dict(info.properties)
        == {k.encode(): v.encode() for k, v in advert.txt().items()}
    )


@pytest.mark.parametrize(
    ("rdata", "props"),
    [
        (b"", {}),
        (_rdata(b"a=1", b"flag", b"e="), {b"a": b"1", b"flag": None, b"e": b""}),
        (_rdata(b"a=1", b"a=2"), {b"a": b"1"}),  # RFC 6763 6.4: the first one counts
        (_rdata(b"x==y"), {b"x": b"=y"}),
        (_rdata(b"", b"=v", b"k=v"), {b"k": b"v"}),  # empty strings and keys are dropped
        (b"\x05ab=c", {b"ab": b"c"}),  # a length past the end is cut short
    ],
)
def test_parse_txt(rdata: bytes, props: dict[bytes, bytes | None]) -> None:
    assert parse_txt(rdata) == props


# --------------------------------------------------------------------------- versions (#18)


def _v2(**changes: bytes | None) -> dict[bytes, bytes | None]:
    from lanTag.session.compatibility import rules_version_of

    mine = str(rules_version_of("boardtag")).encode()
    props = txt(v=b"%d" % PROTOCOL_VERSION, rules=mine, rev=b"0", lt=b"0.1.0")
    for key, value in changes.items():
        if value is None:
            del props[key.encode()]
        else:
            props[key.encode()] = value
    return props


def why_not(info: LobbyInfo) -> str:
    """What ``lantag list`` and the browser say of ``info`` on this lanTag."""
    from lanTag.session.compatibility import why_not_join

    return why_not_join(info.engine, info.version, info.rules)


def test_a_protocol_2_advert_carries_rules_revision_and_release() -> None:
    info = lobby_from_txt(NAME, _v2(rev=b"7"))
    assert (info.version, info.revision, info.release) == (PROTOCOL_VERSION, 7, "0.1.0")
    assert why_not(info) == ""
    older = lobby_from_txt(NAME, _v2(v=b"2"))  # the previous protocol's host: listed, unjoinable
    assert (older.version, older.rules) == (2, info.rules)
    assert why_not(older).startswith(
        f"the host runs lanTag protocol 2, you have {PROTOCOL_VERSION}"
    )
    advert = LobbyAdvert("Friday night", "boardtag", "0123456789abcdef", 40123, 2, 4, rules=3)
    props = {k.encode(): v.encode() for k, v in advert.txt().items()}
    assert lobby_from_txt(advert.instance_name(), props).rules == 3


@pytest.mark.parametrize("bad", [{"rules": None}, {"rules": b"0"}, {"rules": b"x"}, {"rev": b"-1"}])
def test_a_malformed_version_in_an_advert_is_ignored_and_counted(
    bad: dict[str, bytes | None],
) -> None:
    with pytest.raises(BadTxt):
        lobby_from_txt(NAME, _v2(**bad))
    table = LobbyTable().apply(ServiceAdded(NAME, _v2(**bad)))
    assert table.lobbies() == () and table.ignored == 1


def test_incompatible_games_are_listed_as_such_with_both_versions() -> None:
    from lanTag.session.compatibility import rules_version_of

    mine = rules_version_of("boardtag")
    assert mine is not None
    other = lobby_from_txt(NAME, _v2(rules=str(mine + 1).encode()))
    assert why_not(other) == (
        f"the host runs Board Tag rules {mine + 1}, you have {mine}: upgrade lanTag"
    )
    old = lobby_from_txt(NAME, GOOD)  # a protocol-1 host: no rules version at all
    assert why_not(old).startswith(f"the host runs lanTag protocol 1, you have {PROTOCOL_VERSION}")
    text = format_lobbies([other, old], json=False, why_not=why_not)
    assert text.count("✗ cannot join:") == 2 and f"you have {mine}" in text
    rows = json.loads(format_lobbies([other], json=True, why_not=why_not))
    assert rows[0]["incompatible"] == why_not(other)
    assert "✗" not in format_lobbies([lobby_from_txt(NAME, _v2())], json=False, why_not=why_not)


def test_a_stale_advert_never_replaces_a_newer_one() -> None:
    table = LobbyTable().apply(ServiceAdded(NAME, _v2(rev=b"2", seats=b"3/4")))
    stale = table.apply(ServiceUpdated(NAME, _v2(rev=b"1", seats=b"2/4")))
    assert stale.lobbies()[0].seats_taken == 3
    newer = table.apply(ServiceUpdated(NAME, _v2(rev=b"3", seats=b"4/4")))
    assert newer.lobbies()[0].seats_taken == 4
