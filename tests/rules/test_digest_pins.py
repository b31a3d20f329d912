"""Each engine's behaviour is pinned per rules version (docs/rules/VERSIONS.md).

A change to legality, transitions, option meaning, state encoding or chance purposes
changes an engine's digest (lanTag.rules.digest); it lands only with a rules_version
bump and a new row here.  Rows of older versions stay as the record of what each
version was.
"""

from __future__ import annotations

import pytest

from lanTag.rules.digest import DIGEST_GAMES, engine_digest
from lanTag.rules.registry import engine_ids, get_game

# (engine, rules_version) -> engine_digest(engine, DIGEST_GAMES)
PINNED: dict[tuple[str, int], str] = {
    ("prototag", 1): "9051c11beea893d3d746e7226989f6c68eb95fb8011700b01478eef257b25e4b",
    ("assassination", 1): "25ddbf210aeab9d2eff262da6a8c6fcbe04c1341aa696bdc825548ba6bc39efa",
    ("boardtag", 1): "590355ee4e19ec290e1bf32a99a5d429c713a2a0838e5453610c88526a46e1fb",
    ("stomptag", 1): "ab596a25d6fee16cdbefdcd1d996f517fd9ba5711f9ce101780ff86239317841",
    ("tagem", 1): "0c1a7f7a4f548a55b07e6d5f9af706920f409b2cbde5ca229f8e1588355eadb2",
    # event facts instead of sentences, fact-code purposes (all four 2;
    # boardtag: the end as a fact, not a summary; tagem: the map kept without comments)
    ("prototag", 2): "b40fbdfbf228088618a301f64cf8227beac5d43aef70f83ce9a6dd23a7dc36c4",
    ("assassination", 2): "883afe434b791d095da6a1d9cf4840ffb18205e756c17fedef44592c2c336900",
    ("boardtag", 2): "50a71f7b349a176d8401d15cca45e1c7aaf404c9d0c9c685f259332027c1a70c",
    ("tagem", 2): "11fdbce5cbac3586da920b58684f11df23f41dc59fd059c228d42458e33daa16",
    # a pawn never respawns on the tile where it was lost (decision 16).  The digest's
    # random games never reach that position (nor do 1,000 of them), so the digest is
    # rules 2's; tests/rules/test_tagem_flags.py plays the changed respawn.
    ("tagem", 3): "11fdbce5cbac3586da920b58684f11df23f41dc59fd059c228d42458e33daa16",
}


@pytest.mark.parametrize("engine", engine_ids())
def test_engine_digest_matches_the_pin_of_its_rules_version(engine: str) -> None:
    version = get_game(engine).rules_version
    pin = PINNED.get((engine, version))
    assert pin is not None, f"{engine} rules {version} has no pinned digest: add one"
    assert engine_digest(engine, DIGEST_GAMES) == pin, (
        f"{engine} behaves differently from its pinned rules {version}: bump rules_version "
        "and pin the new digest (docs/rules/VERSIONS.md), or undo the change"
    )


def test_every_engines_versions_are_pinned_without_gaps() -> None:
    for engine in engine_ids():
        versions = sorted(v for e, v in PINNED if e == engine)
        assert versions == list(range(1, get_game(engine).rules_version + 1)), engine


def test_the_digest_sees_a_changed_chance_purpose(monkeypatch: pytest.MonkeyPatch) -> None:
    """A purpose is not in the state bytes, yet a changed one must change the digest."""
    import lanTag.rules.digest as digest_module
    from lanTag.rules.base import Chance

    original = digest_module.decision_obj

    def renamed(decision: object) -> list[object]:
        if isinstance(decision, Chance):
            decision = Chance(decision.draws, decision.purpose + "x")
        return original(decision)  # type: ignore[arg-type]

    before = engine_digest("prototag", 2)
    monkeypatch.setattr(digest_module, "decision_obj", renamed)
    assert engine_digest("prototag", 2) != before
