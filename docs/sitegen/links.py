"""Links between repository files, rewritten for the site.

A link to a page's Markdown file (a lesson, its appendix or hints, docs/pages) leads to its page or
a heading there, a link to a documented header to its reference page, an image to its copy in the
site; links to other repository files keep their text; a link to a missing file is an error
reported with its line. A link to the directory results/ leads to the results page. Every
heading gets a label unique across the site, so that GitHub's `#anchor` links keep working. Only
inline links and images are read, `[text](path)` and `![caption](path)` (the pages use no other
form; Doxygen or check_site.py reports another's broken link).

The sources are read on GitHub too, where Doxygen's own syntax shows as text: a heading's
`{#label}` and a command such as `@ref label "text"` outside code are errors, with the Markdown
that reads well in both.
"""

import re
import shutil
from pathlib import Path

from .chapters import CHAPTER_DIR, SiteError, read_lines
from .markdown import (CODE_SPAN, HEADING, IMAGE_THEN_PUNCTUATION, INLINE_LINK,
                       doxygen_markdown, github_slug, in_code, join_wrapped_link, track_fence)

IMAGE_SUFFIXES = {".png", ".svg", ".jpg", ".jpeg", ".gif"}
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.\-]*:|//)", re.IGNORECASE)
# The marker with which lessons used to place a diagram of docs/diagrams; a figure is now an image.
OLD_DIAGRAM_MARKER = re.compile(r"^\s*<!--\s*diagram:\s*([A-Za-z0-9_\-]+?)(?:\.dot)?\s*-->\s*$")
# Doxygen's commands, which GitHub shows as they are written.
DOXYGEN_COMMAND = re.compile(r"(?<![\w`])[@\\](ref|subpage|anchor|section|subsection|page|image|"
                             r"htmlinclude|dotfile|brief|see|note|cite)\b")


def label_from_slug(prefix, slug, used):
    ascii_slug = re.sub(r"[^a-z0-9_\-]", "", slug.encode("ascii", "ignore").decode()).strip("-")
    label = f"{prefix}-{ascii_slug or 'section'}"
    candidate, count = label, 1
    while candidate in used:
        candidate = f"{label}-{count}"
        count += 1
    used.add(candidate)
    return candidate


class Site:
    """What the pages of one edition may link to, and the links' rewriting."""

    def __init__(self, root, edition, chapters, out_dir):
        self.root = root
        self.edition = edition
        self.chapters = chapters
        self.out_dir = out_dir
        self.used_labels = set()
        self.errors = []  # broken links, all reported at the end
        self.heading_labels = {}  # repository path of a Markdown file -> {github slug: label}
        self.page_labels = {}  # repository path of a Markdown file -> its page's label
        self.documented = {}  # repository path of a documented header -> the path Doxygen knows
        for header in sorted((root / "common/include/course").glob("*")):
            if header.suffix in (".hpp", ".cuh", ".h"):
                # Doxygen knows these by their include name (STRIP_FROM_INC_PATH): course/NAME
                # tells common/include/course/launch.cuh from a chapter's launch.cuh.
                self.documented[f"common/include/course/{header.name}"] = f"course/{header.name}"
        for chapter in chapters:
            documented = chapter.kernels(edition)
            if (root / documented).exists():
                # Both kernels.cuh of a chapter lead to the one documented in this edition; in the
                # student edition a link to the solution keeps its text only.
                self.documented[documented] = documented
                if edition == "full":
                    self.documented[chapter.student_kernels] = documented
            if (root / chapter.launch).exists():
                self.documented[chapter.launch] = chapter.launch  # the same in both editions
            self.page_labels[chapter.lesson] = chapter.key
            self.page_labels.update(chapter.companions)
            answers = chapter.answer_key(root, edition)
            if answers:  # in the student edition a link to it keeps its text only
                self.page_labels[answers[0]] = answers[1]
        for page in sorted((root / "docs/pages").glob("*.md")):
            self.page_labels[page.relative_to(root).as_posix()] = page.stem
        self.page_labels["README.md"] = "index"
        # Every page's headings are labelled before any link is rewritten, so that a link finds
        # the label of a heading on any page.
        # (repository path of a Markdown page -> its lines, headings labelled)
        self.documents = {rel: self.label_headings(rel, read_lines(root, rel), label)
                          for rel, label in self.page_labels.items()}

    def label_headings(self, rel, lines, page_label):
        """Gives every heading of @p lines, the page @p page_label, a label; returns the new
        lines. The first level-1 heading is the page title: it gets the page's label (the main
        page's none; its other headings' labels start with readme-)."""
        prefix = "readme" if page_label == "index" else page_label
        slugs, labels, result = {}, {}, []
        seen_title, fence = False, None
        for text in lines:
            fence, code = track_fence(fence, text)
            heading = None if code else HEADING.match(text)
            if not heading:
                result.append(text)
                continue
            hashes, title, given = heading.groups()
            if given:
                self.errors.append(
                    f"{rel}:{len(result) + 1}: '{{#{given}}}' shows as text on GitHub: leave it "
                    "out (the site labels every heading; a link to this heading is "
                    f"[text]({Path(rel).name}#{github_slug(title)}))")
            slug = github_slug(title)
            # Doxygen 1.9.4 shows a code span of a heading as raw <tt> tags in the table of
            # contents: headings lose their backticks.
            title = CODE_SPAN.sub(r"\2", title)
            slugs[slug] = slugs.get(slug, -1) + 1
            if slugs[slug]:
                slug = f"{slug}-{slugs[slug]}"
            if not seen_title and len(hashes) == 1:
                seen_title = True
                if page_label == "index":
                    result.append(f"# {title}")
                    continue
                label = page_label
            else:
                label = given or label_from_slug(prefix, slug, self.used_labels)
            self.used_labels.add(label)
            labels[slug] = label
            labels.setdefault(label, label)  # `#label` works as well as GitHub's `#slug`
            result.append(f"{hashes} {title} {{#{label}}}")
        self.heading_labels[rel] = labels
        return result

    def copy_image(self, rel):
        """Copies the repository's image @p rel into the site; returns its name there."""
        name = rel.replace("/", "_")
        shutil.copyfile(self.root / rel, self.out_dir / "images" / name)
        return name

    def resolve(self, rel, target, image, where):
        """What a link to @p target in the repository file @p rel becomes: ("ref", label),
        ("image" or "image-link", file name), ("missing-image", path), ("url", url) or
        ("text", None)."""
        if not target or EXTERNAL.match(target) or target.startswith("@ref"):
            return ("url", target)
        path_part, _, fragment = target.partition("#")
        resolved = rel
        if path_part:
            try:
                resolved = ((self.root / rel).parent / path_part).resolve() \
                    .relative_to(self.root.resolve()).as_posix()
            except ValueError:
                raise SiteError(f"{where}: link to '{target}' leaves the repository") from None
            parts = resolved.split("/")
            if len(parts) > 1 and parts[0] in ("chapters", "solutions") and \
                    CHAPTER_DIR.match(parts[1]) and \
                    all(chapter.dirname != parts[1] for chapter in self.chapters):
                return ("text", None)  # a chapter not on the site (no lesson): the text stays
            if not (self.root / resolved).exists():
                if resolved.startswith("results/") and \
                        Path(resolved).suffix.lower() in IMAGE_SUFFIXES:
                    # The ladder's plot is committed after its table: say so rather than fail.
                    return ("missing-image", resolved)
                raise SiteError(f"{where}: link to '{target}': {resolved} does not exist")
        for chapter in self.chapters:
            if resolved == f"chapters/{chapter.dirname}":
                resolved = chapter.lesson
        if resolved == "results" and not fragment:
            return ("ref", "results")  # the results page shows what results/ holds
        suffix = Path(resolved).suffix.lower()
        if image or (suffix in IMAGE_SUFFIXES and not fragment):
            if suffix not in IMAGE_SUFFIXES:
                raise SiteError(f"{where}: image '{target}' is not an image file")
            return ("image" if image else "image-link", self.copy_image(resolved))
        if resolved in self.page_labels:
            if not fragment:
                return ("ref", self.page_labels[resolved])
            labels = self.heading_labels[resolved]
            if fragment not in labels:
                raise SiteError(f"{where}: link to '{target}': no heading with that anchor")
            return ("ref", labels[fragment])
        if resolved in self.documented:
            return ("ref", self.documented[resolved])
        return ("text", None)

    def rewrite_links(self, rel, text, where):
        """Rewrites the links and images of one line of Markdown (outside code spans)."""
        code = in_code(text)

        def inline(match):
            if code(match.start()):
                return match.group(0)
            bang, label, target = match.groups()
            kind, value = self.resolve(rel, target, bool(bang), where)
            return {"url": match.group(0), "image": f"![{label}]({value})",
                    "image-link": f"[{label}]({value})", "ref": f"[{label}](@ref {value})",
                    "missing-image": f"No plot is committed yet: `{value}`."}.get(kind, label)

        # Doxygen turns an image into a block of its own: punctuation left after it on the line
        # (a sentence's full stop) would stand alone, and a lone "." ends a list in Doxygen.
        return IMAGE_THEN_PUNCTUATION.sub(r"\1", INLINE_LINK.sub(inline, text))

    def transform(self, rel, lines):
        """The Markdown @p lines (already labelled) of @p rel with their links rewritten, as
        (text, source line) pairs. A link or image whose text wraps over several lines is joined
        into one line (Doxygen reads a link on one line only), so there may be fewer lines."""
        result, fence, offset = [], None, 0
        while offset < len(lines):
            text = lines[offset]
            offset += 1
            number = offset
            fence, code = track_fence(fence, text)
            marker = None if code else OLD_DIAGRAM_MARKER.match(text)
            if marker:
                self.errors.append(
                    f"{rel}:{number}: '<!-- diagram: {marker.group(1)} -->' shows nothing: show "
                    "the figure as ![caption](figures/NAME.svg), its source figures/NAME.dot "
                    "beside it (scripts/render_figures.py)")
                continue
            if not code:
                inside = in_code(text)
                for command in DOXYGEN_COMMAND.finditer(text):
                    if not inside(command.start()):
                        self.errors.append(
                            f"{rel}:{number}: '{command.group(0)}' shows as text on GitHub: "
                            "write a Markdown link to the file, [text](../../docs/pages/"
                            "tools.md) or [text](README.md#a-heading), which the site turns "
                            "into its own")
                        break
                text, joined = join_wrapped_link(text, lines[offset:])
                offset += joined
                try:
                    text = doxygen_markdown(self.rewrite_links(rel, text, f"{rel}:{number}"))
                except SiteError as error:
                    # Reported with every other broken link once all pages are written.
                    if str(error) not in self.errors:
                        self.errors.append(str(error))
            result.append((text, number))
        return result
