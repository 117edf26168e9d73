"""Lambda handlers, one folder each; every handler is thin over the multitool layer."""
