#!/usr/bin/python3
"""Render a terminal screen captured with `tmux capture-pane -e -p` to a PNG.

The capture is a grid of cells with SGR attributes (colours, bold, dim, reverse, ...), which
is exactly what a terminal shows. This draws it the way a terminal would: one fixed-size cell
per column, DejaVu Sans Mono for text, and the block and box-drawing characters the dashboard
uses for bars, sparklines, borders and the pulse drawn geometrically so they join up seamlessly
like in a real terminal (font glyphs leave gaps when the cell is taller than the font's box).

Usage:
    ansi2png.py CAPTURE.ans OUT.png --cols 100 --rows 30 [--title TEXT] [--scale 2]
                [--palette tango|xterm]

Needs Pillow (Debian: python3-pil) and DejaVu Sans Mono (fonts-dejavu-core).
"""

import argparse
import re
import sys
import unicodedata

from PIL import Image, ImageDraw, ImageFont

FONT_DIRS = [
    "/usr/share/fonts/truetype/dejavu",
    "/usr/share/fonts/dejavu",
    "/usr/local/share/fonts",
    "/Library/Fonts",
]

# Terminal palettes: 16 colours plus default foreground and background.
PALETTES = {
    # GNOME Terminal's Tango palette, the look most Linux users know.
    "tango": {
        "colors": ["#000000", "#cc0000", "#4e9a06", "#c4a000", "#3465a4", "#75507b", "#06989a", "#d3d7cf",
                   "#555753", "#ef2929", "#8ae234", "#fce94f", "#729fcf", "#ad7fa8", "#34e2e2", "#eeeeec"],
        "fg": "#d3d7cf",
        "bg": "#1d1f21",
    },
    # xterm's built-in defaults, on black.
    "xterm": {
        "colors": ["#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
                   "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff"],
        "fg": "#e5e5e5",
        "bg": "#000000",
    },
}


def hex_rgb(h):
    h = h.lstrip("#")
    return tuple(int(h[i:i + 2], 16) for i in (0, 2, 4))


def color256(n, palette):
    """RGB for an xterm 256-colour index."""
    if n < 16:
        return hex_rgb(palette["colors"][n])
    if n < 232:
        n -= 16
        levels = [0, 95, 135, 175, 215, 255]
        return (levels[n // 36], levels[(n // 6) % 6], levels[n % 6])
    v = 8 + (n - 232) * 10
    return (v, v, v)


class Attr:
    __slots__ = ("fg", "bg", "bold", "dim", "italic", "underline", "reverse", "hidden", "strike")

    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = None  # None = default, else ("idx", n) or ("rgb", (r, g, b))
        self.bg = None
        self.bold = self.dim = self.italic = self.underline = False
        self.reverse = self.hidden = self.strike = False

    def copy(self):
        a = Attr()
        for k in Attr.__slots__:
            setattr(a, k, getattr(self, k))
        return a


def apply_sgr(attr, params):
    codes = [int(p) if p.isdigit() else 0 for p in params.split(";")] if params else [0]
    i = 0
    while i < len(codes):
        c = codes[i]
        if c == 0:
            attr.reset()
        elif c == 1:
            attr.bold = True
        elif c == 2:
            attr.dim = True
        elif c == 3:
            attr.italic = True
        elif c in (4, 21):
            attr.underline = True
        elif c == 7:
            attr.reverse = True
        elif c == 8:
            attr.hidden = True
        elif c == 9:
            attr.strike = True
        elif c == 22:
            attr.bold = attr.dim = False
        elif c == 23:
            attr.italic = False
        elif c == 24:
            attr.underline = False
        elif c == 27:
            attr.reverse = False
        elif c == 28:
            attr.hidden = False
        elif c == 29:
            attr.strike = False
        elif 30 <= c <= 37:
            attr.fg = ("idx", c - 30)
        elif 90 <= c <= 97:
            attr.fg = ("idx", c - 90 + 8)
        elif 40 <= c <= 47:
            attr.bg = ("idx", c - 40)
        elif 100 <= c <= 107:
            attr.bg = ("idx", c - 100 + 8)
        elif c == 39:
            attr.fg = None
        elif c == 49:
            attr.bg = None
        elif c in (38, 48):
            value = None
            if i + 2 < len(codes) and codes[i + 1] == 5:
                value = ("idx", codes[i + 2])
                i += 2
            elif i + 1 < len(codes) and codes[i + 1] == 2 and i + 4 < len(codes):
                value = ("rgb", (codes[i + 2], codes[i + 3], codes[i + 4]))
                i += 4
            if value is not None:
                if c == 38:
                    attr.fg = value
                else:
                    attr.bg = value
        i += 1


def char_width(ch):
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


CSI = re.compile(r"\x1b\[([0-9;:?]*)([@-~])")
OSC = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


def parse(text, cols, rows):
    """Returns rows x cols cells of (char, Attr)."""
    grid = [[(" ", Attr()) for _ in range(cols)] for _ in range(rows)]
    attr = Attr()  # tmux carries attributes from one line to the next
    text = OSC.sub("", text)
    lines = text.split("\n")
    for y, line in enumerate(lines[:rows]):
        x = 0
        pos = 0
        while pos < len(line):
            ch = line[pos]
            if ch == "\x1b":
                m = CSI.match(line, pos)
                if m:
                    if m.group(2) == "m":
                        apply_sgr(attr, m.group(1).replace(":", ";"))
                    pos = m.end()
                    continue
                pos += 1
                continue
            pos += 1
            if ch == "\r" or ord(ch) < 0x20:
                continue
            w = char_width(ch)
            if w == 0:
                continue
            if x < cols:
                grid[y][x] = (ch, attr.copy())
                if w == 2 and x + 1 < cols:
                    grid[y][x + 1] = ("", attr.copy())
            x += w
    return grid


def find_font(name):
    import os
    for d in FONT_DIRS:
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    sys.exit(f"ansi2png: font {name} not found (apt-get install fonts-dejavu-core)")


class Renderer:
    def __init__(self, cols, rows, scale, palette, title):
        self.cols, self.rows = cols, rows
        self.s = scale
        self.palette = palette
        size = 16 * scale
        self.font = ImageFont.truetype(find_font("DejaVuSansMono.ttf"), size)
        self.bold = ImageFont.truetype(find_font("DejaVuSansMono-Bold.ttf"), size)
        self.italic = ImageFont.truetype(find_font("DejaVuSansMono-Oblique.ttf"), size)
        self.cw = 10 * scale
        self.ch = 20 * scale
        ascent, descent = self.font.getmetrics()
        self.baseline = (self.ch - (ascent + descent)) // 2 + ascent
        self.margin = 14 * scale
        self.title_h = (30 * scale) if title is not None else 0
        self.title = title
        self.default_fg = hex_rgb(palette["fg"])
        self.default_bg = hex_rgb(palette["bg"])

    def rgb(self, spec, default):
        if spec is None:
            return default
        kind, v = spec
        return color256(v, self.palette) if kind == "idx" else tuple(v)

    def colours(self, a):
        fg = self.rgb(a.fg, self.default_fg)
        bg = self.rgb(a.bg, self.default_bg)
        if a.reverse:
            fg, bg = bg, fg
        if a.dim:
            fg = tuple((f + b) // 2 for f, b in zip(fg, bg))
        return fg, bg

    def render(self, grid):
        s = self.s
        width = self.cols * self.cw + 2 * self.margin
        height = self.rows * self.ch + 2 * self.margin + self.title_h
        img = Image.new("RGB", (width, height), self.default_bg)
        d = ImageDraw.Draw(img)
        if self.title is not None:
            d.rectangle([0, 0, width, self.title_h], fill=(0x30, 0x32, 0x36))
            for i, c in enumerate([(0xff, 0x5f, 0x57), (0xfe, 0xbc, 0x2e), (0x28, 0xc8, 0x40)]):
                cx, cy, r = 16 * s + i * 20 * s, self.title_h // 2, 6 * s
                d.ellipse([cx - r, cy - r, cx + r, cy + r], fill=c)
            tf = ImageFont.truetype(find_font("DejaVuSans.ttf"), 13 * s)
            tw = d.textlength(self.title, font=tf)
            d.text(((width - tw) / 2, self.title_h / 2), self.title, font=tf, fill=(0xc8, 0xc8, 0xc8), anchor="lm")
        ox, oy = self.margin, self.margin + self.title_h
        # Backgrounds first, then glyphs (a glyph may overhang its cell slightly).
        for y, row in enumerate(grid):
            for x, (ch, a) in enumerate(row):
                fg, bg = self.colours(a)
                if bg != self.default_bg:
                    x0, y0 = ox + x * self.cw, oy + y * self.ch
                    d.rectangle([x0, y0, x0 + self.cw - 1, y0 + self.ch - 1], fill=bg)
        for y, row in enumerate(grid):
            for x, (ch, a) in enumerate(row):
                if not ch or ch == " " or a.hidden:
                    continue
                fg, bg = self.colours(a)
                x0, y0 = ox + x * self.cw, oy + y * self.ch
                if not self.draw_special(d, ch, x0, y0, fg, a.bold):
                    font = self.bold if a.bold else (self.italic if a.italic else self.font)
                    d.text((x0, y0 + self.baseline), ch, font=font, fill=fg, anchor="ls")
                if a.underline:
                    uy = y0 + self.baseline + 2 * s
                    d.line([x0, uy, x0 + self.cw - 1, uy], fill=fg, width=s)
                if a.strike:
                    sy = y0 + self.ch // 2
                    d.line([x0, sy, x0 + self.cw - 1, sy], fill=fg, width=s)
        return img

    # Geometric block elements and box drawing, so bars, sparklines and borders join up.
    def draw_special(self, d, ch, x0, y0, fg, bold):
        o = ord(ch)
        cw, chh, s = self.cw, self.ch, self.s
        x1, y1 = x0 + cw - 1, y0 + chh - 1
        if o == 0x2588:  # full block
            d.rectangle([x0, y0, x1, y1], fill=fg)
            return True
        if 0x2581 <= o <= 0x2587:  # lower eighths
            h = round(chh * (o - 0x2580) / 8)
            d.rectangle([x0, y1 - h + 1, x1, y1], fill=fg)
            return True
        if o == 0x2580:  # upper half
            d.rectangle([x0, y0, x1, y0 + chh // 2 - 1], fill=fg)
            return True
        if 0x2589 <= o <= 0x258F:  # left blocks 7/8 .. 1/8
            w = round(cw * (0x2590 - o) / 8)
            d.rectangle([x0, y0, x0 + w - 1, y1], fill=fg)
            return True
        if o == 0x2590:  # right half
            d.rectangle([x0 + cw // 2, y0, x1, y1], fill=fg)
            return True
        if o in (0x2591, 0x2592, 0x2593):  # shades
            alpha = {0x2591: 0.25, 0x2592: 0.5, 0x2593: 0.75}[o]
            bg = self.default_bg
            c = tuple(round(b + (f - b) * alpha) for f, b in zip(fg, bg))
            d.rectangle([x0, y0, x1, y1], fill=c)
            return True
        if o in (0x25A0, 0x25A1):  # ■ □ (battery gauge): a square centred in the cell
            side = cw - 2 * s
            top = y0 + (chh - side) // 2
            box = [x0 + s, top, x0 + s + side - 1, top + side - 1]
            if o == 0x25A0:
                d.rectangle(box, fill=fg)
            else:
                d.rectangle(box, outline=fg, width=s)
            return True
        if 0x2500 <= o <= 0x257F:
            return self.draw_box(d, o, x0, y0, fg, bold)
        return False

    def draw_box(self, d, o, x0, y0, fg, bold):
        cw, chh, s = self.cw, self.ch, self.s
        cx, cy = x0 + cw // 2, y0 + chh // 2
        x1, y1 = x0 + cw - 1, y0 + chh - 1
        light, heavy = s, 2 * s + (1 if s == 1 else 0)
        # (left, right, up, down) weights: 0 none, 1 light, 2 heavy, 3 double
        table = {
            0x2500: (1, 1, 0, 0), 0x2501: (2, 2, 0, 0), 0x2502: (0, 0, 1, 1), 0x2503: (0, 0, 2, 2),
            0x250C: (0, 1, 0, 1), 0x250F: (0, 2, 0, 2), 0x2510: (1, 0, 0, 1), 0x2513: (2, 0, 0, 2),
            0x2514: (0, 1, 1, 0), 0x2517: (0, 2, 2, 0), 0x2518: (1, 0, 1, 0), 0x251B: (2, 0, 2, 0),
            0x251C: (0, 1, 1, 1), 0x2523: (0, 2, 2, 2), 0x2524: (1, 0, 1, 1), 0x252B: (2, 0, 2, 2),
            0x252C: (1, 1, 0, 1), 0x2533: (2, 2, 0, 2), 0x2534: (1, 1, 1, 0), 0x253B: (2, 2, 2, 0),
            0x253C: (1, 1, 1, 1), 0x254B: (2, 2, 2, 2),
            0x2550: (3, 3, 0, 0), 0x2551: (0, 0, 3, 3), 0x2554: (0, 3, 0, 3), 0x2557: (3, 0, 0, 3),
            0x255A: (0, 3, 3, 0), 0x255D: (3, 0, 3, 0), 0x2560: (0, 3, 3, 3), 0x2563: (3, 0, 3, 3),
            0x2566: (3, 3, 0, 3), 0x2569: (3, 3, 3, 0), 0x256C: (3, 3, 3, 3),
            0x2574: (1, 0, 0, 0), 0x2575: (0, 0, 1, 0), 0x2576: (0, 1, 0, 0), 0x2577: (0, 0, 0, 1),
        }
        if o in table:
            left, right, up, down = table[o]

            def hline(xa, xb, w):
                if w == 3:
                    for dy in (-s - 1, s + 1):
                        d.rectangle([xa, cy + dy - light // 2, xb, cy + dy - light // 2 + light - 1], fill=fg)
                elif w:
                    t = heavy if w == 2 else light
                    d.rectangle([xa, cy - t // 2, xb, cy - t // 2 + t - 1], fill=fg)

            def vline(ya, yb, w):
                if w == 3:
                    for dx in (-s - 1, s + 1):
                        d.rectangle([cx + dx - light // 2, ya, cx + dx - light // 2 + light - 1, yb], fill=fg)
                elif w:
                    t = heavy if w == 2 else light
                    d.rectangle([cx - t // 2, ya, cx - t // 2 + t - 1, yb], fill=fg)

            hline(x0, cx, left)
            hline(cx, x1, right)
            vline(y0, cy, up)
            vline(cy, y1, down)
            return True
        if o in (0x256D, 0x256E, 0x256F, 0x2570):  # rounded corners ╭ ╮ ╯ ╰
            r = min(cw, chh) // 2
            t = light
            # Straight parts from the arc to the cell edges, then a quarter circle.
            if o == 0x256D:  # ╭ right + down
                d.rectangle([cx + r, cy - t // 2, x1, cy - t // 2 + t - 1], fill=fg)
                d.rectangle([cx - t // 2, cy + r, cx - t // 2 + t - 1, y1], fill=fg)
                d.arc([cx - t // 2, cy - t // 2, cx + 2 * r, cy + 2 * r], 180, 270, fill=fg, width=t)
            elif o == 0x256E:  # ╮ left + down
                d.rectangle([x0, cy - t // 2, cx - r, cy - t // 2 + t - 1], fill=fg)
                d.rectangle([cx - t // 2, cy + r, cx - t // 2 + t - 1, y1], fill=fg)
                d.arc([cx - 2 * r, cy - t // 2, cx + t - t // 2 - 1, cy + 2 * r], 270, 360, fill=fg, width=t)
            elif o == 0x256F:  # ╯ left + up
                d.rectangle([x0, cy - t // 2, cx - r, cy - t // 2 + t - 1], fill=fg)
                d.rectangle([cx - t // 2, y0, cx - t // 2 + t - 1, cy - r], fill=fg)
                d.arc([cx - 2 * r, cy - 2 * r, cx + t - t // 2 - 1, cy + t - t // 2 - 1], 0, 90, fill=fg, width=t)
            else:  # ╰ right + up
                d.rectangle([cx + r, cy - t // 2, x1, cy - t // 2 + t - 1], fill=fg)
                d.rectangle([cx - t // 2, y0, cx - t // 2 + t - 1, cy - r], fill=fg)
                d.arc([cx - t // 2, cy - 2 * r, cx + 2 * r, cy + t - t // 2 - 1], 90, 180, fill=fg, width=t)
            return True
        if o == 0x2571:  # ╱
            d.line([x0, y1, x1, y0], fill=fg, width=light)
            return True
        if o == 0x2572:  # ╲
            d.line([x0, y0, x1, y1], fill=fg, width=light)
            return True
        if o == 0x2573:  # ╳
            d.line([x0, y1, x1, y0], fill=fg, width=light)
            d.line([x0, y0, x1, y1], fill=fg, width=light)
            return True
        return False  # anything else: the font's glyph


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("capture")
    ap.add_argument("output")
    ap.add_argument("--cols", type=int, required=True)
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--title", default=None, help="window title bar text (omit for no title bar)")
    ap.add_argument("--scale", type=int, default=1, help="1 = 10x20 px cells, 2 = 20x40 (HiDPI)")
    ap.add_argument("--palette", choices=sorted(PALETTES), default="tango")
    args = ap.parse_args()
    with open(args.capture, encoding="utf-8", errors="replace") as f:
        text = f.read()
    grid = parse(text, args.cols, args.rows)
    img = Renderer(args.cols, args.rows, args.scale, PALETTES[args.palette], args.title).render(grid)
    img.save(args.output, optimize=True)


if __name__ == "__main__":
    main()
