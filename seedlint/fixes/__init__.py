"""The libcst toolkit the rules' fixes share: the fix context, seeds, imports, layout, writes."""
