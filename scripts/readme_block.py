"""The generated blocks of the README: text between `<!-- NAME:begin -->` and `<!-- NAME:end -->`.

The README holds them for the results table (`ladder`, scripts/update_results_table.py), what each
chapter takes (`supports`, scripts/update_supports_table.py) and the profile
(scripts/profile_kernels.py). Everything outside the markers is left as it is; an image in a block
is linked from the file the block goes into. Standard library only.
"""

import os


class BlockError(Exception):
    """Markers missing, repeated or out of order; the message says which and where."""


def markers(name):
    return f"<!-- {name}:begin -->", f"<!-- {name}:end -->"


def link(path, relative_to):
    """@p path as a link from the file @p relative_to (the README, or a file of its own that holds
    a block), with forward slashes."""
    folder = os.path.dirname(os.path.abspath(relative_to))
    return os.path.relpath(os.path.abspath(path), folder).replace(os.sep, "/")


def _find(text, name, readme_name):
    """(start, end) of the text between the markers of block @p name."""
    begin_marker, end_marker = markers(name)
    begin, end = text.find(begin_marker), text.find(end_marker)
    if begin < 0 or end < 0:
        missing = [m for m, at in ((begin_marker, begin), (end_marker, end)) if at < 0]
        raise BlockError(
            f"{readme_name}: marker(s) {' and '.join(missing)} not found; put the two lines "
            f"{begin_marker} and {end_marker} where the {name} block belongs")
    if text.count(begin_marker) > 1 or text.count(end_marker) > 1:
        raise BlockError(f"{readme_name}: the {name} markers appear more than once")
    if end < begin:
        raise BlockError(f"{readme_name}: {end_marker} comes before {begin_marker}")
    return begin + len(begin_marker), end


def extract_block(text, name, readme_name="README.md"):
    """The text between the markers of block @p name, without the newlines next to them."""
    start, end = _find(text, name, readme_name)
    return text[start:end].strip("\n")


def replace_block(text, name, block, readme_name="README.md"):
    """@p text with everything between the markers of block @p name replaced by @p block."""
    start, end = _find(text, name, readme_name)
    return text[:start] + "\n" + block.strip("\n") + "\n" + text[end:]


def update_file(path, name, block, check_only=False):
    """Writes @p block into the file @p path between its @p name markers (never with
    @p check_only); returns whether the file already held it. Raises BlockError or OSError."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    updated = replace_block(text, name, block, path.rsplit("/", 1)[-1])
    if updated == text:
        return True
    if not check_only:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(updated)
    return False
