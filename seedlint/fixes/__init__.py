"""Fixes: libcst codemods that seed what the rules find (see ``apply.py``)."""
