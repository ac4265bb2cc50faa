"""The course site's page writer (docs/make_pages.py): markdown reads Markdown, links rewrites
links and labels headings, diffs compares files, pages and results assemble the pages."""
