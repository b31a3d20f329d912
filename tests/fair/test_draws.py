"""Unbiased draws from shared seeds: distribution, collusion resistance and rejection sampling.

Statistics: Pearson's chi-square with a fixed significance level P_MIN = 0.001.  The
p-value is the exact chi-square survival function Q(df/2, x/2), the regularized upper
incomplete gamma function, implemented below (series for x < a + 1, Lentz continued
fraction otherwise, as in Numerical Recipes §6.2) because scipy is not a dependency.
It is cross-checked against closed forms (df = 1, 2, 4), table quantiles and the
Wilson–Hilferty normal approximation.  Every input is derived from fixed labels, so each
test is deterministic: it either always passes or always fails.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

import pytest

from lanTag.fair.draw import DOMAIN, DrawStream, draw_seed
from lanTag.fair.hash_chain import HashChain, chain_step_ok
from lanTag.identity import Identity
from lanTag.rules.base import Chance, Die, Draw, Pick, Roll, Shuffle
from lanTag.rules.playout import draw_values
from lanTag.rules.registry import register_engine, unregister_engine
from lanTag.session import events as ev
from lanTag.session import referee
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.lockstep import Session
from lanTag.session.messages import MsgType, sign_message

P_MIN = 0.001
N_DRAWS = 60_000
D6 = Die((1, 2, 3, 4, 5, 6))
PIECEPACK = Die((0, 1, 2, 3, 4, 5))


def _h(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


GAME = _h("draws/game")

# --------------------------------------------------------------------------- statistics


def gamma_q(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) = Γ(a, x) / Γ(a)."""
    if a <= 0 or x < 0:
        raise ValueError("gamma_q needs a > 0 and x >= 0")
    if x == 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    eps, tiny = 1e-15, 1e-300
    if x < a + 1:  # series for P(a, x); Q = 1 - P
        term = total = 1.0 / a
        ap = a
        for _ in range(100_000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * eps:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    b = x + 1 - a  # continued fraction for Q(a, x), modified Lentz
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < eps:
            break
    return math.exp(log_front) * h


def chi2_sf(statistic: float, df: int) -> float:
    """P(X >= statistic) for X ~ chi-square(df)."""
    return gamma_q(df / 2, statistic / 2)


def wilson_hilferty_sf(statistic: float, df: int) -> float:
    z = ((statistic / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return 0.5 * math.erfc(z / math.sqrt(2))


def chi2_p(counts: Counter[object], support: Sequence[object]) -> float:
    """p-value of the counts against the uniform distribution over ``support``."""
    assert set(counts) <= set(support), f"values outside the support: {set(counts) - set(support)}"
    total = sum(counts.values())
    expected = total / len(support)
    statistic = sum((counts.get(v, 0) - expected) ** 2 / expected for v in support)
    return chi2_sf(statistic, len(support) - 1)


def test_gamma_q_matches_closed_forms() -> None:
    for x in (0.01, 0.5, 1.0, 2.0, 3.84, 7.5, 15.0, 40.0):
        assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-10)
        assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-9)
        assert chi2_sf(x, 4) == pytest.approx(math.exp(-x / 2) * (1 + x / 2), rel=1e-9)


@pytest.mark.parametrize(
    ("statistic", "df", "p"),
    [
        (3.841459, 1, 0.05),
        (11.070498, 5, 0.05),
        (20.515006, 5, 0.001),
        (23.209251, 10, 0.01),
        (29.587830, 10, 0.001),
        (22.457744, 6, 0.001),
        (59.703, 30, 0.001),
        (149.449, 100, 0.001),
    ],
)
def test_chi2_sf_matches_table_quantiles(statistic: float, df: int, p: float) -> None:
    assert chi2_sf(statistic, df) == pytest.approx(p, rel=2e-4)


@pytest.mark.parametrize("df", [5, 23, 119, 999])
def test_chi2_sf_agrees_with_wilson_hilferty(df: int) -> None:
    for q in (0.5, 0.9, 1.0, 1.1, 1.3):
        x = df * q
        assert abs(chi2_sf(x, df) - wilson_hilferty_sf(x, df)) < 5e-3


# --------------------------------------------------------------------------- helpers


class Seats:
    """Several seats' hash chains; step k uses every seat's (k+1)-th reveal."""

    def __init__(self, count: int, length: int, label: str) -> None:
        self.chains = [HashChain(_h(f"{label}/seat/{s}"), length) for s in range(count)]

    def reveals(self, step: int) -> list[tuple[int, bytes]]:
        return [(seat, c.reveal(step + 1)) for seat, c in enumerate(self.chains)]


@pytest.fixture(scope="module")
def seats() -> Seats:
    return Seats(3, N_DRAWS, "draws/fair")


def outcomes(
    draw: Draw, purpose: str, reveals: Callable[[int], list[tuple[int, bytes]]], n: int = N_DRAWS
) -> Counter[object]:
    counts: Counter[object] = Counter()
    for step in range(n):
        stream = DrawStream(draw_seed(GAME, step, purpose, reveals(step)))
        values = draw_values(draw, stream.below)
        counts[values if isinstance(draw, Shuffle) else values[0]] += 1
    return counts


# --------------------------------------------------------------------------- distributions


@pytest.mark.parametrize(
    ("draw", "support"),
    [
        (D6, range(1, 7)),
        (PIECEPACK, range(6)),
        (Pick(7), range(7)),
        (Pick(1000), range(1000)),
    ],
    ids=["d6", "piecepack", "pick7", "pick1000"],
)
def test_single_draws_are_uniform(seats: Seats, draw: Draw, support: range) -> None:
    counts = outcomes(draw, f"fair/{draw}", seats.reveals)
    assert sum(counts.values()) == N_DRAWS
    assert set(counts) == set(support)
    assert chi2_p(counts, list(support)) > P_MIN


@pytest.mark.parametrize("n", [3, 4])
def test_shuffles_are_uniform_over_all_permutations(seats: Seats, n: int) -> None:
    counts = outcomes(Shuffle(n), f"shuffle/{n}", seats.reveals)
    perms = list(itertools.permutations(range(n)))
    assert set(counts) == set(perms)
    assert chi2_p(counts, perms) > P_MIN


def test_multi_count_dice_are_independent(seats: Seats) -> None:
    """Two dice per draw: the 36 ordered pairs are uniform (no correlation inside a roll)."""
    counts: Counter[object] = Counter()
    for step in range(N_DRAWS):
        stream = DrawStream(draw_seed(GAME, step, "2d6", seats.reveals(step)))
        counts[draw_values(Die((1, 2, 3, 4, 5, 6), count=2), stream.below)] += 1
    pairs = list(itertools.product(range(1, 7), repeat=2))
    assert chi2_p(counts, pairs) > P_MIN


def test_the_test_detects_a_biased_die(seats: Seats) -> None:
    """Power check: a die built with modulo bias (u3 % 6) is rejected by the same test."""
    counts: Counter[object] = Counter()
    for step in range(N_DRAWS):
        stream = DrawStream(draw_seed(GAME, step, "biased", seats.reveals(step)))
        counts[stream.below(8) % 6 + 1] += 1
    assert chi2_p(counts, range(1, 7)) < 1e-9


# --------------------------------------------------------------------------- collusion

COLLUDERS = (0, 2, 3)
HONEST = 1


@pytest.fixture(scope="module")
def honest_chain() -> HashChain:
    return HashChain(_h("draws/honest"), N_DRAWS + 1)


def _colluding(
    honest: HashChain, strategy: Callable[[int, bytes], bytes]
) -> Callable[[int], list[tuple[int, bytes]]]:
    """Reveals where only the honest seat is random; ``strategy(step, last public link)``."""

    def reveals(step: int) -> list[tuple[int, bytes]]:
        public = honest.reveal(step) if step else honest.anchor  # known before the step
        fixed = [(s, strategy(step, public)) for s in COLLUDERS]
        return [*fixed, (HONEST, honest.reveal(step + 1))]

    return reveals


STRATEGIES: dict[str, Callable[[int, bytes], bytes]] = {
    "zeros": lambda step, public: bytes(32),
    "constant": lambda step, public: _h("colluders/constant"),
    "per-step": lambda step, public: _h(f"colluders/{step}"),
    "echo-last-honest-link": lambda step, public: public,  # correlated with the honest reveal
}


@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_one_honest_seat_makes_the_die_uniform(honest_chain: HashChain, strategy: str) -> None:
    counts = outcomes(D6, "bonus", _colluding(honest_chain, STRATEGIES[strategy]))
    assert chi2_p(counts, range(1, 7)) > P_MIN


def test_one_honest_seat_makes_a_pick_uniform(honest_chain: HashChain) -> None:
    counts = outcomes(Pick(7), "cell", _colluding(honest_chain, STRATEGIES["zeros"]))
    assert chi2_p(counts, range(7)) > P_MIN


def _grinding_rolls(honest: HashChain, candidates: int, steps: int) -> Counter[object]:
    """What a last revealer could do WITHOUT hash chains: try values after seeing the others."""
    counts: Counter[object] = Counter()
    for step in range(steps):
        honest_reveal = honest.reveal(step + 1)
        roll = 0
        for k in range(candidates):
            mine = _h(f"grind/{step}/{k}")
            stream = DrawStream(draw_seed(GAME, step, "bonus", [(0, mine), (1, honest_reveal)]))
            roll = draw_values(D6, stream.below)[0]
            if roll == 6:
                break
        counts[roll] += 1
    return counts


def test_without_chains_a_last_revealer_could_steer(honest_chain: HashChain) -> None:
    """Why reveals are chain links: free choice after seeing the others biases the die."""
    counts = _grinding_rolls(honest_chain, candidates=8, steps=6_000)
    assert counts[6] > 0.7 * 6_000
    assert chi2_p(counts, range(1, 7)) < 1e-9


def test_with_chains_each_step_has_exactly_one_acceptable_reveal_per_seat() -> None:
    """After the anchors are fixed, a colluder's only freedom is to withhold.

    For each of the colluders we try the true link, forgeries (bit flips of the true link,
    random values, the honest seat's link, the previous link, the link after next) and
    withholding.  Only the true links pass chain_step_ok, so the set of seeds the
    colluders can reach is exactly one per subset of withholders, and with no withholder
    it is the single seed fixed by the anchors.
    """
    colluders = {s: HashChain(_h(f"collude/{s}"), 16) for s in COLLUDERS}
    honest = HashChain(_h("collude/honest"), 16)
    step = 5  # each seat has revealed 5 links so far; the 6th is due
    last = {s: c.reveal(step) for s, c in colluders.items()}
    honest_reveal = honest.reveal(step + 1)
    assert chain_step_ok(honest.reveal(step), honest_reveal)

    accepted: dict[int, list[bytes]] = {}
    for seat, chain in colluders.items():
        true = chain.reveal(step + 1)
        candidates = [true, honest_reveal, last[seat], chain.reveal(step + 2)]
        candidates += [_h(f"forge/{seat}/{k}") for k in range(100)]
        for bit in range(256):
            flipped = bytearray(true)
            flipped[bit // 8] ^= 1 << (bit % 8)
            candidates.append(bytes(flipped))
        accepted[seat] = [c for c in candidates if chain_step_ok(last[seat], c)]
        assert accepted[seat] == [true]

    reachable = set()
    for sending in itertools.product([False, True], repeat=len(COLLUDERS)):
        reveals = [(s, accepted[s][0]) for s, send in zip(COLLUDERS, sending, strict=True) if send]
        reachable.add(draw_seed(GAME, step, "bonus", [*reveals, (HONEST, honest_reveal)]))
    assert len(reachable) == 2 ** len(COLLUDERS)
    full = [(s, c.reveal(step + 1)) for s, c in colluders.items()] + [(HONEST, honest_reveal)]
    assert draw_seed(GAME, step, "bonus", full) in reachable


@pytest.fixture()
def toy_engine() -> Iterator[None]:
    register_engine("toy", "tests.session.toygame", "Toy")
    yield
    unregister_engine("toy")


def _toy_game() -> tuple[LobbyRecord, list[Identity], list[bytes]]:
    from tests.session.harness import make_record

    return make_record("toy", 3, seed="draws/collusion")


def _entropy(
    record: LobbyRecord, ident: Identity, seat: int, session: Session, reveal: bytes
) -> bytes:
    msg = sign_message(
        ident.signer(),
        MsgType.ENTROPY,
        record.game_id,
        0,
        seat,
        session.state.state_hash(),
        (reveal,),
    )
    return msg.raw


def _events(session: Session) -> list[ev.Event]:
    out = []
    while (e := session.next_event()) is not None:
        out.append(e)
    return out


@pytest.mark.usefixtures("toy_engine")
def test_session_blames_a_forged_entropy_reveal_and_does_not_use_it() -> None:
    record, ids, secrets = _toy_game()
    chains = [HashChain(s, record.chain_length) for s in secrets]
    session = Session(record, seat=0, identity=ids[0], chain_secret=secrets[0], peers={})
    _events(session)
    session.receive_message(_entropy(record, ids[1], 1, session, _h("forged")), 1.0)
    session.receive_message(_entropy(record, ids[2], 2, session, chains[2].reveal(1)), 1.0)
    events = _events(session)
    assert [(e.seat, e.code) for e in events if isinstance(e, ev.Blame)] == [(1, "bad-chain")]
    assert session.step == 0, "a forged reveal must not decide the roll"
    # Sending the true link afterwards is an equivocation: the forger has only withheld.
    session.receive_message(_entropy(record, ids[1], 1, session, chains[1].reveal(1)), 2.0)
    blames = [(e.seat, e.code) for e in _events(session) if isinstance(e, ev.Blame)]
    assert blames == [(1, "equivocation")]
    # Whatever the session does next (wait, or drop the seat), the roll can only come from
    # true chain links: all of them, or those of the seats that did not withhold.
    session.handle_timer(3.0)
    session.handle_timer(60.0)
    decision = Session(record, seat=None, replay=True).state.decision()
    assert isinstance(decision, Chance)
    links = {s: c.reveal(1) for s, c in enumerate(chains)}
    possible = {
        referee.chance_roll(decision, record.game_id, 0, links)[0],
        referee.chance_roll(decision, record.game_id, 0, {0: links[0], 2: links[2]})[0],
    }
    for event in _events(session):
        if isinstance(event, ev.StepApplied) and event.step == 0:
            assert event.input in possible


@pytest.mark.usefixtures("toy_engine")
def test_session_roll_is_the_one_fixed_by_the_anchors() -> None:
    record, ids, secrets = _toy_game()
    chains = [HashChain(s, record.chain_length) for s in secrets]
    assert [c.anchor for c in chains] == [s.anchor for s in record.seats]
    session = Session(record, seat=0, identity=ids[0], chain_secret=secrets[0], peers={})
    decision = session.state.decision()
    assert isinstance(decision, Chance)
    for seat in (2, 1):
        session.receive_message(
            _entropy(record, ids[seat], seat, session, chains[seat].reveal(1)), 1.0
        )
    applied = [e for e in _events(session) if isinstance(e, ev.StepApplied)]
    assert session.step == 1 and len(applied) == 1
    links = {s: c.reveal(1) for s, c in enumerate(chains)}
    expected, seed = referee.chance_roll(decision, record.game_id, 0, links)
    assert applied[0].input == expected
    stream = DrawStream(draw_seed(record.game_id, 0, decision.purpose, links.items()))
    assert applied[0].input == Roll((draw_values(decision.draws[0], stream.below),))
    assert seed == draw_seed(record.game_id, 0, decision.purpose, sorted(links.items()))


# --------------------------------------------------------------------------- seed and stream


def _spec_seed(game_id: bytes, step: int, purpose: str, reveals: list[tuple[int, bytes]]) -> bytes:
    tag = purpose.encode()
    data = b"lanTag/v1/draw\x00" + game_id + step.to_bytes(4, "big") + bytes([len(tag)]) + tag
    for seat, reveal in sorted(reveals):
        data += seat.to_bytes(2, "big") + reveal
    return hashlib.sha256(data).digest()


def _spec_words(seed: bytes, count: int) -> list[int]:
    blocks = b"".join(hashlib.sha256(seed + i.to_bytes(4, "big")).digest() for i in range(count))
    return [int.from_bytes(blocks[4 * i : 4 * i + 4], "big") for i in range(count)]


def test_seed_matches_the_documented_formula(seats: Seats) -> None:
    assert DOMAIN == b"lanTag/v1/draw\x00"
    for step in (0, 1, 77, 2**32 - 1):
        for purpose in ("", "bonus", "die roll for p1 ✓"):
            reveals = seats.reveals(step % 100)
            assert draw_seed(GAME, step, purpose, reveals) == _spec_seed(
                GAME, step, purpose, reveals
            )
    assert draw_seed(GAME, 3, "bot-turn/2", ()) == _spec_seed(GAME, 3, "bot-turn/2", [])


def test_seed_ignores_reveal_order_but_binds_every_input(seats: Seats) -> None:
    reveals = seats.reveals(9)
    base = draw_seed(GAME, 9, "bonus", reveals)
    assert draw_seed(GAME, 9, "bonus", list(reversed(reveals))) == base
    variants = [
        draw_seed(_h("draws/other-game"), 9, "bonus", reveals),
        draw_seed(GAME, 10, "bonus", reveals),
        draw_seed(GAME, 9, "bonus2", reveals),
        draw_seed(GAME, 9, "bonus", reveals[:2]),
        draw_seed(GAME, 9, "bonus", [(s + 1, r) for s, r in reveals]),  # same bytes, other seats
        draw_seed(
            GAME,
            9,
            "bonus",
            [(s, r) for (s, _), (_, r) in zip(reveals, reveals[1:] + reveals[:1], strict=True)],
        ),
    ]
    assert len({base, *variants}) == len(variants) + 1


def test_stream_reads_sha256_counter_blocks_four_bytes_at_a_time() -> None:
    seed = _h("draws/stream")
    stream = DrawStream(seed)
    words = [stream.below(2**32) for _ in range(20)]  # full-width: no masking, no rejection
    assert words == _spec_words(seed, 20)
    assert stream.words_used == 20


def test_below_masks_then_rejects_exactly_as_documented() -> None:
    seed = _h("draws/rejection")
    for n in (2, 3, 5, 6, 7, 100, 1000, 2**31 + 1):
        stream = DrawStream(seed)
        got = [stream.below(n) for _ in range(200)]
        mask = (1 << (n - 1).bit_length()) - 1
        accepted = [w & mask for w in _spec_words(seed, stream.words_used) if w & mask < n]
        assert got == accepted, n


@pytest.mark.parametrize("bits", [1, 3, 16, 31, 32])
def test_powers_of_two_never_reject(bits: int) -> None:
    stream = DrawStream(_h(f"draws/pow2/{bits}"))
    values = [stream.below(2**bits) for _ in range(500)]
    assert stream.words_used == 500
    assert all(0 <= v < 2**bits for v in values)


def test_large_awkward_sizes_stay_in_range_and_reject_about_half() -> None:
    n = 2**31 + 1  # mask is 2**32 - 1: almost half of all words are rejected
    stream = DrawStream(_h("draws/awkward"))
    draws = 20_000
    values = [stream.below(n) for _ in range(draws)]
    assert all(0 <= v < n for v in values)
    assert stream.words_used > draws
    assert 1.9 < stream.words_used / draws < 2.1
    assert max(values) >= 2**31 - 2**27  # the top of the range is reachable


def test_no_modulo_bias_for_three_quarters_of_the_word_range() -> None:
    """n = 3 * 2**30: plain u32 % n would make [0, 2**30) twice as likely; below() does not."""
    n = 3 * 2**30
    fair: Counter[object] = Counter()
    naive: Counter[object] = Counter()
    stream = DrawStream(_h("draws/three-quarters"))
    for _ in range(N_DRAWS):
        fair[stream.below(n) // 2**30] += 1
    raw = DrawStream(_h("draws/three-quarters"))
    for _ in range(N_DRAWS):
        naive[raw.below(2**32) % n // 2**30] += 1
    assert chi2_p(fair, range(3)) > P_MIN
    assert chi2_p(naive, range(3)) < 1e-9  # the same test catches the biased construction
    assert stream.words_used > N_DRAWS


def test_below_one_consumes_nothing_and_bad_sizes_raise() -> None:
    stream = DrawStream(_h("draws/edges"))
    assert stream.below(1) == 0 and stream.words_used == 0
    for bad in (0, -1, 2**32 + 1):
        with pytest.raises(ValueError, match=rf"^cannot draw below {bad}$"):
            stream.below(bad)
    assert stream.words_used == 0


def test_streams_are_deterministic_per_seed() -> None:
    a, b, c = (DrawStream(_h(label)) for label in ("x", "x", "y"))
    seq_a = [a.below(1000) for _ in range(50)]
    assert seq_a == [b.below(1000) for _ in range(50)]
    assert seq_a != [c.below(1000) for _ in range(50)]
