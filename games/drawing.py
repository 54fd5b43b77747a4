"""What the games' table pictures share: Pillow's bundled font and the names it can draw."""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from PIL import ImageFont


@lru_cache(maxsize=8)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def ascii_text(text: str) -> str:
    """What the bundled font can draw: accents dropped, anything else left out."""
    folded = unicodedata.normalize("NFKD", text)
    return "".join(c for c in folded if c.isascii()).strip()


def label_of(name: str, seat: int) -> str:
    """A player's name as the bundled font can draw it, else their seat."""
    text = ascii_text(name)
    if not text or text.startswith("{p:"):
        return f"Player {seat}"
    return text[:20]
