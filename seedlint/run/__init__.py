"""Running seedlint over files: discovery, the one process pool, the cache; check and fix."""
