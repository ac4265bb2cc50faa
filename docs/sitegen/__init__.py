"""The course site's page writer (docs/make_pages.py): markdown reads Markdown, links rewrites
links and labels headings, pages and results assemble the pages (pages also writes the diffs)."""
