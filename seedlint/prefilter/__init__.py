"""The pre-filter: what a file's bytes can say before it is parsed.

``words``: the first stage, one scan for the words a rule needs (every group must hit);
``scan``: the second, finer stage some rules ask (can any ``X.seed`` mean ``random.seed``?).
Both must only ever err towards "may fire": a file they rule out cannot have a finding.
"""
