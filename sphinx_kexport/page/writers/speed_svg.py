"""The HTML writer of the speed picture (``parts.speed_picture``): inline SVG, written at build time, no script.

One strip per path: its label, then one dot per speed figure on a shared logarithmic axis of the ratio
eager/path, a dashed line at 1× (as fast as eager), the axis's ticks below and, in words at either end,
which side is slower and which faster than eager. The verdict is told by shape as well as colour (a filled
dot faster, a ring slower, a small grey dot no clear difference); a strip's dots of one verdict are one
``<path>`` (a dot: a round-capped stroke of no length; a ring: two arcs), as hundreds of ``<circle>`` elements
were most of the page's picture bytes. Colours are the page's own custom properties (``static/kexport.css``),
text and lines ``currentColor``, so the four themes' light and dark modes
hold. The width is the container's (``viewBox``, no fixed size): drawn for 400 units, it is read at 400 px.
Every string is escaped; the ``<title>`` and ``<desc>`` give the picture's words to assistive technology.
"""

from __future__ import annotations

import math
from html import escape

from docutils import nodes

from ...snapshot.vocabulary import SPEED_FASTER, SPEED_SLOWER, SPEED_VERDICTS, speed_ratio
from .script_data import SPEED_CODE

WIDTH = 400
LEFT, RIGHT = 12, 388  # the axis's ends
TOP = 20  # room for the 1× label
STRIP = 42  # a strip's height: its label, then its dots
BOTTOM = 40  # the ticks and the side words
# a verdict's class (kx-spdf, kx-spds, kx-spdu) and dot radius: the stylesheet fills or rings it
KEY = ("Each dot is one figure, on a logarithmic axis: right of the dashed line at 1× the path is faster than "
       "eager, left of it slower; a filled dot is clearly faster, a ring clearly slower, a small grey dot no "
       "clear difference.")
DOT_RADIUS = {SPEED_CODE[v]: r for v, r in zip(SPEED_VERDICTS, (4.5, 4.5, 3.0))}
RING = SPEED_CODE[SPEED_SLOWER]  # a ring; the others a filled dot (faster with the outline it had)
OUTLINED = SPEED_CODE[SPEED_FASTER]


def _dots(code: str, centres: list[tuple[float, float]]) -> str:
    """One verdict's dots as one path: each starts with its centre ("M96.4 43"), then a stroke of no length
    (drawn as a round dot as wide as the stroke) or, for a ring, two half-circle arcs around the centre."""
    r = DOT_RADIUS[code]
    if code == RING:
        shape, paint = f"m-{r:g} 0a{r:g} {r:g} 0 1 0 {2 * r:g} 0a{r:g} {r:g} 0 1 0-{2 * r:g} 0", ""
    else:  # as wide as the circle was, with the 1-unit outline the stylesheet drew around a faster one
        shape, paint = "h0", f' stroke-width="{2 * r + (code == OUTLINED):g}" stroke-linecap="round"'
    d = "".join(f"M{cx:.1f} {cy}{shape}" for cx, cy in centres)
    return f'<path class="kx-spd kx-spd{code}"{paint} d="{d}"/>'


EXTREME = 10  # the axis ends at 1/1024× and 1024× at most: a ratio beyond (or 0, no time) sits at its end


def _exponent(ratio: float) -> float:
    return math.log2(ratio) if ratio > 0 and abs(math.log2(ratio)) < EXTREME else math.copysign(EXTREME, ratio - 1)


def _domain(ratios: list[float]) -> tuple[int, int]:
    """The axis's ends as powers of two around every ratio, at least ½× to 2×."""
    low = min(-1, math.floor(min(_exponent(r) for r in ratios)))
    high = max(1, math.ceil(max(_exponent(r) for r in ratios)))
    return low, high


def _ticks(low: int, high: int) -> list[int]:
    """The axis's ends, 1× and the powers of two between, thinned on a long axis so labels keep apart."""
    step = 1 if high - low <= 6 else 2 if high - low <= 12 else 4
    inner = [e for e in range(low + 1, high) if e == 0 or (e % step == 0 and min(e - low, high - e) >= step * 0.75)]
    return [low, *inner, high]


def _tick_text(exponent: int) -> str:
    return f"{speed_ratio(2.0 ** exponent)}×" if exponent > -4 else f"1/{2 ** -exponent}×"


def speed_svg(node: nodes.Element) -> str:
    strips = node["strips"]
    low, high = _domain(node.get("extent") or [r for strip in strips for r, _ in strip["figures"]])

    def x(ratio: float) -> float:
        return LEFT + (_exponent(ratio) - low) / (high - low) * (RIGHT - LEFT)

    height = TOP + STRIP * len(strips) + BOTTOM
    svg_id = escape(node["svg_id"])
    title = f"Speed over eager in {node['package']}"
    out = [f'<svg class="kx-spic" id="{svg_id}" viewBox="0 0 {WIDTH} {height}" role="img" '
           f'aria-labelledby="{svg_id}-t {svg_id}-d" preserveAspectRatio="xMinYMin meet">',
           f'<title id="{svg_id}-t">{escape(title)}</title>',
           f'<desc id="{svg_id}-d">{escape("; ".join(node["sentences"]) + ".")}</desc>']
    one = x(1.0)
    axis_y = TOP + STRIP * len(strips)
    out.append(f'<line class="kx-sp1" x1="{one:.1f}" y1="{TOP - 4}" x2="{one:.1f}" y2="{axis_y}"/>'
               f'<text x="{one:.1f}" y="{TOP - 8}" text-anchor="middle">1× = eager</text>')
    for n, strip in enumerate(strips):
        top = TOP + STRIP * n
        out.append(f'<text class="kx-spl" x="{LEFT}" y="{top + 13}">{escape(strip["label"])}</text>')
        # dots in order of ratio, nudged up and down in turn so that neighbours stay apart
        by_code: dict[str, list[tuple[float, float]]] = {}
        for k, (ratio, verdict) in enumerate(sorted(strip["figures"])):
            by_code.setdefault(SPEED_CODE[verdict], []).append((x(ratio), top + 28 + (k % 3 - 1) * 5))
        out += [_dots(code, centres) for code, centres in sorted(by_code.items())]
    out.append(f'<line class="kx-spa" x1="{LEFT}" y1="{axis_y}" x2="{RIGHT}" y2="{axis_y}"/>')
    for exponent in _ticks(low, high):
        tx = x(2.0 ** exponent)
        anchor = "start" if exponent == low else "end" if exponent == high else "middle"
        out.append(f'<line class="kx-spa" x1="{tx:.1f}" y1="{axis_y}" x2="{tx:.1f}" y2="{axis_y + 4}"/>'
                   f'<text x="{tx:.1f}" y="{axis_y + 16}" text-anchor="{anchor}">{_tick_text(exponent)}</text>')
    out.append(f'<text x="{LEFT}" y="{axis_y + 34}">← slower than eager</text>'
               f'<text x="{RIGHT}" y="{axis_y + 34}" text-anchor="end">faster than eager →</text>')
    out.append("</svg>")
    key = f'<p class="kx-spk">{KEY}</p>' if node.get("key") else ""
    return f'{key}<div class="kx-spw">{"".join(out)}</div>\n'


def visit_speed_picture(self, node: nodes.Element) -> None:
    self.body.append(speed_svg(node))
    raise nodes.SkipNode
