"""The navigation tree of a site Doxygen built (GENERATE_TREEVIEW), read and rewritten.

Doxygen lists a page's headings in the tree as entries of their own, so that the README's
"Results" heading and the results page, or its "For instructors" heading and the instructors
page, stand side by side under the same name. one_entry_per_page() keeps one entry per page:
the entries of the headings of the pages written in Markdown are dropped (each page still shows
its own table of contents), and the index that tells the tree which entry a page is (its
navtreeindex*.js files) is rewritten to the entries that remain.

The tree is navtreedata.js's NAVTREE: entries [title, url, children], where children is null, a
list of entries, or the name of a script NAME.js that holds them (var NAME = [...]). The index
maps each url (with its #anchor) to the path of its entry, the positions among the children from
the top, within files navtreeindex0.js, navtreeindex1.js, ... Both are JSON inside a `var`.
Only the Python standard library is used.
"""

import json
import re

VAR = re.compile(r"var\s+(\w+)\s*=\s*")


class TreeError(Exception):
    """A tree file that is not in the form Doxygen 1.9 writes."""


def read_var(path, name):
    """The JSON value of `var NAME = ...;` in the script @p path, and the text around it:
    (before, value, after)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise TreeError(f"{path.name}: cannot be read ({error.strerror})") from error
    for match in VAR.finditer(text):
        if match.group(1) == name:
            try:
                value, end = json.JSONDecoder().raw_decode(text, match.end())
            except ValueError as error:
                raise TreeError(f"{path.name}: var {name} is not JSON ({error})") from error
            return text[:match.end()], value, text[end:]
    raise TreeError(f"{path.name}: no 'var {name}'")


def write_var(path, before, value, after):
    path.write_text(before + json.dumps(value, indent=1, ensure_ascii=False) + after,
                    encoding="utf-8")


class Tree:
    """The whole tree of the site in @p html_dir, with the scripts its entries come from."""

    def __init__(self, html_dir):
        self.html_dir = html_dir
        self.scripts = {}  # name -> (before, entries, after) of NAME.js
        self.data = read_var(html_dir / "navtreedata.js", "NAVTREE")
        self.root = self.data[1][0]  # ["Title", "index.html", [...]]
        self.load(self.root)

    def children(self, entry):
        """The child entries of @p entry (loading the script that holds them)."""
        kids = entry[2] if len(entry) > 2 else None
        if isinstance(kids, str):
            if kids not in self.scripts:
                self.scripts[kids] = read_var(self.html_dir / f"{kids}.js", kids)
            return self.scripts[kids][1]
        return kids or []

    def load(self, entry):
        for kid in self.children(entry):
            self.load(kid)

    def entries(self, entry=None, path=()):
        """Every entry below @p entry (the root), with its path: (path, entry) pairs."""
        entry = self.root if entry is None else entry
        for index, kid in enumerate(self.children(entry)):
            yield path + (index,), kid
            yield from self.entries(kid, path + (index,))

    def index_files(self):
        return sorted(self.html_dir.glob("navtreeindex*.js"),
                      key=lambda p: int(re.sub(r"\D", "", p.stem) or 0))


def one_entry_per_page(html_dir, pages):
    """Drops the entries of headings (url PAGE.html#anchor) of the pages named in @p pages (their
    file names, e.g. "index.html") from the tree, with the entries below them, and maps their urls
    in the index to their page's entry. Returns the number of entries dropped."""
    tree = Tree(html_dir)
    new_path = {(): ()}  # path of an entry before -> after (a dropped one: its page's)
    dropped = 0

    def prune(entry, old, new):
        nonlocal dropped
        kept = []
        for index, kid in enumerate(tree.children(entry)):
            url = kid[1] or ""
            if "#" in url and url.split("#")[0] in pages:
                mark_dropped(kid, old + (index,), new)
                continue
            new_path[old + (index,)] = new + (len(kept),)
            prune(kid, old + (index,), new + (len(kept),))
            kept.append(kid)
        kids = entry[2] if len(entry) > 2 else None
        if isinstance(kids, str):
            tree.scripts[kids][1][:] = kept
            if not kept:
                entry[2] = None
        elif isinstance(kids, list):
            entry[2] = kept or None

    def mark_dropped(entry, old, page_path):
        nonlocal dropped
        dropped += 1
        new_path[old] = page_path
        for index, kid in enumerate(tree.children(entry)):
            mark_dropped(kid, old + (index,), page_path)

    prune(tree.root, (), ())
    if not dropped:
        return 0
    write_var(html_dir / "navtreedata.js", *tree.data)
    for name, (before, entries, after) in tree.scripts.items():
        write_var(html_dir / f"{name}.js", before, entries, after)
    for path in tree.index_files():
        before, index, after = read_var(path, path.stem.upper())
        for url, old in index.items():
            old = tuple(old)
            # An index path the tree does not hold keeps its tail after the deepest known entry.
            depth = max(d for d in range(len(old) + 1) if old[:d] in new_path)
            index[url] = list(new_path[old[:depth]] + old[depth:])
        write_var(path, before, index, after)
    return dropped
