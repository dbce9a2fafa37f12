"""The optional C accelerator of the pre-filter's word scan (everything else is in
pyproject.toml). ``optional=True``: where it cannot be compiled, the package installs
without it and the pre-filter searches in Python, with the same answers."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "seedlint.prefilter._wordscan",
            ["seedlint/prefilter/_wordscan.c"],
            optional=True,
        )
    ]
)
