#!/usr/bin/env python3
"""Every committed SVG (the chapters' figures, chapters/NN_slug/figures/*.svg, and the plots and
rooflines of results/*.svg) shows whole at its natural size, on a repository page, in an editor
and on the site alike.

    python3 tests/scripts/test_svgs_whole.py size [--root ROOT] [SVG ...]
        its width and height are its viewBox's (to rounding) and nothing at its top level scales
        the drawing (render_figures.whole_problems); needs no renderer
    python3 tests/scripts/test_svgs_whole.py render [--root ROOT] [SVG ...]
        rsvg-convert (Debian/Ubuntu: librsvg2-bin) renders it at its natural size, where it must
        draw something, and then what lies around its viewBox, as far as the drawing's own width
        and height on every side: anything drawn there (a pixel that is not transparent) is a
        part of the drawing that a viewer crops. Without rsvg-convert it prints "SKIPPED: ..."
        and exits 0.
    python3 tests/scripts/test_svgs_whole.py planted
        both checks on planted SVGs: a whole one passes; a Graphviz `dpi` one (a size and a scale
        2.67 times the viewBox), one scaled inside a right-sized box, one whose label runs past
        the edge and one moved out of sight fail, each naming the file and the fault (the
        renders skipped without rsvg-convert)

Exit status: 0 when every SVG shows whole (or, for render, when there is no rsvg-convert), 1
naming each one that does not (or, for planted, when a check misses its fault), 2 on bad input
(no such file or folder).
"""

import argparse
import glob
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

from support import ROOT, call
import render_figures  # scripts/ is on the path through support

COMMITTED = (os.path.join("chapters", "[0-9][0-9]_*", "figures", "*.svg"),
             os.path.join("results", "*.svg"))
RSVG = "rsvg-convert"
NO_RENDERER = (f"SKIPPED: no {RSVG} to render the SVGs with (Debian/Ubuntu: apt-get install "
               f"librsvg2-bin; scripts/test.sh installs it)")
SVG_TAG_RE = re.compile(r"<svg\b[^>]*>", re.DOTALL)
# The attributes of the root <svg> that the renders around the viewBox replace.
PLACEMENT_RE = re.compile(r'\s(?:width|height|viewBox|preserveAspectRatio)\s*=\s*"[^"]*"')


class CheckError(Exception):
    """Bad input or a renderer that failed; the message is one line."""


def committed_svgs(root):
    return sorted(path for pattern in COMMITTED for path in glob.glob(os.path.join(root, pattern)))


def read(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise CheckError(f"{path}: cannot be read ({error})") from error


def size_problems(path, work=None):
    """What the size, viewBox and transforms of @p path tell (@p work: unused, as render's)."""
    return render_figures.whole_problems(read(path))


def first_drawn(png):
    """(x, y) in pixels of the first pixel of @p png (bytes, as rsvg-convert writes: 8-bit RGBA,
    or RGB where every pixel is opaque) that is not fully transparent, or None. A PNG filter
    predicts a byte from bytes before it, so a scanline whose filtered bytes are all zero after
    scanlines of zeros holds zeros too: the first non-zero filtered byte is the first non-zero
    pixel byte."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise CheckError("the renderer did not write a PNG")
    at, idat, header = 8, [], None
    while at + 8 <= len(png):
        length, kind = struct.unpack(">I4s", png[at:at + 8])
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", png[at + 8:at + 21])
        elif kind == b"IDAT":
            idat.append(png[at + 8:at + 8 + length])
        at += 12 + length
    if not header or header[2] != 8 or header[3] not in (2, 6) or header[6] != 0:
        raise CheckError(f"the renderer's PNG is not 8-bit RGB(A), not interlaced ({header})")
    if header[3] == 2:  # no alpha channel: opaque throughout
        return 0, 0
    stride = 4 * header[0] + 1
    raw = zlib.decompress(b"".join(idat))
    for y in range(header[1]):
        row = raw[y * stride + 1:(y + 1) * stride]
        stripped = row.lstrip(b"\0")
        if stripped:
            return (len(row) - len(stripped)) // 4, y
    return None


def rsvg(svg_text, work, name):
    """The PNG (bytes) that rsvg-convert renders of @p svg_text."""
    path = os.path.join(work, name)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(svg_text)
    try:
        done = subprocess.run([RSVG, "--format", "png", path], capture_output=True, timeout=120)
    except subprocess.TimeoutExpired as error:
        raise CheckError(f"{RSVG} took more than {error.timeout} s") from error
    if done.returncode != 0 or not done.stdout:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise CheckError(f"{RSVG} failed: {message[0] if message else 'no message'}")
    return done.stdout


def render_problems(path, work):
    """What a renderer shows to be cut off @p path at its natural size (see the header)."""
    text = read(path)
    name = os.path.basename(path)
    tag = SVG_TAG_RE.search(text)
    attributes = {key: value for key, value in
                  re.findall(r'\s([\w:-]+)\s*=\s*"([^"]*)"', tag.group(0))} if tag else {}
    box = [float(v) for v in render_figures.NUMBER_RE.findall(attributes.get("viewBox", ""))]
    if len(box) != 4:
        return ["no viewBox to render it by (the size check says more)"]
    problems = []
    if not first_drawn(rsvg(text, work, name)):
        problems.append("it draws nothing inside its viewBox")
    x, y, w, h = box
    margin = float(math.ceil(max(w, h)))  # the drawing's own size, in whole pixels
    # Each side's strip begins where the viewBox ends, on a pixel's edge (one pixel per unit from
    # the top-left corner), so what is drawn inside the viewBox does not reach into it.
    strips = {"top": (x - margin, y - margin, w + 2 * margin, margin),
              "bottom": (x - margin, y + h, w + 2 * margin, margin),
              "left": (x - margin, y - margin, margin, h + 2 * margin),
              "right": (x + w, y - margin, margin, h + 2 * margin)}
    for side, (sx, sy, sw, sh) in strips.items():
        sw, sh = float(math.ceil(sw)), float(math.ceil(sh))  # whole pixels, grown outwards
        placed = (f'{tag.group(0)[:4]} width="{sw:g}" height="{sh:g}" '
                  f'viewBox="{sx:g} {sy:g} {sw:g} {sh:g}" preserveAspectRatio="xMinYMin meet"'
                  f'{PLACEMENT_RE.sub("", tag.group(0)[4:])}')
        drawn = first_drawn(rsvg(text[:tag.start()] + placed + text[tag.end():], work,
                                 f"{side}-{name}"))
        if drawn:
            problems.append(f"it draws past its viewBox's {side} edge (at x={sx + drawn[0]:g}, "
                            f"y={sy + drawn[1]:g}; the viewBox is {x:g} {y:g} {w:g} {h:g}), "
                            f"which a viewer crops")
    return problems


def check(paths, root, checker, label):
    """Runs @p checker on each SVG; prints what it finds; the exit status."""
    bad = 0
    with tempfile.TemporaryDirectory(prefix="svgs-whole-") as work:
        for path in paths:
            try:
                problems = checker(path, work)
            except CheckError as error:
                problems = [str(error)]
            shown = os.path.relpath(path, root)
            for problem in problems:
                print(f"{shown}: {problem}")
            bad += bool(problems)
    if bad:
        print(f"{bad} of {len(paths)} SVGs would not show whole ({label})")
        return 1
    print(f"{len(paths)} SVGs show whole ({label})")
    return 0


# Planted SVGs, each in Graphviz's form. WHOLE draws inside its viewBox; the others break it.
WHOLE = """<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN"
 "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg width="{width}pt" height="{height}pt"
 viewBox="0.00 0.00 120.00 60.50" xmlns="http://www.w3.org/2000/svg">
<g id="graph0" class="graph" transform="scale({scale} {scale}) rotate(0) translate({x} 56.5)">
<polygon fill="white" stroke="transparent" points="-4,4 -4,-56.5 116,-56.5 116,4 -4,4"/>
<polygon fill="#dbeaf7" stroke="black" points="0,0 0,-52.5 112,-52.5 112,0 0,0"/>
<text text-anchor="start" x="{label_x}" y="-22" font-family="sans-serif" font-size="10.00">{label}\
</text>
</g>
</svg>
"""
WHOLE_FIELDS = dict(width=120, height=61, scale=1, x=4, label_x=6, label="tile 0")
PLANTED = {
    "whole": WHOLE_FIELDS,
    "dpi": dict(WHOLE_FIELDS, width=320, height=161, scale=2.67),
    "scaled": dict(WHOLE_FIELDS, scale=1.5),
    "label_past_edge": dict(WHOLE_FIELDS, label_x=70, label="a label too long for its box"),
    "out_of_sight": dict(WHOLE_FIELDS, x=5000),
}


class Planted(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="svgs-whole-")
        self.figures = os.path.join(self.root, "chapters", "01_sample", "figures")
        os.makedirs(self.figures)
        os.makedirs(os.path.join(self.root, "results"))
        self.paths = {}
        for name, fields in PLANTED.items():
            path = os.path.join(self.figures, f"{name}.svg")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(WHOLE.format(**fields))
            self.paths[name] = path
        shutil.copy(self.paths["whole"], os.path.join(self.root, "results", "plot.svg"))

    def tearDown(self):
        shutil.rmtree(self.root)

    def run_main(self, *args):
        return call_main(*args, "--root", self.root)

    def test_every_committed_svg_is_found(self):
        found = [os.path.relpath(p, self.root) for p in committed_svgs(self.root)]
        self.assertEqual(found, sorted(
            [os.path.join("chapters", "01_sample", "figures", f"{n}.svg") for n in PLANTED]
            + [os.path.join("results", "plot.svg")]))

    def test_size(self):
        self.assertEqual(size_problems(self.paths["whole"]), [])
        dpi = size_problems(self.paths["dpi"])
        self.assertEqual(len(dpi), 2, dpi)
        self.assertIn("its size 320pt x 161pt is 2.67 x 2.66 times its viewBox's 120 x 60.5",
                      dpi[0])
        self.assertIn('its top-level <g id="graph0"> scales', dpi[1])
        self.assertIn("scales what it draws by 2.67 x 2.67", dpi[1])
        scaled = size_problems(self.paths["scaled"])
        self.assertEqual(len(scaled), 1, scaled)
        self.assertIn("by 1.5 x 1.5", scaled[0])
        # A label past the edge, a drawing moved away: not a matter of size, a renderer sees them.
        self.assertEqual(size_problems(self.paths["label_past_edge"]), [])
        self.assertEqual(size_problems(self.paths["out_of_sight"]), [])
        code, out = self.run_main("size")
        self.assertEqual(code, 1, out)
        self.assertIn("2 of 6 SVGs would not show whole", out)
        self.assertIn("chapters/01_sample/figures/dpi.svg: its size", out)
        self.assertEqual(self.run_main("size", self.paths["whole"])[0], 0)

    @unittest.skipIf(shutil.which(RSVG) is None, NO_RENDERER)
    def test_render(self):
        with tempfile.TemporaryDirectory() as work:
            self.assertEqual(render_problems(self.paths["whole"], work), [])
            dpi = render_problems(self.paths["dpi"], work)
            self.assertEqual([p.split()[5] for p in dpi], ["bottom", "right"], dpi)
            scaled = render_problems(self.paths["scaled"], work)
            self.assertEqual([p.split()[5] for p in scaled], ["bottom", "right"], scaled)
            label = render_problems(self.paths["label_past_edge"], work)
            self.assertEqual(len(label), 1, label)
            self.assertRegex(label[0],
                             r"^it draws past its viewBox's right edge \(at x=1[2-9][0-9], y=")
            self.assertEqual(render_problems(self.paths["out_of_sight"], work),
                             ["it draws nothing inside its viewBox"])
        code, out = self.run_main("render")
        self.assertEqual(code, 1, out)
        self.assertIn("4 of 6 SVGs would not show whole", out)
        self.assertIn("chapters/01_sample/figures/label_past_edge.svg: it draws past", out)
        self.assertNotIn("whole.svg:", out)
        self.assertNotIn("plot.svg:", out)

    def test_bad_input(self):
        code, out = self.run_main("size", os.path.join(self.root, "no.svg"))
        self.assertEqual(code, 2, out)
        self.assertIn("no.svg: no such file", out)
        code, out = call_main("size", "--root", os.path.join(self.root, "nowhere"))
        self.assertEqual(code, 2, out)
        self.assertIn("no such folder", out)


def call_main(*args):
    """(exit status, what it printed) of main(@p args)."""
    code, out, err = call(main, list(args))
    return code, out + err


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Check that every committed SVG shows whole at its natural size.")
    parser.add_argument("mode", choices=("size", "render", "planted"))
    parser.add_argument("svgs", nargs="*",
                        help="only these SVGs (default: chapters/NN_slug/figures/*.svg and "
                             "results/*.svg)")
    parser.add_argument("--root", default=ROOT,
                        help="the repository (default: the one this test is in)")
    args = parser.parse_args(argv)
    if args.mode == "planted":
        suite = unittest.defaultTestLoader.loadTestsFromTestCase(Planted)
        return 0 if unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful() else 1
    root = os.path.abspath(args.root)
    if not os.path.isdir(root):
        print(f"test_svgs_whole.py: {args.root}: no such folder", file=sys.stderr)
        return 2
    paths = [os.path.abspath(p) for p in args.svgs] or committed_svgs(root)
    missing = [p for p in paths if not os.path.isfile(p)]
    if missing:
        print(f"test_svgs_whole.py: {missing[0]}: no such file", file=sys.stderr)
        return 2
    if args.mode == "size":
        return check(paths, root, size_problems, "size, viewBox and transform")
    if shutil.which(RSVG) is None:
        print(NO_RENDERER)
        return 0
    return check(paths, root, render_problems, f"rendered with {RSVG}")


if __name__ == "__main__":
    sys.exit(main())
