"""Markdown read line by line: headings, code fences and spans, links, and what Doxygen 1.9
misreads."""

import re

HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*(?:\{#([A-Za-z0-9_\-]+)\})?[ \t]*#*[ \t]*$")
FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
INLINE_LINK = re.compile(
    r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
IMAGE_THEN_PUNCTUATION = re.compile(r"(!\[[^\]]*\]\([^)\s]+\))\s*[.,;:]+\s*$")


def in_code(text):
    """A test of whether a position of the line @p text lies inside one of its code spans."""
    spans = [m.span() for m in CODE_SPAN.finditer(text)]
    return lambda position: any(start <= position < end for start, end in spans)


def strip_markdown(text):
    """Heading text without inline Markdown: what a reader sees."""
    text = INLINE_LINK.sub(lambda m: m.group(2), text)
    return re.sub(r"[`*]", "", text).strip()


def github_slug(text):
    """The anchor GitHub gives a heading, so that `#anchor` links written for GitHub work."""
    text = re.sub(r"[^\w\- ]", "", strip_markdown(text).lower())
    return text.replace(" ", "-")


def track_fence(fence, text):
    """Follows fenced code blocks: returns the open fence (or None) and whether @p text is code."""
    match = FENCE.match(text)
    if fence is None:
        return (match.group(1), True) if match else (None, False)
    if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
            and not text.strip()[len(match.group(1)):].strip():
        return None, True
    return fence, True


def title_index(lines):
    """The index of the page title: the first line if it is a level-1 heading (blank lines before
    it allowed); None when there is none."""
    for index, text in enumerate(lines):
        if text.strip():
            heading = HEADING.match(text)
            return index if heading and len(heading.group(1)) == 1 else None
    return None


def join_wrapped_link(text, following, limit=8):
    """@p text joined with as many of the @p following lines (at most @p limit) as a link or an
    image that starts on it and wraps needs; returns the text and the number of lines joined.
    Nothing is joined unless a link then spans the break."""
    if text.count("[") <= text.count("]"):
        return text, 0
    candidate = text
    for count, nxt in enumerate(following[:limit], start=1):
        if not nxt.strip() or FENCE.match(nxt) or HEADING.match(nxt) or \
                re.match(r"^\s*(?:[-*+]|\d+[.)]|\|)\s", nxt):
            break
        candidate = f"{candidate} {nxt.strip()}"
        if any(m.start() < len(text) < m.end() for m in INLINE_LINK.finditer(candidate)):
            return candidate, count
    return text, 0


def doxygen_markdown(text):
    """One line of Markdown with what Doxygen 1.9 misreads written the way it reads it:
    - a code span that ends in a quote (`mode='constant'`) is read as a typographic quote
      opening at the backtick; as ``mode='constant'`` (same on GitHub) it is code;
    - bold that starts or ends with a code span (**`mma.sync` is slower**) stays as literal
      asterisks; <b>...</b> is bold."""
    text = re.sub(r"(?<!`)`([^`]*')`(?!`)", r"`` \1 ``", text)
    code = in_code(text)

    def bold(match):
        inner = match.group(1)
        if code(match.start()) or code(match.end() - 1) or \
                not (inner.startswith("`") or inner.endswith("`")):
            return match.group(0)
        return f"<b>{inner}</b>"

    return re.sub(r"\*\*((?:(?!\*\*).)+?)\*\*", bold, text)
