"""A draft to a page: the post builder (Markdown, math, placeholders, links, the page's HTML)."""
