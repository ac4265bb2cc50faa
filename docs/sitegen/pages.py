"""The pages of the site, each a Markdown file for Doxygen that remembers which source line each of
its lines came from (the line map, with which run_doxygen.py reports Doxygen's warnings against
the files people edit), and the differences of files that the diff pages show as HTML tables."""

import difflib
import html
import re
from pathlib import Path

from .chapters import HOME_NAV, SiteError, nav_box, read_lines
from .markdown import title_index


class Page:
    """The lines of one generated page, each remembering its source file and line (if any)."""

    def __init__(self, name):
        self.name, self.lines, self.origins = name, [], []

    def add(self, *texts):
        """Adds lines written here (a text may hold several)."""
        self.add_from(None, [(text, None) for text in texts])

    def add_from(self, rel, numbered):
        """Adds lines of the repository file @p rel: (text, source line) pairs."""
        for text, number in numbered:
            for part in text.split("\n"):
                self.lines.append(part)
                self.origins.append([rel, number] if rel else None)

    def write(self, directory, linemap):
        (directory / self.name).write_text("\n".join(self.lines) + "\n", encoding="utf-8")
        linemap[self.name] = self.origins


def document_page(site, rel, label, head, foot, expected, toc=True):
    """The page @p label made of the Markdown file @p rel: its title (a file without one is an
    error saying what was @p expected), the lines @p head, a table of contents unless @p toc is
    False or the file places one, the rest of the file and the lines @p foot."""
    lines = site.documents[rel]
    index = title_index(lines)
    if index is None:
        raise SiteError(f"{rel}:1: {expected}")
    page = Page(f"{label}.md")
    body = site.transform(rel, lines)
    page.add_from(rel, body[:index + 1])
    page.add(*head)
    if toc and not any(text.strip() == "[TOC]" for text, _ in body):
        page.add("[TOC]", "")
    page.add_from(rel, body[index + 1:])
    page.add(*foot)
    return page


def chapter_nav(site, index):
    """The previous / course map / next navigation of a chapter's page."""
    before, after = site.chapters[max(0, index - 1):index], site.chapters[index + 1:index + 2]
    return nav_box(
        [f'<span class="course-prev">@ref {c.key} "&larr; {c.title}"</span>' for c in before] +
        ['<span class="course-home">@ref index "Course map"</span>'] +
        [f'<span class="course-next">@ref {c.key} "{c.title} &rarr;"</span>' for c in after])


def chapter_pages(site, index):
    """The lesson of a chapter with its navigation, and the pages it leads to: its appendix and
    hints, what changed since the chapter before it on the site, and (full edition) the
    exercises solved."""
    chapter = site.chapters[index]
    answers = chapter.answer_key(site.root, site.edition)
    extras = [f"@subpage {label}" for _, label in chapter.companions]
    if index > 0:
        extras.append(f"@subpage {chapter.key}_changes")
    if site.edition == "full":
        extras.append(f"@subpage {chapter.key}_solution")
    if answers:
        extras.append(f"@subpage {answers[1]}")
    extras.append(f'<a href="namespace{chapter.key}.html">namespace {chapter.key}</a> '
                  "(this chapter's launchers)")
    nav = chapter_nav(site, index)
    pages = [document_page(
        site, chapter.lesson, chapter.key,
        ["", nav, '<div class="course-extras">' + " &middot; ".join(extras) + "</div>", ""],
        ["", nav], f"a lesson starts with '# Chapter {chapter.number}: title'")]
    back = chapter.back_nav()
    for rel, label in chapter.companions:
        pages.append(document_page(site, rel, label, ["", back, ""], ["", back],
                                   f"a page starts with '# Chapter {chapter.number}: title'"))
    if index > 0:
        pages.append(changes_page(site, index))
    if site.edition == "full":
        pages.append(solution_page(site, chapter))
    if answers:
        pages.append(answers_page(site, chapter, *answers))
    return pages


def answers_page(site, chapter, rel, label):
    """The chapter's answer key (full edition only): solutions/NN_slug/ANSWERS.md, under its own
    title or, where it has none, "Chapter N: answer key"."""
    back = chapter.back_nav()
    note = ("The answers to the chapter's Predict questions and what its bug hunts plant, with "
            "the reasoning and the measurements. This page is in the full edition of the "
            "documentation only.")
    if title_index(site.documents[rel]) is not None:
        return document_page(site, rel, label, ["", back, "", note, ""], ["", back], "")
    page = Page(f"{label}.md")
    page.add(f"# Chapter {chapter.number}: answer key {{#{label}}}", "", back, "", note, "",
             "[TOC]", "")
    page.add_from(rel, site.transform(rel, site.documents[rel]))
    page.add("", back)
    return page


def diff_row(kind, old_number, new_number, sign, text):
    return (f'<tr class="{kind}"><td class="num">{old_number}</td><td class="num">{new_number}'
            f'</td><td class="code">{sign}{html.escape(text.expandtabs(8))}</td></tr>')


def diff_html(old_lines, new_lines, old_name, new_name):
    """A unified diff as an HTML table: old and new line numbers, then the line, removed lines
    red, added lines green, unchanged context grey. Returns the HTML and the numbers of lines
    added and removed."""
    rows, added, removed = [], 0, 0
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for group in matcher.get_grouped_opcodes(3):
        first, last = group[0], group[-1]
        header = (f"@@ -{first[1] + 1},{last[2] - first[1]} "
                  f"+{first[3] + 1},{last[4] - first[3]} @@")
        rows.append(f'<tr class="hunk"><td class="num"></td><td class="num"></td>'
                    f'<td class="code">{html.escape(header)}</td></tr>')
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                rows += [diff_row("ctx", i + 1, j + 1, " ", old_lines[i])
                         for i, j in zip(range(i1, i2), range(j1, j2))]
                continue
            rows += [diff_row("del", i + 1, "", "-", old_lines[i]) for i in range(i1, i2)]
            rows += [diff_row("add", "", j + 1, "+", new_lines[j]) for j in range(j1, j2)]
            removed += i2 - i1
            added += j2 - j1
    if not rows:
        return '<p class="course-diff-same">The two files are identical.</p>\n', 0, 0
    head = (f'<div class="course-diff-files"><span class="del">--- {html.escape(old_name)}</span>'
            f'<br/><span class="add">+++ {html.escape(new_name)}</span></div>\n')
    return (head + '<div class="course-diff-scroll"><table class="course-diff">\n' +
            "\n".join(rows) + "\n</table></div>\n"), added, removed


def diff_page(site, chapter, suffix, title, intro, diffs):
    """A page of differences between files: @p diffs lists (heading or None, old, new, name of
    the HTML fragment that holds the diff, for `@htmlinclude`)."""
    page = Page(f"{chapter.key}_{suffix}.md")
    page.add(f"# Chapter {chapter.number}: {title} {{#{chapter.key}_{suffix}}}", "",
             chapter.back_nav(), "", intro, "")
    for heading, old_rel, new_rel, name in diffs:
        fragment, added, removed = diff_html(read_lines(site.root, old_rel),
                                             read_lines(site.root, new_rel), old_rel, new_rel)
        (site.out_dir / "include" / name).write_text(fragment, encoding="utf-8")
        page.add(*([heading, ""] if heading else []),
                 f"`{old_rel}` &rarr; `{new_rel}`: {added} lines added, {removed} removed.", "",
                 f"@htmlinclude {name}", "")
    page.add(chapter.back_nav())
    return page


def changes_page(site, index):
    chapter, previous = site.chapters[index], site.chapters[index - 1]
    which = "solution" if site.edition == "full" else "student's"
    diffs = []
    for label, old_rel, new_rel, name in (
            ("The kernels", previous.kernels(site.edition), chapter.kernels(site.edition),
             "kernels"),
            ("The launchers", previous.launch, chapter.launch, "launch"),
            ("The driver", previous.driver, chapter.driver, "driver")):
        if (site.root / old_rel).exists() and (site.root / new_rel).exists():
            new = Path(new_rel)
            diffs.append((f"## {label}: {new.name} {{#{chapter.key}_changes_{new.stem}}}",
                          old_rel, new_rel, f"{chapter.key}_changes_{name}.html"))
    return diff_page(
        site, chapter, "changes", f"what changed since chapter {previous.number}",
        f"The {which} kernels of chapter {chapter.number} against those of chapter "
        f"{previous.number}, compared line by line when the documentation is built (so this "
        "page always shows the files as they are). Removed lines are red and marked `-`, added "
        "lines green and marked `+`; the numbers are the line numbers in the old and new "
        "file. Everything a chapter's executable needs besides its kernels lives in "
        "`common/`, so this difference is the lesson.", diffs)


def solution_page(site, chapter):
    old, new = chapter.student_kernels, chapter.solution_kernels
    if not ((site.root / old).exists() and (site.root / new).exists()):
        raise SiteError(f"{chapter.lesson}: the chapter's kernels ({old}, {new}) are missing")
    return diff_page(
        site, chapter, "solution", "the exercises solved",
        "The student's kernels against the solution, compared when the documentation is built. "
        "The two files differ only inside the `// EXERCISE N.M begin` ... `end` regions (a "
        "CPU test keeps them identical elsewhere), so every change below is one exercise's "
        "answer. This page is in the full edition of the documentation only.",
        [(None, old, new, f"{chapter.key}_solution_kernels.html")])


def first_brief(root, rel):
    """The `@brief` of a header (its paragraph, which may span several lines), or ""."""
    parts = []
    for text in read_lines(root, rel):
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


def api_page(site):
    page = Page("api.md")
    source = "solutions/" if site.edition == "full" else "chapters/"
    page.add(
        "# API reference {#api}", "", HOME_NAV, "", "## The course library: common/ {#api-common}",
        "", 'Everything a chapter needs besides its kernels, in <a href="namespacecourse.html">'
        "namespace course</a>: checking against the CPU references, timing, the command line, "
        "reporting, launch helpers. The headers:", "",
        *(f'- @ref {site.documented[rel]} "{Path(rel).name}": {first_brief(site.root, rel)}'
          for rel in sorted(site.documented) if rel.startswith("common/")),
        "", "## Each chapter's launchers {#api-chapters}", "",
        "Every chapter exposes the same launchers (`matmul`, `minplus`, `conv2d`, `conv1d` "
        "where it carries the problem) in its own namespace, so the drivers, the tests and "
        "the ladder treat all chapters alike. A chapter's host side (launchers, validation, "
        "its exercise table) is in its `launch.cuh`, the same file in both editions; its "
        f"kernels are in `kernels.cuh`, which this edition documents from `{source}`.", "")
    for chapter in site.chapters:
        files = [rel for rel in (chapter.launch, chapter.kernels(site.edition))
                 if (site.root / rel).exists()]
        if files:
            described = "; ".join(f'@ref {rel} "{Path(rel).name}": {first_brief(site.root, rel)}'
                                  for rel in files)
            page.add(f'- <a href="namespace{chapter.key}.html">namespace {chapter.key}</a>: '
                     f"{described}")
    return page


def docs_pages(site):
    """The hand-written pages of docs/pages, in name order."""
    return [document_page(site, path.relative_to(site.root).as_posix(), path.stem,
                          ["", HOME_NAV], [], "a page starts with '# Title'", toc=False)
            for path in sorted((site.root / "docs/pages").glob("*.md"))]


def main_page(site, pages):
    """The README as the main page, with the list of the site's pages at its end."""
    rel = "README.md"
    page = Page("index.md")
    page.add_from(rel, site.transform(rel, site.documents[rel]))
    page.add("", "## Reading this site {#site-contents}", "")
    if site.chapters:
        page.add("The lessons, in order:", "", *(f"- @subpage {c.key}" for c in site.chapters), "")
    page.add("Pages for the whole course:", "", *(f"- @subpage {name}" for name in pages))
    return page
