"""Run flake8 with an explicit set of plugins (a helper of ``bench/run.py``).

flake8 runs *every* installed plugin on every file; ``--select`` only filters what is reported.
So ``flake8 --select=E999`` in an environment where seedlint (``RNG``) or TorchFix (``TOR``) is
installed still pays for those plugins, and a fair "flake8 alone" baseline cannot be had by
selecting codes.  This shim runs flake8's own ``main()`` unchanged, after narrowing plugin
discovery to the plugins flake8 ships with (pyflakes ``F``, pycodestyle ``E``/``W``,
mccabe ``C90``, the built-in
reporters) plus the entry points named in the ``SEEDLINT_BENCH_FLAKE8_PLUGINS`` environment
variable (comma-separated entry-point names, e.g. ``RNG`` or ``TOR``).

Both sides of a comparison run through this same shim, the same interpreter and the same
flake8, so the only difference between them is the plugin under test.  ``--version`` shows
the plugins that were kept.

The filter is installed when the module is imported, so worker processes started with the
``spawn`` or ``forkserver`` methods (which re-import the main module) apply it too.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator
from typing import Any

ENV_VAR = "SEEDLINT_BENCH_FLAKE8_PLUGINS"
BUILTIN_PACKAGES = frozenset({"flake8", "mccabe", "pyflakes", "pycodestyle"})


def kept_entry_points() -> frozenset[str]:
    raw = os.environ.get(ENV_VAR, "")
    return frozenset(name.strip() for name in raw.split(",") if name.strip())


def install_filter() -> None:
    finder: Any = importlib.import_module("flake8.plugins.finder")
    original = getattr(finder, "_find_importlib_plugins", None)
    if original is None:
        raise SystemExit(
            "flake8_shim: this flake8 has no flake8.plugins.finder._find_importlib_plugins; "
            "the benchmark's plugin filter needs flake8 >= 5"
        )
    if getattr(original, "_seedlint_bench_filter", False):
        return
    keep = kept_entry_points()

    def filtered() -> Iterator[Any]:
        for plugin in original():
            if plugin.package in BUILTIN_PACKAGES or plugin.entry_point.name in keep:
                yield plugin

    filtered._seedlint_bench_filter = True  # type: ignore[attr-defined]
    finder._find_importlib_plugins = filtered


install_filter()


def main() -> int:
    cli: Any = importlib.import_module("flake8.main.cli")
    return int(cli.main(sys.argv[1:]))


if __name__ == "__main__":
    sys.exit(main())
