"""The generated blocks of the README: text between `<!-- NAME:begin -->` and `<!-- NAME:end -->`.

The README holds two: `ladder` (the results table, scripts/update_results_table.py) and `supports`
(what each chapter takes, scripts/update_supports_table.py). Everything outside the markers is left
as it is. Standard library only.
"""


class BlockError(Exception):
    """Markers missing, repeated or out of order; the message says which and where."""


def markers(name):
    """The begin and end lines of block @p name."""
    return f"<!-- {name}:begin -->", f"<!-- {name}:end -->"


def _find(text, name, readme_name):
    begin_marker, end_marker = markers(name)
    begin = text.find(begin_marker)
    end = text.find(end_marker)
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
    """Writes @p block into the file @p path between its @p name markers.

    Returns True when the file already held @p block. With @p check_only the file is never
    written. Raises BlockError (markers) or OSError (reading or writing).
    """
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    readme_name = path.rsplit("/", 1)[-1]
    updated = replace_block(text, name, block, readme_name)
    if updated == text:
        return True
    if not check_only:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(updated)
    return False
