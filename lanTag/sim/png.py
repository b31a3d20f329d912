"""A tiny PNG histogram writer (zlib + struct only), so ``lantag simulate --plot`` needs no
plotting library.  Text uses a 3x5 pixel font drawn at double size."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

_WIDTH, _HEIGHT = 720, 400
_LEFT, _RIGHT, _TOP, _BOTTOM = 70, 20, 40, 60
_BG, _AXIS, _BAR, _INK = (255, 255, 255), (60, 60, 60), (70, 120, 190), (20, 20, 20)

# 3x5 glyphs, rows top to bottom, 3 bits per row (4 = left column).
# fmt: off
_FONT: dict[str, tuple[int, ...]] = {
    "0": (7, 5, 5, 5, 7), "1": (2, 6, 2, 2, 7), "2": (7, 1, 7, 4, 7), "3": (7, 1, 7, 1, 7),
    "4": (5, 5, 7, 1, 1), "5": (7, 4, 7, 1, 7), "6": (7, 4, 7, 5, 7), "7": (7, 1, 1, 1, 1),
    "8": (7, 5, 7, 5, 7), "9": (7, 5, 7, 1, 7), "A": (2, 5, 7, 5, 5), "B": (6, 5, 6, 5, 6),
    "C": (7, 4, 4, 4, 7), "D": (6, 5, 5, 5, 6), "E": (7, 4, 6, 4, 7), "F": (7, 4, 6, 4, 4),
    "G": (7, 4, 5, 5, 7), "H": (5, 5, 7, 5, 5), "I": (7, 2, 2, 2, 7), "J": (1, 1, 1, 5, 7),
    "K": (5, 5, 6, 5, 5), "L": (4, 4, 4, 4, 7), "M": (5, 7, 7, 5, 5), "N": (6, 5, 5, 5, 5),
    "O": (7, 5, 5, 5, 7), "P": (7, 5, 7, 4, 4), "Q": (7, 5, 5, 7, 1), "R": (6, 5, 6, 5, 5),
    "S": (7, 4, 7, 1, 7), "T": (7, 2, 2, 2, 2), "U": (5, 5, 5, 5, 7), "V": (5, 5, 5, 5, 2),
    "W": (5, 5, 7, 7, 5), "X": (5, 5, 2, 5, 5), "Y": (5, 5, 2, 2, 2), "Z": (7, 1, 2, 4, 7),
    "-": (0, 0, 7, 0, 0), ":": (0, 2, 0, 2, 0), ".": (0, 0, 0, 0, 2), "'": (2, 2, 0, 0, 0),
    " ": (0, 0, 0, 0, 0), "/": (1, 1, 2, 4, 4), "%": (5, 1, 2, 4, 5),
}
# fmt: on
_SCALE = 2


class _Canvas:
    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.rows = [bytearray(bytes(_BG) * width) for _ in range(height)]

    def rect(self, x0: int, y0: int, x1: int, y1: int, colour: tuple[int, int, int]) -> None:
        """Fill the pixels x0 <= x < x1, y0 <= y < y1 (clipped)."""
        x0, x1 = max(0, x0), min(self.width, x1)
        for y in range(max(0, y0), min(self.height, y1)):
            self.rows[y][3 * x0 : 3 * x1] = bytes(colour) * (x1 - x0)

    def text(self, x: int, y: int, text: str) -> None:
        for ch in text.upper():
            glyph = _FONT.get(ch, _FONT[" "])
            for row, bits in enumerate(glyph):
                for col in range(3):
                    if bits >> (2 - col) & 1:
                        px, py = x + col * _SCALE, y + row * _SCALE
                        self.rect(px, py, px + _SCALE, py + _SCALE, _INK)
            x += 4 * _SCALE

    def png(self) -> bytes:
        raw = b"".join(b"\x00" + bytes(row) for row in self.rows)  # filter type 0 per row

        def chunk(kind: bytes, data: bytes) -> bytes:
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)  # 8-bit RGB
        return (
            b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b"")
        )


def text_width(text: str) -> int:
    return 4 * _SCALE * len(text)


def histogram_png(bins: Sequence[tuple[int, int, int]], title: str) -> bytes:
    """A bar chart of (low, high, count) bins with axis labels and a title."""
    canvas = _Canvas(_WIDTH, _HEIGHT)
    canvas.text(_LEFT, 12, title)
    x0, x1, y0, y1 = _LEFT, _WIDTH - _RIGHT, _TOP, _HEIGHT - _BOTTOM
    canvas.rect(x0 - 2, y0, x0, y1 + 2, _AXIS)
    canvas.rect(x0 - 2, y1, x1, y1 + 2, _AXIS)
    if not bins:
        return canvas.png()
    top = max(count for _, _, count in bins) or 1
    slot = (x1 - x0) / len(bins)
    label_every = max(1, len(bins) // 8)
    for i, (low, _high, count) in enumerate(bins):
        left = x0 + round(i * slot) + 1
        right = x0 + round((i + 1) * slot) - 1
        height = round((y1 - y0 - 10) * count / top)
        canvas.rect(left, y1 - height, right, y1, _BAR)
        if i % label_every == 0:
            label = str(low)
            canvas.text(left, y1 + 8, label)
    last_low, last_high, _ = bins[-1]
    if last_high != last_low or (len(bins) - 1) % label_every:  # not already labelled
        canvas.text(x1 - text_width(str(last_high)), y1 + 8, str(last_high))
    canvas.text(4, y0, str(top))
    canvas.text(4, y1 - 10, "0")
    canvas.text(x0, _HEIGHT - 22, "games per bin; x: game length")
    return canvas.png()
