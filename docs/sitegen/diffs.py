"""The difference of two repository files as an HTML table, for a page to `@htmlinclude`."""

import difflib
import html


def diff_row(kind, old_number, new_number, sign, text):
    return (f'<tr class="{kind}"><td class="num">{old_number}</td><td class="num">{new_number}'
            f'</td><td class="code">{sign}{html.escape(text.expandtabs(8))}</td></tr>')


def diff_html(old_lines, new_lines, old_name, new_name):
    """A unified diff as an HTML table: old and new line numbers, then the line, removed lines
    red, added lines green, unchanged context grey. Returns the HTML and the numbers of lines
    added and removed."""
    rows = []
    added = removed = 0
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


def diff_section(site, old_rel, new_rel, name):
    """Writes the diff of two repository files to the HTML fragment @p name; returns the lines
    of Markdown that show it: the two files, the counts, and the `@htmlinclude`."""
    old, new = ((site.root / rel).read_text(encoding="utf-8").splitlines()
                for rel in (old_rel, new_rel))
    fragment, added, removed = diff_html(old, new, old_rel, new_rel)
    (site.out_dir / "include" / name).write_text(fragment, encoding="utf-8")
    return [f"`{old_rel}` &rarr; `{new_rel}`: {added} lines added, {removed} removed.", "",
            f"@htmlinclude {name}"]
