#!/usr/bin/env python3
"""Checks a page as a real browser rendered it (tests/integration/test_html_browser.cpp).

  check_page.py --dom DOM.html --png SHOT.png [--count CLASS=N]... [--min CLASS=N]... [--text S]...

DOM.html is `chromium --headless --dump-dom`'s output: the document after parsing, so an element
counts only if the browser built it. --count CLASS=N: exactly N elements have the class CLASS;
--min: at least N; --text: S occurs in the page's text (not in markup). The page must hold no
<script> element: a candidate's string that became markup would show here. SHOT.png is
`--screenshot`'s output: it must not be blank (one colour) and must hold some ink (pixels darker
than the background). Standard library only (zlib for the PNG). Exit 0 when all hold, 1 otherwise,
with one line per failure.
"""
import argparse
import html.parser
import struct
import sys
import zlib


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.classes = {}
        self.tags = {}
        self.text = []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        for k, v in attrs:
            if k == "class" and v:
                for c in v.split():
                    self.classes[c] = self.classes.get(c, 0) + 1

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_data(self, data):
        self.text.append(data)


def png_pixels(path):
    """(width, height, channels, rows of bytes) of an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype = ihdr[0], ihdr[1], ihdr[2], ihdr[3]
    if depth != 8 or ctype not in (2, 6):
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {ctype}")
    ch = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * ch
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(ch, stride):
                line[i] = (line[i] + line[i - ch]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - ch] if i >= ch else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - ch] if i >= ch else 0
                b, c = prev[i], prev[i - ch] if i >= ch else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, ch, rows


def check_png(path):
    w, h, ch, rows = png_pixels(path)
    colours, dark = set(), 0
    for r in rows[::2]:
        for x in range(0, w * ch, ch * 2):
            px = r[x:x + 3]
            colours.add(px)
            if sum(px) < 3 * 160:
                dark += 1
    fails = []
    if len(colours) < 8:
        fails.append(f"screenshot {path} is blank: {len(colours)} colour(s)")
    if dark < 200:
        fails.append(f"screenshot {path} holds almost no ink: {dark} dark pixels sampled")
    print(f"png: {w}x{h}, {len(colours)} colours, {dark} dark pixels sampled")
    return fails


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dom", required=True)
    ap.add_argument("--png", required=True)
    ap.add_argument("--count", action="append", default=[])
    ap.add_argument("--min", action="append", default=[])
    ap.add_argument("--text", action="append", default=[])
    a = ap.parse_args()
    d = Dom()
    d.feed(open(a.dom, encoding="utf-8", errors="replace").read())
    text = " ".join(" ".join(d.text).split())
    fails = []
    if d.tags.get("script", 0):
        fails.append(f"the page holds {d.tags['script']} <script> element(s)")
    for spec, exact in [(s, True) for s in a.count] + [(s, False) for s in a.min]:
        cls, n = spec.rsplit("=", 1)
        got = d.classes.get(cls, 0)
        if (exact and got != int(n)) or (not exact and got < int(n)):
            fails.append(f"class {cls}: {got} element(s), expected {'' if exact else 'at least '}{n}")
    for s in a.text:
        if " ".join(s.split()) not in text:
            fails.append(f"text not in the page: {s!r}")
    fails += check_png(a.png)
    print(f"dom: {sum(d.tags.values())} elements, svg {d.tags.get('svg', 0)}, table {d.tags.get('table', 0)}")
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
