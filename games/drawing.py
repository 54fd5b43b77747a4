"""What the games' table pictures share: Pillow's bundled font, the names it can draw, and
how a picture is written as a PNG."""

from __future__ import annotations

import io
import unicodedata
from functools import lru_cache

from PIL import Image, ImageFont


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


def flat_png(image: Image.Image, colours: int = 64, level: int = 5) -> bytes:
    """A small PNG of a picture of flat fills and anti-aliased text: a palette of ``colours``
    needs a third of RGB's bytes (phones download each table picture) and compresses faster;
    the fast octree quantizer is deterministic, so equal specs still draw equal bytes. Level 9
    costs ten times the time for a few KB."""
    out = io.BytesIO()
    palette = image.quantize(
        colors=colours, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
    )
    palette.save(out, format="PNG", compress_level=level)
    return out.getvalue()
