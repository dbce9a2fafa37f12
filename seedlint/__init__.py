"""seedlint: find and fix unseeded random streams in PyTorch code."""

__version__ = "0.1.0"
