#!/usr/bin/env python3
"""Writes the Markdown pages that Doxygen turns into the course's HTML site.

From the repository's own files, at build time:
  index.md             the README as the main page (links to chapters become links to their pages)
  chNN.md              each chapter's lesson, with previous / next navigation; its figures
                       (`![caption](figures/NAME.svg)`, the SVGs committed next to their .dot
                       sources) are copied into the site
  chNN_appendix.md     the chapter's APPENDIX.md, where there is one
  chNN_hints.md        the chapter's HINTS.md, in both editions (hints are not solutions)
  chNN_changes.md      what changed since the previous chapter: a diff of the kernels and driver
  chNN_solution.md     (full edition only) the exercises solved: the student's kernels against
                       the solution's
  results.md           the ladder's results table, written from results/ladder.csv by the writer
                       that writes the README's (scripts/results_table.py), and the committed plot
  api.md               a guide to the API reference
  <name>.md            every page in docs/pages/ (tools, instructors)

Links between repository files are rewritten for the site: a link to a chapter's README.md,
APPENDIX.md or HINTS.md leads to its page, a link to a documented header (common/, a chapter's
launch.cuh and kernels.cuh) to its reference page, a link to a heading of a Markdown file to that
section, an image to a copy of it in the site; links to other repository files keep their text. A
link to a file that does not exist is an error.

The edition decides which kernels are shown: the full edition documents and diffs solutions/, the
student edition chapters/ (no solution code at all).

Besides the pages, it writes linemap.json: which generated line came from which source line, so that
run_doxygen.py can report Doxygen's warnings against the files people edit.

Only the Python standard library is used.
"""

import argparse
import difflib
import html
import json
import re
import shutil
import sys
from pathlib import Path

CHAPTER_DIR = re.compile(r"^(\d\d)_([a-z0-9_]+)$")
HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*(?:\{#([A-Za-z0-9_\-]+)\})?[ \t]*#*[ \t]*$")
FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
INLINE_LINK = re.compile(
    r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^([ ]{0,3}\[[^\]]+\]:[ \t]*)<?(\S+?)>?(\s.*)?$")
HTML_IMAGE = re.compile(r"<img\s[^>]*?src=\"([^\"]+)\"[^>]*>", re.IGNORECASE)
HTML_ALT = re.compile(r"alt=\"([^\"]*)\"", re.IGNORECASE)
# The marker with which lessons used to place a diagram of docs/diagrams; a figure is now an image.
OLD_DIAGRAM_MARKER = re.compile(r"^\s*<!--\s*diagram:\s*([A-Za-z0-9_\-]+?)(?:\.dot)?\s*-->\s*$")
IMAGE_THEN_PUNCTUATION = re.compile(r"(!\[[^\]]*\]\([^)\s]+\))\s*[.,;:]+\s*$")
IMAGE_SUFFIXES = {".png", ".svg", ".jpg", ".jpeg", ".gif"}
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.\-]*:|//)", re.IGNORECASE)
PLOT_CANDIDATES = ("results/ladder.svg", "results/ladder.png")


class SiteError(Exception):
    """A problem in a source file that would make a broken page."""


# --------------------------------------------------------------------------------------------
# Pages with a record of where each line came from
# --------------------------------------------------------------------------------------------


class Page:
    """The lines of one generated page, each remembering its source file and line (if any)."""

    def __init__(self, name):
        self.name = name
        self.lines = []
        self.origins = []

    def add(self, text="", source=None, line=None):
        for part in text.split("\n"):
            self.lines.append(part)
            self.origins.append([source, line] if source else None)

    def write(self, directory, linemap):
        (directory / self.name).write_text("\n".join(self.lines) + "\n", encoding="utf-8")
        linemap[self.name] = self.origins


# --------------------------------------------------------------------------------------------
# The repository
# --------------------------------------------------------------------------------------------


class Chapter:
    """One chapter: its number, directories, lesson and title."""

    def __init__(self, root, dirname):
        match = CHAPTER_DIR.match(dirname)
        if not match:
            raise SiteError(f"chapters/{dirname}: not a chapter directory name (NN_slug)")
        self.number = int(match.group(1))
        self.key = f"ch{match.group(1)}"
        self.dirname = dirname
        self.lesson = f"chapters/{dirname}/README.md"
        self.appendix = f"chapters/{dirname}/APPENDIX.md"
        self.hints = f"chapters/{dirname}/HINTS.md"
        self.launch = f"chapters/{dirname}/launch.cuh"
        self.student_kernels = f"chapters/{dirname}/kernels.cuh"
        self.solution_kernels = f"solutions/{dirname}/kernels.cuh"
        self.driver = f"chapters/{dirname}/main.cu"
        lesson = root / self.lesson
        self.title = f"Chapter {self.number}"
        if lesson.exists():
            for text in lesson.read_text(encoding="utf-8").splitlines():
                heading = HEADING.match(text)
                if heading and len(heading.group(1)) == 1:
                    self.title = strip_markdown(heading.group(2))
                    break

    def kernels(self, edition):
        return self.solution_kernels if edition == "full" else self.student_kernels


def chapter_companions(root, chapter):
    """The pages a chapter's lesson links to that live beside it, as (repository path, label),
    for those that exist: its appendix and its hints (both editions: hints are no solution)."""
    companions = []
    for rel, suffix in ((chapter.appendix, "appendix"), (chapter.hints, "hints")):
        if (root / rel).exists():
            companions.append((rel, f"{chapter.key}_{suffix}"))
    return companions


def strip_markdown(text):
    """Heading text without inline Markdown: what a reader sees."""
    text = INLINE_LINK.sub(lambda m: m.group(2), text)
    return re.sub(r"[`*]", "", text).strip()


def github_slug(text):
    """The anchor GitHub gives a heading, so that `#anchor` links written for GitHub keep working."""
    text = strip_markdown(text).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def label_from_slug(prefix, slug, used):
    """A Doxygen label unique across the site for a heading of page @p prefix."""
    ascii_slug = re.sub(r"[^a-z0-9_\-]", "", slug.encode("ascii", "ignore").decode()).strip("-")
    label = f"{prefix}-{ascii_slug or 'section'}"
    candidate, count = label, 1
    while candidate in used:
        candidate = f"{label}-{count}"
        count += 1
    used.add(candidate)
    return candidate


def first_brief(path):
    """The `@brief` of a header (its paragraph, which may span several lines), or ""."""
    parts = []
    for text in path.read_text(encoding="utf-8").splitlines():
        if not parts:
            match = re.match(r"\s*///\s*[@\\]brief\s+(.*)", text)
            if match:
                parts.append(match.group(1).strip())
            continue
        match = re.match(r"\s*///\s*(.*)", text)
        if not match or not match.group(1).strip() or match.group(1).lstrip()[0] in "@\\":
            break
        parts.append(match.group(1).strip())
    return " ".join(parts)


# --------------------------------------------------------------------------------------------
# Markdown documents: headings get labels, links get rewritten
# --------------------------------------------------------------------------------------------


class Site:
    """What the pages may link to, for one edition."""

    def __init__(self, root, edition, chapters, out_dir, images_dir):
        self.root = root
        self.edition = edition
        self.chapters = chapters
        self.out_dir = out_dir
        self.images_dir = images_dir
        self.used_labels = set()
        self.errors = []  # broken links, all reported at the end
        self.heading_labels = {}  # repository path of a Markdown file -> {github slug: label}
        self.page_labels = {}  # repository path of a Markdown file -> its page's label
        self.documented = {}  # repository path of a documented header -> the path Doxygen knows
        for header in sorted((root / "common/include/course").glob("*")):
            if header.suffix in (".hpp", ".cuh", ".h"):
                rel = header.relative_to(root).as_posix()
                # Doxygen knows these by their include name (STRIP_FROM_INC_PATH): course/NAME
                # is what tells common/include/course/launch.cuh from a chapter's launch.cuh.
                self.documented[rel] = header.relative_to(root / "common/include").as_posix()
        for chapter in chapters:
            documented = chapter.kernels(edition)
            if (root / documented).exists():
                # Both kernels.cuh of a chapter lead to the one documented in this edition; in the
                # student edition a link to the solution keeps its text only.
                self.documented[documented] = documented
                if edition == "full":
                    self.documented[chapter.student_kernels] = documented
            if (root / chapter.launch).exists():
                # One launch file per chapter, the same in both editions.
                self.documented[chapter.launch] = chapter.launch
            self.page_labels[chapter.lesson] = chapter.key
            for rel, label in chapter_companions(root, chapter):
                self.page_labels[rel] = label
        self.page_labels["README.md"] = "index"
        for page in sorted((root / "docs/pages").glob("*.md")):
            self.page_labels[page.relative_to(root).as_posix()] = page.stem

    # Headings -------------------------------------------------------------------------------

    def label_headings(self, rel, lines, prefix, title_label):
        """Gives every heading of @p lines a label. The first level-1 heading is the page title:
        it gets @p title_label (None: no label, as for the main page). Returns the new lines."""
        slugs = {}
        labels = {}
        seen_title = False
        fence = None
        result = []
        for text in lines:
            fence, in_code = track_fence(fence, text)
            heading = None if in_code else HEADING.match(text)
            if not heading:
                result.append(text)
                continue
            hashes, title, given = heading.groups()
            slug = github_slug(title)
            # Doxygen 1.9.4 shows a code span of a heading as raw <tt> tags in the table of
            # contents: headings lose their backticks.
            title = re.sub(r"(`+)(.+?)\1", r"\2", title)
            if slug in slugs:
                slugs[slug] += 1
                slug = f"{slug}-{slugs[slug]}"
            else:
                slugs[slug] = 0
            if not seen_title and len(hashes) == 1:
                seen_title = True
                if title_label is None:
                    result.append(f"# {title}")
                    continue
                label = title_label
                self.used_labels.add(label)
            elif given:
                label = given
                self.used_labels.add(label)
            else:
                label = label_from_slug(prefix, slug, self.used_labels)
            labels[slug] = label
            labels.setdefault(label, label)  # `#label` works as well as GitHub's `#slug`
            result.append(f"{hashes} {title} {{#{label}}}")
        self.heading_labels[rel] = labels
        return result

    # Links ----------------------------------------------------------------------------------

    def resolve(self, rel, target, image, where):
        """What a link to @p target in the repository file @p rel becomes: ("ref", label),
        ("image", file name), ("url", url) or ("text", None)."""
        if not target or EXTERNAL.match(target) or target.startswith("@ref"):
            return ("url", target)
        path_part, _, fragment = target.partition("#")
        if not path_part:
            resolved = rel
        else:
            base = (self.root / rel).parent
            try:
                resolved = (base / path_part).resolve().relative_to(self.root.resolve()).as_posix()
            except ValueError:
                raise SiteError(f"{where}: link to '{target}' leaves the repository")
            if self.unwritten_chapter(resolved):
                # A chapter that is not on the site yet (no lesson): the link keeps its text.
                return ("text", None)
            if not (self.root / resolved).exists():
                if resolved.startswith("results/") and \
                        Path(resolved).suffix.lower() in IMAGE_SUFFIXES:
                    # The ladder's plot is committed after its table: say so rather than fail.
                    return ("missing-image", resolved)
                raise SiteError(f"{where}: link to '{target}': {resolved} does not exist")
        if (self.root / resolved).is_dir():
            for chapter in self.chapters:
                if resolved == f"chapters/{chapter.dirname}":
                    resolved = chapter.lesson
        suffix = Path(resolved).suffix.lower()
        if image or (suffix in IMAGE_SUFFIXES and not fragment):
            if suffix not in IMAGE_SUFFIXES:
                raise SiteError(f"{where}: image '{target}' is not an image file")
            self.images_dir.mkdir(parents=True, exist_ok=True)
            name = resolved.replace("/", "_")
            shutil.copyfile(self.root / resolved, self.images_dir / name)
            return ("image", name) if image else ("image-link", name)
        if resolved in self.page_labels:
            if not fragment:
                return ("ref", self.page_labels[resolved])
            labels = self.heading_labels.get(resolved)
            if labels is None:
                labels = self.scan_headings(resolved)
            if fragment not in labels:
                raise SiteError(f"{where}: link to '{target}': no heading with that anchor")
            return ("ref", labels[fragment])
        if resolved in self.documented:
            return ("ref", self.documented[resolved])
        return ("text", None)

    def unwritten_chapter(self, resolved):
        """Whether @p resolved lies in a chapter (chapters/ or solutions/) that is not on the site."""
        parts = resolved.split("/")
        if len(parts) < 2 or parts[0] not in ("chapters", "solutions") \
                or not CHAPTER_DIR.match(parts[1]):
            return False
        return all(chapter.dirname != parts[1] for chapter in self.chapters)

    def scan_headings(self, rel):
        """The labels another Markdown page will give its headings (pages are labelled in a fixed
        order, so a page not yet processed is labelled now, with a throw-away set of labels)."""
        lines = (self.root / rel).read_text(encoding="utf-8").splitlines()
        saved = set(self.used_labels)
        prefix = self.page_labels[rel]
        self.label_headings(rel, lines, "readme" if prefix == "index" else prefix,
                            None if prefix == "index" else prefix)
        self.used_labels = saved
        return self.heading_labels[rel]

    def rewrite_links(self, rel, text, where):
        """Rewrites the links of one line of Markdown (outside code spans)."""
        spans = [m.span() for m in CODE_SPAN.finditer(text)]

        def in_code(position):
            return any(start <= position < end for start, end in spans)

        def inline(match):
            if in_code(match.start()):
                return match.group(0)
            bang, label, target = match.group(1), match.group(2), match.group(3)
            kind, value = self.resolve(rel, target, bool(bang), where)
            if kind == "url":
                return match.group(0)
            if kind == "image":
                return f"![{label}]({value})"
            if kind == "image-link":
                return f"[{label}]({value})"
            if kind == "ref":
                return f"[{label}](@ref {value})"
            if kind == "missing-image":
                return f"No plot is committed yet: `{value}`."
            return label

        text = INLINE_LINK.sub(inline, text)
        # Doxygen turns an image into a block of its own: punctuation left after it on the line
        # (a sentence's full stop) would stand alone, and a lone "." ends a list in Doxygen.
        text = IMAGE_THEN_PUNCTUATION.sub(r"\1", text)

        definition = REFERENCE_DEFINITION.match(text)
        if definition and not in_code(0):
            kind, value = self.resolve(rel, definition.group(2), False, where)
            if kind == "ref":
                text = f"{definition.group(1)}@ref {value}"
            elif kind in ("image", "image-link"):
                text = f"{definition.group(1)}{value}"
            elif kind in ("text", "missing-image"):
                text = ""

        def raw_image(match):
            if in_code(match.start()):
                return match.group(0)
            kind, value = self.resolve(rel, match.group(1), True, where)
            if kind == "missing-image":
                return f"No plot is committed yet: `{value}`."
            if kind != "image":
                return match.group(0)
            alt = HTML_ALT.search(match.group(0))
            return f"![{alt.group(1) if alt else ''}]({value})"

        return HTML_IMAGE.sub(raw_image, text)

    def transform(self, rel, lines, first_line=1):
        """Rewrites the links of Markdown @p lines (already labelled) read from @p rel. A link or
        image whose text wraps over several lines is joined into one line (Doxygen reads a link
        on one line only), so the result may be shorter: its `origins` attribute gives the
        source line of each line."""
        result = Transformed()
        fence = None
        offset = 0
        while offset < len(lines):
            text = lines[offset]
            number = first_line + offset
            fence, in_code = track_fence(fence, text)
            offset += 1
            if not in_code:
                text, joined = join_wrapped_link(text, lines[offset:])
                offset += joined
                try:
                    text = doxygen_markdown(self.rewrite_links(rel, text, f"{rel}:{number}"))
                except SiteError as error:
                    # Reported with every other broken link once all pages are written.
                    if str(error) not in self.errors:
                        self.errors.append(str(error))
            result.append(text)
            result.origins.append(number)
        return result


def doxygen_markdown(text):
    """One line of Markdown with what Doxygen 1.9 misreads written the way it reads it:
    - a code span that ends in a quote (`mode='constant'`) is read as a typographic quote
      opening at the backtick; as ``mode='constant'`` (same on GitHub) it is code;
    - bold that starts or ends with a code span (**`mma.sync` is slower**) stays as literal
      asterisks; <b>...</b> is bold."""
    text = re.sub(r"(?<!`)`([^`]*')`(?!`)", r"`` \1 ``", text)
    spans = [m.span() for m in CODE_SPAN.finditer(text)]

    def in_code(position):
        return any(start <= position < end for start, end in spans)

    def bold(match):
        inner = match.group(1)
        if in_code(match.start()) or in_code(match.end() - 1) or \
                not (inner.startswith("`") or inner.endswith("`")):
            return match.group(0)
        return f"<b>{inner}</b>"

    return re.sub(r"\*\*((?:(?!\*\*).)+?)\*\*", bold, text)


class Transformed(list):
    """Lines of Markdown, with the source line of each in `origins`."""

    def __init__(self):
        super().__init__()
        self.origins = []


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


def track_fence(fence, text):
    """Follows fenced code blocks: returns the open fence (or None) and whether @p text is code."""
    match = FENCE.match(text)
    if fence is None:
        if match:
            return match.group(1), True
        return None, False
    if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
            and not text.strip()[len(match.group(1)):].strip():
        return None, True
    return fence, True


# --------------------------------------------------------------------------------------------
# Navigation and diffs
# --------------------------------------------------------------------------------------------


def nav_box(items):
    """One line of navigation links (Doxygen commands inside a styled block)."""
    return '<div class="course-nav">' + " ".join(items) + "</div>"


def chapter_nav(site, index):
    chapters = site.chapters
    items = []
    if index > 0:
        items.append(f'<span class="course-prev">@ref {chapters[index - 1].key} '
                     f'"&larr; {chapters[index - 1].title}"</span>')
    items.append('<span class="course-home">@ref index "Course map"</span>')
    if index + 1 < len(chapters):
        items.append(f'<span class="course-next">@ref {chapters[index + 1].key} '
                     f'"{chapters[index + 1].title} &rarr;"</span>')
    return nav_box(items)


class DiffStats:
    def __init__(self):
        self.added = 0
        self.removed = 0


def diff_html(old_text, new_text, old_name, new_name, stats):
    """A unified diff of two files as an HTML table: old and new line numbers, then the line,
    removed lines red, added lines green, unchanged context grey."""
    old_lines = old_text.splitlines()
    new_lines = new_text.splitlines()
    rows = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for group in matcher.get_grouped_opcodes(3):
        first, last = group[0], group[-1]
        header = (f"@@ -{first[1] + 1},{last[2] - first[1]} "
                  f"+{first[3] + 1},{last[4] - first[3]} @@")
        rows.append(f'<tr class="hunk"><td class="num"></td><td class="num"></td>'
                    f'<td class="code">{html.escape(header)}</td></tr>')
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for offset in range(i2 - i1):
                    rows.append(diff_row("ctx", i1 + offset + 1, j1 + offset + 1, " ",
                                         old_lines[i1 + offset]))
                continue
            for i in range(i1, i2):
                stats.removed += 1
                rows.append(diff_row("del", i + 1, "", "-", old_lines[i]))
            for j in range(j1, j2):
                stats.added += 1
                rows.append(diff_row("add", "", j + 1, "+", new_lines[j]))
    if not rows:
        return '<p class="course-diff-same">The two files are identical.</p>\n'
    head = (f'<div class="course-diff-files"><span class="del">--- {html.escape(old_name)}</span>'
            f'<br/><span class="add">+++ {html.escape(new_name)}</span></div>\n')
    return (head + '<div class="course-diff-scroll"><table class="course-diff">\n' +
            "\n".join(rows) + "\n</table></div>\n")


def diff_row(kind, old_number, new_number, sign, text):
    return (f'<tr class="{kind}"><td class="num">{old_number}</td><td class="num">{new_number}'
            f'</td><td class="code">{sign}{html.escape(text.expandtabs(8))}</td></tr>')


def write_diff(site, old_rel, new_rel, name):
    """Writes the diff of two repository files to an HTML fragment for `@htmlinclude`; returns
    the Doxygen line that includes it and the line counts."""
    stats = DiffStats()
    old_text = (site.root / old_rel).read_text(encoding="utf-8")
    new_text = (site.root / new_rel).read_text(encoding="utf-8")
    fragment = diff_html(old_text, new_text, old_rel, new_rel, stats)
    (site.out_dir / "include").mkdir(parents=True, exist_ok=True)
    (site.out_dir / "include" / name).write_text(fragment, encoding="utf-8")
    return f"@htmlinclude {name}", stats


# --------------------------------------------------------------------------------------------
# The pages
# --------------------------------------------------------------------------------------------


def add_document(page, site, rel, lines, first_line=1):
    """Adds transformed Markdown lines of @p rel to @p page, keeping their origin."""
    transformed = site.transform(rel, lines, first_line)
    for text, number in zip(transformed, transformed.origins):
        page.add(text, rel, number)


def split_title(lines):
    """The index and text of the page title: the first line, if it is a level-1 heading (blank
    lines before it allowed); (None, None) when there is none."""
    fence = None
    for index, text in enumerate(lines):
        fence, in_code = track_fence(fence, text)
        if in_code:
            break
        heading = HEADING.match(text)
        if heading and len(heading.group(1)) == 1:
            return index, text
        if text.strip():
            break
    return None, None


def main_page(site, pages):
    rel = "README.md"
    page = Page("index.md")
    readme = site.root / rel
    if readme.exists():
        lines = readme.read_text(encoding="utf-8").splitlines()
        lines = site.label_headings(rel, lines, "readme", None)
        add_document(page, site, rel, lines)
    else:
        page.add("# Shared memory, step by step")
        page.add("")
        page.add("A CUDA C++ course, chapter by chapter.")
    page.add("")
    page.add("## Reading this site {#site-contents}")
    page.add("")
    if site.chapters:
        page.add("The lessons, in order:")
        page.add("")
        for chapter in site.chapters:
            page.add(f"- @subpage {chapter.key}")
        page.add("")
    page.add("Pages for the whole course:")
    page.add("")
    for name in pages:
        page.add(f"- @subpage {name}")
    return page


def chapter_page(site, index):
    chapter = site.chapters[index]
    rel = chapter.lesson
    lines = (site.root / rel).read_text(encoding="utf-8").splitlines()
    lines = site.label_headings(rel, lines, chapter.key, chapter.key)
    title_index, _ = split_title(lines)
    if title_index is None:
        raise SiteError(f"{rel}:1: a lesson starts with '# Chapter {chapter.number}: title "
                        f"{{#{chapter.key}}}'")
    lines = site.transform(rel, lines)
    origins = lines.origins

    body = []  # (text, source line)
    for text, offset in zip(lines[title_index + 1:], origins[title_index + 1:]):
        marker = OLD_DIAGRAM_MARKER.match(text)
        if marker:
            site.errors.append(f"{rel}:{offset}: '<!-- diagram: {marker.group(1)} -->' shows "
                               f"nothing: show the figure as ![caption](figures/NAME.svg), its "
                               f"source figures/NAME.dot beside it (scripts/render_figures.py)")
            continue
        body.append((text, offset))

    page = Page(f"{chapter.key}.md")
    for text in lines[:title_index + 1]:
        page.add(text, rel, 1)
    page.add("")
    page.add(chapter_nav(site, index))
    extras = [f"@subpage {label}" for _, label in chapter_companions(site.root, chapter)]
    if chapter.number > 1:
        extras.append(f"@subpage {chapter.key}_changes")
    if site.edition == "full":
        extras.append(f"@subpage {chapter.key}_solution")
    extras.append(f'<a href="namespace{chapter.key}.html">namespace {chapter.key}</a> '
                  "(this chapter's launchers)")
    page.add('<div class="course-extras">' + " &middot; ".join(extras) + "</div>")
    page.add("")
    if not any(text.strip() == "[TOC]" for text, _ in body):
        page.add("[TOC]")
        page.add("")
    for text, source_line in body:
        page.add(text, rel if source_line else None, source_line)
    page.add("")
    page.add(chapter_nav(site, index))
    return page


def companion_page(site, index, rel, label):
    """A page of its own for a file beside a chapter's lesson (APPENDIX.md, HINTS.md), linked from
    the chapter's page and leading back to it."""
    chapter = site.chapters[index]
    lines = (site.root / rel).read_text(encoding="utf-8").splitlines()
    lines = site.label_headings(rel, lines, label, label)
    title_index, _ = split_title(lines)
    page = Page(f"{label}.md")
    back = nav_box([f'@ref {chapter.key} "&larr; Back to {chapter.title}"',
                    '@ref index "Course map"'])
    if title_index is None:
        what = "hints" if label.endswith("_hints") else "appendix"
        page.add(f"# Chapter {chapter.number}: {what} {{#{label}}}")
        title_index = -1
    transformed = site.transform(rel, lines)
    numbered = list(zip(transformed, transformed.origins))
    for text, number in numbered[:title_index + 1]:
        page.add(text, rel, number)
    page.add("")
    page.add(back)
    page.add("")
    if not any(text.strip() == "[TOC]" for text in transformed):
        page.add("[TOC]")
        page.add("")
    for text, number in numbered[title_index + 1:]:
        page.add(text, rel, number)
    page.add("")
    page.add(back)
    return page


def previous_kernels(site, chapter):
    """The kernels of the closest earlier chapter in the repository, for this edition."""
    for number in range(chapter.number - 1, 0, -1):
        for directory in sorted((site.root / "chapters").glob(f"{number:02d}_*")):
            candidate = Chapter(site.root, directory.name)
            if (site.root / candidate.kernels(site.edition)).exists():
                return candidate
    return None


def changes_page(site, index):
    chapter = site.chapters[index]
    page = Page(f"{chapter.key}_changes.md")
    previous = previous_kernels(site, chapter)
    title = (f"What changed since chapter {previous.number}" if previous
             else "What changed since the previous chapter")
    page.add(f"# Chapter {chapter.number}: {title.lower()[0] + title[1:]} {{#{chapter.key}_changes}}")
    page.add("")
    page.add(nav_box([f'@ref {chapter.key} "&larr; Back to {chapter.title}"',
                      '@ref index "Course map"']))
    page.add("")
    if previous is None:
        page.add("The previous chapter's kernels are not in the repository, so there is nothing to "
                 "compare with.")
        return page
    which = "solution" if site.edition == "full" else "student's"
    page.add(f"The {which} kernels of chapter {chapter.number} against those of chapter "
             f"{previous.number}, compared line by line when the documentation is built (so this "
             "page always shows the files as they are). Removed lines are red and marked `-`, added "
             "lines green and marked `+`; the numbers are the line numbers in the old and new "
             "file. Everything a chapter's executable needs besides its kernels lives in "
             "`common/`, so this difference is the lesson.")
    page.add("")
    for label, old_rel, new_rel, name in (
            ("The kernels", previous.kernels(site.edition), chapter.kernels(site.edition),
             f"{chapter.key}_changes_kernels.html"),
            ("The launchers", previous.launch, chapter.launch,
             f"{chapter.key}_changes_launch.html"),
            ("The driver", previous.driver, chapter.driver, f"{chapter.key}_changes_driver.html")):
        if not ((site.root / old_rel).exists() and (site.root / new_rel).exists()):
            continue
        include, stats = write_diff(site, old_rel, new_rel, name)
        page.add(f"## {label}: {Path(new_rel).name} {{#{chapter.key}_changes_{Path(new_rel).stem}}}")
        page.add("")
        page.add(f"`{old_rel}` &rarr; `{new_rel}`: {stats.added} lines added, "
                 f"{stats.removed} removed.")
        page.add("")
        page.add(include)
        page.add("")
    page.add(nav_box([f'@ref {chapter.key} "&larr; Back to {chapter.title}"',
                      '@ref index "Course map"']))
    return page


def solution_page(site, index):
    chapter = site.chapters[index]
    page = Page(f"{chapter.key}_solution.md")
    page.add(f"# Chapter {chapter.number}: the exercises solved {{#{chapter.key}_solution}}")
    page.add("")
    page.add(nav_box([f'@ref {chapter.key} "&larr; Back to {chapter.title}"',
                      '@ref index "Course map"']))
    page.add("")
    page.add("The student's kernels against the solution, compared when the documentation is built. "
             "The two files differ only inside the `// EXERCISE N.M begin` ... `end` regions (a "
             "CPU test keeps them identical elsewhere), so every change below is one exercise's "
             "answer. This page is in the full edition of the documentation only.")
    page.add("")
    if (site.root / chapter.student_kernels).exists() and \
            (site.root / chapter.solution_kernels).exists():
        include, stats = write_diff(site, chapter.student_kernels, chapter.solution_kernels,
                                    f"{chapter.key}_solution_kernels.html")
        page.add(f"`{chapter.student_kernels}` &rarr; `{chapter.solution_kernels}`: "
                 f"{stats.added} lines added, {stats.removed} removed.")
        page.add("")
        page.add(include)
    else:
        page.add("This chapter's kernels are not in the repository yet.")
    page.add("")
    page.add(nav_box([f'@ref {chapter.key} "&larr; Back to {chapter.title}"',
                      '@ref index "Course map"']))
    return page


def load_results_table(root):
    """scripts/results_table.py of the repository at @p root: the one results-table writer."""
    sys.dont_write_bytecode = True  # nothing written into the source tree
    scripts = str(root / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    import results_table  # pylint: disable=import-outside-toplevel
    return results_table


def results_page(site):
    page = Page("results.md")
    page.add("# Results {#results}")
    page.add("")
    page.add(nav_box(['@ref index "&larr; Course map"']))
    page.add("")
    page.add("The performance ladder (`scripts/ladder.sh`) runs every chapter's solution and cuBLAS "
             "side by side on one GPU; `scripts/ladder.sh --update-readme` records a run in "
             "`results/ladder.csv` with its plot and the README's results table. This page shows "
             "the table written from that CSV by the same writer as the README's, with the GPU "
             "and the date it was measured on, and the plot committed with it.")
    page.add("")
    page.add("## Table {#results-table}")
    page.add("")
    rel = "results/ladder.csv"
    if (site.root / rel).exists():
        writer = load_results_table(site.root)
        goals_rel = "results/ladder_goals.csv"
        try:
            rows = writer.read_rows(site.root / rel)
            goals = (writer.read_goals(site.root / goals_rel)
                     if (site.root / goals_rel).exists() else None)
        except writer.TableError as error:
            raise SiteError(str(error)) from error
        lines = writer.render_table(rows, goals).split("\n")
        for text in site.transform(rel, lines):
            page.add(text)
    else:
        page.add("No results are recorded yet: the table appears when the ladder has run on a GPU "
                 "and its results are committed.")
    page.add("")
    page.add("## Plot {#results-plot}")
    page.add("")
    plot = next((p for p in PLOT_CANDIDATES if (site.root / p).exists()), None)
    if plot:
        name = plot.replace("/", "_")
        shutil.copyfile(site.root / plot, site.images_dir / name)
        page.add(f"@image html {name} \"The ladder's results ({plot})\"")
    else:
        page.add("No plot is committed yet: `results/ladder.svg` (or `.png`) appears when the "
                 "ladder has run and its results are committed.")
    csvs = [p for p in ("results/ladder.csv", "results/ladder_goals.csv")
            if (site.root / p).exists()]
    if csvs:
        page.add("")
        page.add("The measurements behind them, one line per run: " +
                 ", ".join(f"`{p}`" for p in csvs) + " in the repository.")
    profile_section(site, page)
    return page


def profile_section(site, page):
    """The recorded profile (results/profile.csv, scripts/profile.sh --all --update-readme): the
    table the README shows, written by the same writer, and the rooflines committed with it."""
    page.add("")
    page.add("## What the profiler says {#results-profile}")
    page.add("")
    rel = "results/profile.csv"
    if not (site.root / rel).exists():
        page.add("No profile is recorded yet: `scripts/profile.sh --all --update-readme` records "
                 "one on a GPU.")
        return
    writer = load_profile_writer(site.root)
    rows = writer.read_csv(str(site.root / rel))
    page.add("`scripts/profile.sh` runs each chapter's kernels under Nsight Compute with one "
             "fixed set of metrics (the tools page says what each means); "
             "`scripts/profile.sh --all --update-readme` records every chapter's solution in "
             f"`{rel}` with a roofline per problem.")
    page.add("")
    block = writer.profile_table.render(rows, [], str(site.root / "README.md"))
    for text in site.transform(rel, block.strip("\n").split("\n")):
        page.add(text)
    for problem in dict.fromkeys(row["problem"] for row in rows):
        image = f"results/roofline_{problem}.svg"
        if (site.root / image).exists():
            name = image.replace("/", "_")
            shutil.copyfile(site.root / image, site.images_dir / name)
            page.add("")
            page.add(f"@image html {name} \"Roofline, {problem} ({image})\"")


def load_profile_writer(root):
    """scripts/profile_kernels.py of the repository at @p root: the one profile-table writer."""
    sys.dont_write_bytecode = True  # nothing written into the source tree
    scripts = str(root / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    import profile_kernels  # pylint: disable=import-outside-toplevel
    return profile_kernels


def api_page(site):
    page = Page("api.md")
    page.add("# API reference {#api}")
    page.add("")
    page.add(nav_box(['@ref index "&larr; Course map"']))
    page.add("")
    page.add("## The course library: common/ {#api-common}")
    page.add("")
    page.add('Everything a chapter needs besides its kernels, in <a href="namespacecourse.html">'
             "namespace course</a>: checking against the CPU references, timing, the command line, "
             "reporting, launch helpers. The headers:")
    page.add("")
    for rel in sorted(site.documented):
        if rel.startswith("common/"):
            brief = first_brief(site.root / rel)
            page.add(f"- @ref {site.documented[rel]} \"{Path(rel).name}\": {brief}")
    page.add("")
    page.add("## Each chapter's launchers {#api-chapters}")
    page.add("")
    source = "solutions/" if site.edition == "full" else "chapters/"
    page.add("Every chapter exposes the same launchers (`matmul`, `minplus`, `conv2d`, `conv1d` "
             "where it carries the problem) in its own namespace, so the drivers, the tests and "
             "the ladder treat all chapters alike. A chapter's host side (launchers, validation, "
             "its exercise table) is in its `launch.cuh`, the same file in both editions; its "
             f"kernels are in `kernels.cuh`, which this edition documents from `{source}`.")
    page.add("")
    for chapter in site.chapters:
        files = [rel for rel in (chapter.launch, chapter.kernels(site.edition))
                 if (site.root / rel).exists()]
        if files:
            described = "; ".join(f"@ref {rel} \"{Path(rel).name}\": {first_brief(site.root / rel)}"
                                  for rel in files)
            page.add(f'- <a href="namespace{chapter.key}.html">namespace {chapter.key}</a>: '
                     f"{described}")
    return page


def pages_from_docs(site):
    """The hand-written pages of docs/pages, in name order."""
    pages = []
    for path in sorted((site.root / "docs/pages").glob("*.md")):
        rel = path.relative_to(site.root).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines()
        lines = site.label_headings(rel, lines, path.stem, path.stem)
        page = Page(path.name)
        index, _ = split_title(lines)
        if index is None:
            raise SiteError(f"{rel}:1: a page starts with '# Title {{#{path.stem}}}'")
        transformed = site.transform(rel, lines)
        numbered = list(zip(transformed, transformed.origins))
        for text, number in numbered[:index + 1]:
            page.add(text, rel, number)
        page.add("")
        page.add(nav_box(['@ref index "&larr; Course map"']))
        for text, number in numbered[index + 1:]:
            page.add(text, rel, number)
        pages.append(page)
    return pages


# --------------------------------------------------------------------------------------------


def generate(root, out_dir, edition, chapter_dirs):
    chapters = [Chapter(root, name) for name in chapter_dirs]
    chapters.sort(key=lambda c: c.number)
    for chapter in chapters:
        if not (root / chapter.lesson).exists():
            raise SiteError(f"{chapter.lesson}: the chapter has no lesson")
    out_dir.mkdir(parents=True, exist_ok=True)
    for generated in ("pages", "include", "images"):
        if (out_dir / generated).exists():
            shutil.rmtree(out_dir / generated)
    pages_dir = out_dir / "pages"
    pages_dir.mkdir()
    (out_dir / "include").mkdir()
    (out_dir / "images").mkdir()
    site = Site(root, edition, chapters, out_dir, out_dir / "images")

    pages = []
    # The lessons first, so that links between pages find their labels.
    for index in range(len(chapters)):
        pages.append(chapter_page(site, index))
        for rel, label in chapter_companions(root, chapters[index]):
            pages.append(companion_page(site, index, rel, label))
        if chapters[index].number > 1:
            pages.append(changes_page(site, index))
        if edition == "full":
            pages.append(solution_page(site, index))
    extra_pages = pages_from_docs(site)
    pages.extend(extra_pages)
    pages.append(results_page(site))
    pages.append(api_page(site))
    order = {"tools": 0, "instructors": 1}
    site_pages = sorted((p.name[:-3] for p in extra_pages), key=lambda n: (order.get(n, 2), n))
    site_pages += ["results", "api"]
    pages.insert(0, main_page(site, site_pages))

    linemap = {}
    for page in pages:
        page.write(pages_dir, linemap)
    (out_dir / "linemap.json").write_text(json.dumps(linemap), encoding="utf-8")
    if site.errors:
        raise SiteError("\n".join(site.errors))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", required=True, type=Path, help="the repository's root")
    parser.add_argument("--out", required=True, type=Path, help="directory to (re)create")
    parser.add_argument("--edition", choices=("full", "student"), required=True)
    parser.add_argument("--chapters", default="",
                        help="comma-separated chapter directories (NN_slug) to put on the site")
    args = parser.parse_args()
    chapter_dirs = [c for c in args.chapters.split(",") if c]
    try:
        generate(args.source.resolve(), args.out, args.edition, chapter_dirs)
    except SiteError as error:
        for line in str(error).split("\n"):
            print(f"error: {line}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
