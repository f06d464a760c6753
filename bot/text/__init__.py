"""Words and their shapes: neutral messages, markup, plain text, the tr/en catalogs."""
