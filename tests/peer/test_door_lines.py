"""The host's console rolls repeated doorstep events into counting lines (issue #38 item 7):
online password guessing from 20 addresses printed 560 lines."""

from __future__ import annotations

from lanTag.peer.doorstep import ROLL_EVERY, DoorLines, door_kind


def test_a_guessing_crowd_fills_a_few_counting_lines_not_hundreds() -> None:
    lines = DoorLines()
    shown: list[str] = []
    now = 0.0
    for tick in range(28):  # 28 rounds of 20 sources, one a second: 560 events in 28 s
        now = float(tick)
        for source in range(20):
            shown += lines.add(f"{tick + 1} wrong passwords from 127.0.0.{2 + source}", now)
    shown += lines.due(now + ROLL_EVERY)
    assert len(shown) <= 1 + 28 // ROLL_EVERY + 1, shown
    assert shown[0] == "1 wrong passwords from 127.0.0.2"
    counted = sum(int(s.split("(and ")[1].split()[0]) + 1 for s in shown if "(and " in s)
    assert counted + sum("(and " not in s for s in shown) == 560  # every event counted once


def test_lines_of_other_kinds_are_each_shown() -> None:
    lines = DoorLines()
    assert lines.add("3 wrong passwords from 10.0.0.2", 0.0) == [
        "3 wrong passwords from 10.0.0.2"
    ]
    assert lines.add("unseated bob (0123456789abcdef): never heard at the start", 0.1)
    assert lines.add("4 wrong passwords from 10.0.0.3", 0.2) == []  # same kind: held
    assert lines.due(0.2 + ROLL_EVERY) == ["4 wrong passwords from 10.0.0.3"]
    one, two = "refused ann (key 0123456789abcdef)", "refused bo (key fedcba9876543210)"
    assert door_kind(one) == door_kind(two)
