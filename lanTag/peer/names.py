"""Nicknames people can trust (issue #38 item 5): one form for each name, and a look-alike key.

``clean_nickname`` is what a nickname becomes wherever lanTag takes one (your own, a
joiner's, the host's): Unicode NFC, without invisible characters (control and format
characters, bidi overrides and isolates, zero-width spaces and joiners, variation
selectors, fillers that draw nothing), each run of spaces one ASCII space, trimmed, at most
32 characters.  ``alice`` + U+200B is then just ``alice``.

``skeleton`` is how a name *looks*, for telling a look-alike of a host you know: the clean
name in NFKC (full-width and styled letters to plain ones), case-folded, with a small table
of letters that draw like Latin ones (Cyrillic and Greek look-alikes, dotless i, ``0`` and
``o``, ``1``/``l``/``i``/``|``, ``rn`` and ``m``, ``vv`` and ``w``).  Two names with one
skeleton may be told apart by a careful eye, or not: a host that answers with another key
under a look-alike of a nickname you played with gets the changed-key warning
(lanTag.peer.joiner).  The table is small on purpose: Unicode's full confusables list
(UTS #39) is thousands of pairs, and the PyPI packages that carry it either stopped being
kept or only detect mixed scripts; a nickname here is compared only with the few host
nicknames in your known_hosts, where these cover what a prankster at the next table types
(docs/SECURITY.md).
"""

from __future__ import annotations

import unicodedata

MAX_NICKNAME = 32
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Default-ignorable or blank-drawing code points outside those categories.
_INVISIBLE = frozenset(
    [
        *(0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0),
        *range(0x180B, 0x1810),  # Mongolian variation selectors
        *range(0xFE00, 0xFE10),  # variation selectors
        *range(0xE0100, 0xE01F0),  # variation selectors supplement
    ]
)
_LOOKS_LATIN = str.maketrans(
    {
        # Cyrillic (lower case: skeletons are case-folded first)
        "а": "a", "в": "b", "е": "e", "ё": "e", "һ": "h", "н": "h", "і": "l", "ї": "l",
        "ј": "j", "к": "k", "ӏ": "l", "м": "m", "о": "o", "р": "p", "с": "c", "ԁ": "d",
        "ԛ": "q", "ѕ": "s", "т": "t", "у": "y", "ԝ": "w", "х": "x", "ү": "y", "ɡ": "g",
        # Greek
        "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "l", "κ": "k", "μ": "u", "ν": "v",
        "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "γ": "y",
        # Latin and symbols that draw like other letters
        "ı": "l", "i": "l", "1": "l", "|": "l", "ℓ": "l", "0": "o", "ɑ": "a", "ʏ": "y",
        "5": "s",
    }
)  # fmt: skip
_DIGRAPHS = (("rn", "m"), ("vv", "w"))


def _visible(char: str) -> bool:
    return ord(char) not in _INVISIBLE and unicodedata.category(char) not in _INVISIBLE_CATEGORIES


def clean_nickname(text: str, limit: int | None = MAX_NICKNAME) -> str:
    """``text`` as a nickname: NFC, no invisible characters, single spaces, trimmed, at most
    ``limit`` characters ("" if nothing visible is left)."""
    text = unicodedata.normalize("NFC", text)
    out: list[str] = []
    for char in text:
        if unicodedata.category(char) == "Zs" or char in "\t\n\r":
            if out and out[-1] != " ":
                out.append(" ")
        elif _visible(char):
            out.append(char)
    return unicodedata.normalize("NFC", "".join(out).strip())[:limit].rstrip()


def skeleton(text: str) -> str:
    """How a nickname looks, for finding look-alikes (see the module's docstring)."""
    folded = unicodedata.normalize("NFKC", clean_nickname(text)).casefold()
    shape = folded.translate(_LOOKS_LATIN)
    for pair, single in _DIGRAPHS:
        shape = shape.replace(pair, single)
    return shape


def look_alike(nickname: str, known: dict[str, str]) -> str | None:
    """A nickname of ``known`` (nickname -> key fingerprint) that is not ``nickname`` but
    looks like it, if any (the first in sorted order)."""
    shape = skeleton(nickname)
    return next((k for k in sorted(known) if k != nickname and skeleton(k) == shape), None)
