"""Which rules run on a file and which findings are kept: selectors, per-file ignores, fixable
codes, and the selected rules' pre-filter words. RNG000 is selected like any other rule."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from seedlint.analysis.facts import AnalysisOptions
from seedlint.config import ConfigError, Settings, did_you_mean, path_matches
from seedlint.fixes.options import DEFAULT_LINE_LENGTH, FixOptions
from seedlint.prefilter.words import (
    EncodedGroups,
    WordScan,
    encode,
    names_project_loader,
    project_loaders,
    register,
)
from seedlint.rules import BY_CODE, Rule

INVALID_FILE = "RNG000"


def expand(selectors: tuple[str, ...], option: str) -> set[str]:
    """Rule selectors (``ALL``, a prefix such as ``RNG`` or ``RNG00``, a code) to codes."""
    codes: set[str] = set()
    for raw in selectors:
        selector = raw.strip().upper()
        if not selector:
            continue
        if selector == "ALL":
            codes |= set(BY_CODE)
            continue
        matched = {code for code in BY_CODE if code.startswith(selector)}
        if not matched:
            hint = did_you_mean(selector, BY_CODE)
            raise ConfigError(f"Unknown rule selector `{raw}` in `{option}`{hint}")
        codes |= matched
    return codes


def check_selectors(selectors: tuple[str, ...], option: str) -> None:
    """The validator :class:`seedlint.config.SettingsResolver` runs on every selector list."""
    expand(selectors, option)


def fix_options(settings: Settings) -> FixOptions:
    return FixOptions(
        0 if settings.fix_seed is None else settings.fix_seed,
        settings.fix_seed is not None,
        settings.line_length or DEFAULT_LINE_LENGTH,
    )


def analysis_options(settings: Settings) -> AnalysisOptions:
    return AnalysisOptions(
        settings.dataloader_classes,
        settings.capture_contexts,
        settings.seed_functions,
        settings.set_epoch_wrappers,
        settings.worker_seeding_loaders,
    )


@dataclass
class Selection:
    """The selected rules for one settings object, with their pre-filter words."""

    settings: Settings
    enabled: frozenset[str]
    fixable: frozenset[str]
    rules: list[Rule]  # the detection rules (RNG000 has no detection)
    options: AnalysisOptions
    fix_options: FixOptions
    words: tuple[EncodedGroups, ...]  # each rule's word groups, encoded
    # The last bytes filtered and the rules that passed (a file is filtered by the runner,
    # then by the check it is handed to, then by the rule loop: once is enough).
    _last: Optional[tuple[bytes, bool, tuple[Rule, ...], tuple[bytes, ...]]] = field(
        default=None, repr=False, compare=False
    )
    # Every word of every rule's first group: a file with none of them passes no rule (one
    # test rules most files out).
    _first: tuple[bytes, ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        first = {word for groups in self.words if groups for word in groups[0]}
        every = all(groups for groups in self.words)  # a rule without groups always passes
        self._first = tuple(sorted(first)) if every and self.words else ()

    @classmethod
    def build(cls, settings: Settings) -> Selection:
        enabled = expand(settings.select, "select") | expand(
            settings.extend_select, "extend-select"
        )
        enabled -= expand((*settings.ignore, *settings.extend_ignore), "ignore")
        fixable = expand(settings.fixable, "fixable") - expand(settings.unfixable, "unfixable")
        options = analysis_options(settings)
        rules = [r() for r in BY_CODE.values() if r.code in enabled and r.code != INVALID_FILE]
        words = tuple(encode(rule.triggers(options)) for rule in rules)
        register(word for groups in words for group in groups for word in group)
        return cls(
            settings,
            frozenset(enabled),
            frozenset(fixable),
            rules,
            options,
            fix_options(settings),
            words,
        )

    def ignored_for(self, display: str) -> frozenset[str]:
        """Codes that ``per-file-ignores`` switches off for the file ``display``."""
        if not self.settings.per_file_ignores:
            return frozenset()
        path = Path(display)
        ignored: set[str] = set()
        for pattern, codes in self.settings.per_file_ignores:
            negated = pattern.startswith("!")
            if path_matches(path, pattern.lstrip("!"), self.settings.root) != negated:
                ignored |= expand(codes, "per-file-ignores")
        return frozenset(ignored)

    def reports(self, code: str, display: str) -> bool:
        """Whether a finding of ``code`` in ``display`` is reported at all (before noqa)."""
        return code in self.enabled and code not in self.ignored_for(display)

    def may_fire(self, raw: bytes, display: str = "", scan: Optional[WordScan] = None) -> bool:
        """Whether some selected rule may fire on the bytes of the file ``display``: it finds
        each of its word groups, and its second stage (:meth:`Rule.may_fire`) does not rule the
        file out. A notebook's bytes are JSON, whose strings split the code at every line:
        only the words are looked for there (the second stage runs on the cells' code)."""
        return bool(self.firing(raw, display, scan=scan))

    def firing(
        self,
        raw: bytes,
        display: str = "",
        notebook: Optional[bool] = None,
        scan: Optional[WordScan] = None,
    ) -> tuple[Rule, ...]:
        """The selected rules that pass the pre-filter on the bytes (``scan``: the lookups to
        share with the caller's own)."""
        if notebook is None:
            notebook = display.endswith(".ipynb")
        extra = project_loaders()
        last = self._last
        if (
            last is not None
            and last[1] == notebook
            and last[3] == extra
            and (last[0] is raw or last[0] == raw)
        ):
            return last[2]
        if scan is None or scan.raw is not raw:
            scan = WordScan(raw)
        # A file naming one of the project's loader names in its code passes the loader group
        # of the rules that check the project's loader classes.
        named = bool(extra) and scan.any(extra) and names_project_loader(raw, extra)
        if self._first and not named and not scan.any(self._first):
            self._last = (raw, notebook, (), extra)
            return ()
        passed = tuple(
            rule
            for rule, groups in zip(self.rules, self.words)
            if (scan.all_groups(groups) and (notebook or rule.may_fire(raw, self.options)))
            or (named and rule.project_loaders and scan.all_groups(groups[1:]))
        )
        self._last = (raw, notebook, passed, extra)
        return passed


_SELECTIONS: dict[str, Selection] = {}


def selection(settings: Settings) -> Selection:
    """The selection for ``settings`` (built once per distinct settings)."""
    key = settings.fingerprint()
    found = _SELECTIONS.get(key)
    if found is None:
        found = _SELECTIONS[key] = Selection.build(settings)
    return found
