"""An item of a dict, list or tuple of classes may be any of its values
(`NameResolver._item_meanings`): chrischoy/FCGF's `dataset_str_mapping[config.dataset]`."""

from __future__ import annotations

import ast
import textwrap

import pytest

from seedlint.analysis.facts import ModuleFacts


def _classes(code: str) -> list[str]:
    """The names of what ``pick`` in the last statement (``pick = ...``) may mean, sorted."""
    tree = ast.parse(textwrap.dedent(code))
    facts = ModuleFacts(tree, path="train.py")
    last = tree.body[-1]
    assert isinstance(last, ast.Assign)
    scope = facts.builder.module_scope
    found = facts.resolver.meanings(last.value, scope)
    return sorted(m if isinstance(m, str) else getattr(m, "name", "?") for m in found)


HEADER = "class A: pass\nclass B: pass\nfrom lib import C\n"


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("D = {'a': A, 'b': B}\npick = D[k]", ["A", "B"]),
        ("D = {'a': A, 'c': C}\npick = D[k]", ["A", "lib.C"]),
        ("D = [A, B]\npick = D[0]", ["A", "B"]),
        ("D = (A,)\npick = D[0]", ["A"]),
        ("ALL = [A, B]\nD = {c.__name__: c for c in ALL}\npick = D[k]", ["A", "B"]),
        ("D = {c.__name__: c for c in (A, B)}\npick = D[k]", ["A", "B"]),
        ("D = [c for c in [A, B] if c]\npick = D[0]", ["A", "B"]),
        ("ALL = (A,)\nMORE = [c for c in ALL]\nD = {c: c for c in MORE}\npick = D[k]", ["A"]),
        ("D = {'a': A}\nif x:\n    D = {'b': B}\npick = D[k]", ["A", "B"]),
        ("D = {'a': A}\nE = D\npick = E[k]", []),
        # not all written there: the item may be anything
        ("D = {'a': A, **more}\npick = D[k]", []),
        ("D = [A, *more]\npick = D[0]", []),
        ("D = {'a': A, 'b': make()}\npick = D[k]", []),
        ("D = {'a': A}\nD['b'] = B\npick = D[k]", []),
        ("D = {'a': A}\nD.update(b=B)\npick = D[k]", []),
        ("D = {'a': A}\nD |= {'b': B}\npick = D[k]", []),
        ("D = [A]\nD.append(B)\npick = D[0]", []),
        ("D = [A]\nD.extend([B])\npick = D[0]", []),
        ("D = [A]\nD.insert(0, B)\npick = D[0]", []),
        ("D = {'a': A}\nD.setdefault('b', B)\npick = D[k]", []),
        ("D = {'a': A}\nD.__setitem__('b', B)\npick = D[k]", []),
        ("D = [A]\nD.count(B)\npick = D[0]", ["A"]),
        ("D = [A]\nE.append(B)\npick = D[0]", ["A"]),
        ("D = [A]\nC.append(B)\npick = D[0]", ["A"]),
        ("D = {'a': A}\nC = {}\nC['x'] = B\npick = D[k]", ["A"]),
        ("D = {'a': A}\nE = {}\nE['x'] = B\npick = D[k]", ["A"]),
        ("D = [A]\nx.D.append(B)\npick = D[0]", ["A"]),
        ("D = [A]\nappend(B)\npick = D[0]", ["A"]),
        ("ALL = [A]\nALL.append(B)\nD = {c: c for c in ALL}\npick = D[k]", []),
        ("for D in x:\n    pass\npick = D[k]", []),
        ("pick = D[k]", []),
        ("D = make()\npick = D[k]", []),
        ("ALL = [A, B]\nD = {c: c for c in ALL for d in range(2)}\npick = D[k]", ["A", "B"]),
        ("ALL = [A, B]\nD = {d: d for c in ALL for d in c}\npick = D[k]", []),
        ("D = {c: d for c, d in ALL}\npick = D[k]", []),
        ("D = {c: other for c in [A]}\npick = D[k]", []),
        ("D = {c: c for c in make()}\npick = D[k]", []),
        ("D = [c() for c in [A]]\npick = D[0]", []),
        ("D = {'a': [A]}\npick = D[k][0]", []),
        ("D = {'a': A}\npick = x.D[k]", []),
        # a chain of comprehensions deeper than the walk follows
        (
            "L0 = [A]\nL1 = [c for c in L0]\nL2 = [c for c in L1]\nL3 = [c for c in L2]\n"
            "pick = L3[0]",
            [],
        ),
        ("L0 = [A]\nL1 = [c for c in L0]\nL2 = [c for c in L1]\npick = L2[0]", ["A"]),
        ("L0 = [A]\nD = [c for c in [c for c in [c for c in L0]]]\npick = D[0]", []),
        ("L0 = [A]\nD = [c for c in [c for c in L0]]\npick = D[0]", ["A"]),
    ],
)
def test_an_item(code: str, expected: list[str]) -> None:
    assert _classes(HEADER + code) == expected


def test_a_name_defined_in_terms_of_itself() -> None:
    assert _classes("D = [A]\nD = [D[0]]\npick = D[0]") == []


def test_the_mutation_scan_is_made_once_per_name() -> None:
    tree = ast.parse(HEADER + "D = {'a': A}\nE = {'b': B}\np = D[k]\nq = D[j]\nr = E[k]\n")
    facts = ModuleFacts(tree, path="train.py")
    scope = facts.builder.module_scope
    for statement in tree.body[-3:]:
        assert isinstance(statement, ast.Assign)
        assert facts.resolver.meanings(statement.value, scope)
    assert facts.resolver.__dict__["_mutated_memo"] == {"D": False, "E": False}


def test_a_parameter_whose_default_is_a_dict_may_be_any_dict() -> None:
    tree = ast.parse(HEADER + "def f(k, D={'a': A}):\n    return D[k]\n")
    facts = ModuleFacts(tree, path="train.py")
    function = tree.body[-1]
    assert isinstance(function, ast.FunctionDef)
    read = function.body[0]
    assert isinstance(read, ast.Return) and read.value is not None
    assert facts.resolver.meanings(read.value, facts.resolver.scope_of(function)) == frozenset()
