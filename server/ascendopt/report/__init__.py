"""Reports a person reads: Markdown, JSON and self-contained HTML with plots."""
