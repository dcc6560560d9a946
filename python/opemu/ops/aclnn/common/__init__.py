"""What the families of several vendor folders share: family base classes (elementwise rows, fills,
reductions), dtype promotion and lists, product lines, row blocks."""
