"""The engine: selection and noqa; check(document) -> findings; the fix loop(document)."""
