"""The tests on the way to a read: `seedlint/analysis/guards.py`, and the loader's sampler that
they show is not None (`ModuleFacts.dataloader_calls`)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from seedlint.analysis.facts import ModuleFacts
from seedlint.analysis.guards import not_none_at
from seedlint.analysis.values import (
    ABSENT,
    ANYTHING,
    OBJECT,
    UNKNOWABLE,
    Value,
    Where,
    known,
    without_none,
)


def _read(tree: ast.AST) -> ast.expr:
    """The argument of the one call of ``use(...)``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "use":
            return node.args[0]
    raise AssertionError("no use(...)")


def _holds(body: str, local: bool = True) -> bool:
    """``not_none_at`` for the read in ``body``, the body of a function ``f``."""
    code = "def f(x, y, self, other, r, v):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    tree = ast.parse(code)
    function = tree.body[0]
    return not_none_at(_read(tree), function, local)


CASES = [
    # the read in a branch of the test
    ("if x is not None:\n    use(x)", True),
    ("if x is None:\n    use(x)", False),
    ("if x is None:\n    y = 1\nelse:\n    use(x)", True),
    ("if x is not None:\n    y = 1\nelse:\n    use(x)", False),
    ("if x:\n    use(x)", True),
    ("if not x:\n    use(x)", False),
    ("if not x:\n    pass\nelse:\n    use(x)", True),
    ("if y is None:\n    use(x)", False),
    ("if x == None:\n    pass\nelse:\n    use(x)", False),
    ("if x is None is y:\n    pass\nelse:\n    use(x)", False),
    ("if x is 0:\n    pass\nelse:\n    use(x)", False),
    ("if x is y:\n    pass\nelse:\n    use(x)", False),
    ("if None is x:\n    pass\nelse:\n    use(x)", False),
    ("if x is not None and y:\n    use(x)", True),
    ("if y and x is not None:\n    use(x)", True),
    ("if x is not None or y:\n    use(x)", False),
    ("if x is not None or x:\n    use(x)", True),
    ("if not (x is None or y):\n    use(x)", True),
    ("if x is None and y:\n    pass\nelse:\n    use(x)", False),
    ("if x is None and x is None:\n    pass\nelse:\n    use(x)", True),
    # an earlier test whose body ends the path
    ("if x is None:\n    return\nuse(x)", True),
    ("if x is None:\n    raise ValueError\nuse(x)", True),
    ("for i in r:\n    if x is None:\n        continue\n    use(x)", True),
    ("for i in r:\n    if x is None:\n        break\n    use(x)", True),
    ("if x is None:\n    y = 1\nuse(x)", False),
    ("if x is None:\n    return\n    y = 1\nuse(x)", False),
    ("if y is None:\n    return\nuse(x)", False),
    ("if x is None or y:\n    return\nuse(x)", True),
    ("if x is None and y:\n    return\nuse(x)", False),
    ("if x is None:\n    return\nelse:\n    y = 1\nuse(x)", True),
    ("if x is None:\n    return\nelse:\n    x = y\nuse(x)", False),
    ("if x is not None:\n    y = 1\nelse:\n    return\nuse(x)", True),
    ("if x is not None:\n    x = y\nelse:\n    return\nuse(x)", False),
    ("if x is None:\n    y = 1\nelse:\n    return\nuse(x)", False),
    ("if x is None:\n    return\na = 1; use(x)", True),
    ("a = 1; use(x)", False),
    # what clears it
    ("if x is None:\n    return\nx = y\nuse(x)", False),
    ("if x is None:\n    return\nx += 1\nuse(x)", False),
    ("if x is None:\n    return\ndel x\nuse(x)", False),
    ("if x is None:\n    return\nfor x in r:\n    pass\nuse(x)", False),
    ("if x is None:\n    return\n(x := y)\nuse(x)", False),
    ("if x is None:\n    return\nimport x\nuse(x)", False),
    ("if x is None:\n    return\nimport x.sub\nuse(x)", False),
    ("if x is None:\n    return\nimport m as x\nuse(x)", False),
    ("if x is None:\n    return\nimport m\nuse(x)", True),
    ("if x is None:\n    return\nfrom m import x\nuse(x)", False),
    ("if x is None:\n    return\ndef x():\n    pass\nuse(x)", False),
    ("if x is None:\n    return\nclass x:\n    pass\nuse(x)", False),
    ("if x is None:\n    return\ntry:\n    pass\nexcept E as x:\n    pass\nuse(x)", False),
    ("if x is None:\n    return\ntry:\n    pass\nexcept E as e:\n    pass\nuse(x)", True),
    ("if x is None:\n    return\nmatch v:\n    case [*x]:\n        pass\nuse(x)", False),
    ("if x is None:\n    return\nmatch v:\n    case x:\n        pass\nuse(x)", False),
    ("if x is None:\n    return\nmatch v:\n    case 1:\n        pass\nuse(x)", True),
    ("if x is None:\n    return\ndef g():\n    nonlocal x\nuse(x)", False),
    ("if x is None:\n    return\ndef g():\n    global y\nuse(x)", True),
    ("if x is None:\n    return\nprint(y)\nuse(x)", True),
    ("if (x := y) is None:\n    return\nuse(x)", False),
    ("if (x := y) is not None:\n    use(x)", False),
    # loops, with, try and match between the test and the read
    ("if x is None:\n    return\nfor i in r:\n    use(x)", True),
    ("if x is None:\n    return\nfor i in r:\n    use(x)\n    x = i", False),
    ("if x is None:\n    return\nwhile y:\n    use(x)", True),
    ("if x is None:\n    return\nwhile y:\n    use(x)\n    x = y", False),
    ("if x is None:\n    return\nfor i in r:\n    pass\nelse:\n    use(x)", True),
    ("if x is None:\n    return\nwith y:\n    use(x)", True),
    ("if x is None:\n    return\nwith y as x:\n    use(x)", False),
    ("if x is None:\n    return\nwith y as z:\n    x = z\n    use(x)", False),
    ("if x is None:\n    return\ntry:\n    use(x)\nexcept E:\n    pass", True),
    ("if x is None:\n    return\ntry:\n    pass\nexcept E:\n    use(x)", False),
    ("if x is None:\n    return\ntry:\n    pass\nfinally:\n    use(x)", False),
    ("if x is None:\n    return\ntry:\n    pass\nexcept E:\n    pass\nelse:\n    use(x)", False),
    ("if x is None:\n    return\nmatch v:\n    case 1:\n        use(x)", False),
    ("match v:\n    case 1:\n        if x is None:\n            return\n        use(x)", True),
    ("if x is None:\n    return\nif y:\n    use(x)", True),
    ("if x is None:\n    return\nif (x := y):\n    use(x)", False),
    ("if x is None:\n    return\nif y:\n    pass\nelse:\n    use(x)", True),
    ("if x is None:\n    return\nif y:\n    x = y\nuse(x)", False),
    # the read in a test or header, or in a nested definition
    ("if x is None:\n    return\nif use(x):\n    pass", True),
    ("if x is not None and use(x):\n    pass", False),
    ("if x is None:\n    return\ndef g(a=use(x)):\n    pass", False),
    ("if x is None:\n    return\nclass C(use(x)):\n    pass", False),
    ("if x is None:\n    return\nuse(x[0])", False),
    ("if x is None:\n    return\nuse(x())", False),
]


@pytest.mark.parametrize(("body", "expected"), CASES, ids=[c[0] for c in CASES])
def test_a_name_local_to_the_function(body: str, expected: bool) -> None:
    assert _holds(body) is expected


ATTRIBUTES = [
    ("if self.a is None:\n    return\nuse(self.a)", True),
    ("if self.a is not None:\n    use(self.a)", True),
    ("if self.a is None:\n    return\nself.reset()\nuse(self.a)", False),
    ("if self.a is None:\n    return\nother.a = 1\nuse(self.a)", False),
    ("if self.a is None:\n    return\ndel other.a\nuse(self.a)", False),
    ("if self.a is None:\n    return\nself.b = 1\nuse(self.a)", True),
    ("if self.a is None:\n    return\nself = other\nuse(self.a)", False),
    ("if self.a.b is None:\n    return\nself.a = other\nuse(self.a.b)", False),
    ("if self.a.b is None:\n    return\nother.b = 1\nuse(self.a.b)", False),
    ("if self.a.b is None:\n    return\nother.c = 1\nuse(self.a.b)", True),
    ("if self.a is None:\n    return\nfor i in r:\n    use(self.a)", False),
    ("if self.a is None:\n    return\nwith y():\n    use(self.a)", False),
    ("if self.a is None:\n    return\nwith y:\n    use(self.a)", True),
    ("if self.a is None or self.check():\n    return\nuse(self.a)", False),
    ("if self.a is None:\n    return\nelse:\n    self.reset()\nuse(self.a)", False),
    ("if self.a is not None:\n    self.reset()\nelse:\n    return\nuse(self.a)", False),
    ("if self.a is not None and self.check():\n    use(self.a)", False),
    ("if self.b is None:\n    return\nuse(self.a)", False),
    ("if self.a is None:\n    return\nmatch v:\n    case self:\n        pass\nuse(self.a)", False),
    (
        "if self.a is None:\n    return\nmatch v:\n    case [*self]:\n        pass\nuse(self.a)",
        False,
    ),
    ("if self.a is None:\n    return\nmatch v:\n    case other:\n        pass\nuse(self.a)", True),
    ("if self.a is None:\n    return\nyield 1\nuse(self.a)", False),
    ("if self.a is None:\n    return\nyield from r\nuse(self.a)", False),
    ("if self.a is None:\n    return\nr = 1\nuse(self.a)", True),
    ("if self.a is None:\n    return\nself.__dict__['a'] = None\nuse(self.a)", False),
    ("if self.a is None:\n    return\nr = self.__dict__\nuse(self.a)", False),
]


@pytest.mark.parametrize(("body", "expected"), ATTRIBUTES, ids=[c[0] for c in ATTRIBUTES])
def test_an_attribute(body: str, expected: bool) -> None:
    assert _holds(body, local=False) is expected


@pytest.mark.parametrize("between", ["print(y)", "yield y", "y = yield", "yield from r"])
def test_a_name_that_is_not_local_is_cleared_by_any_call_or_yield(between: str) -> None:
    body = f"if x is None:\n    return\n{between}\nuse(x)"
    assert _holds(body, local=True)
    assert not _holds(body, local=False)


def test_an_await_clears_an_attribute() -> None:
    code = (
        "async def f(self):\n    if self.a is None:\n        return\n    await g()\n"
        "    use(self.a)\n"
    )
    tree = ast.parse(code)
    assert not not_none_at(_read(tree), tree.body[0], False)
    no_await = code.replace("await g()", "pass")
    tree = ast.parse(no_await)
    assert not_none_at(_read(tree), tree.body[0], False)


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("if x is None:\n    raise SystemExit\nx\n", True),
        ("if x is not None:\n    x\n", True),
        ("x\n", False),
    ],
)
def test_a_read_that_starts_its_statement(code: str, expected: bool) -> None:
    tree = ast.parse(code)
    last = tree.body[-1]
    while not isinstance(last, ast.Expr):
        assert isinstance(last, ast.If)
        last = last.body[-1]
    assert not_none_at(last.value, tree, True) is expected


def test_the_module_body_is_walked_too() -> None:
    tree = ast.parse("if x is None:\n    raise SystemExit\nuse(x)\n")
    assert not_none_at(_read(tree), tree, False)
    assert not not_none_at(_read(tree), ast.Module(body=[], type_ignores=[]), False)


# -- the value --------------------------------------------------------------------------------
def test_without_none() -> None:
    assert without_none(ANYTHING) == known(OBJECT)
    assert without_none(known(None)) == known(OBJECT)
    where = Where("default of `s`", 3)
    value = Value(frozenset({None, 3}), origins=((None, where), (3, where)))
    narrowed = without_none(value)
    assert narrowed.options == frozenset({3})
    assert narrowed.origins == ((3, where),)
    assert not narrowed.unknowable
    assert without_none(Value(frozenset({None, 3}), unknowable=True)).unknowable


# -- the loader's sampler ------------------------------------------------------------------
def _samplers(code: str) -> list[tuple[Value, Value]]:
    tree = ast.parse(textwrap.dedent(code))
    facts = ModuleFacts(tree, path="train.py")
    return [(c.args["sampler"], c.args["batch_sampler"]) for c in facts.dataloader_calls]


HEADER = "from functools import partial\nfrom torch.utils.data import DataLoader\n"


def test_a_tested_sampler_is_some_object() -> None:
    found = _samplers(
        HEADER + "def f(ds, sampler=None, batches=None):\n"
        "    if sampler is None or batches is None:\n"
        "        return\n"
        "    DataLoader(ds, sampler=sampler, batch_sampler=batches)\n"
        "    DataLoader(ds, None, False, sampler)\n"
    )
    assert found == [(known(OBJECT), known(OBJECT)), (known(OBJECT), known(ABSENT))]


def test_an_untested_or_unknowable_sampler_is_left_alone() -> None:
    found = _samplers(
        HEADER + "def f(ds, given, sampler=None):\n"
        "    DataLoader(ds, sampler=sampler)\n"
        "    if given is None:\n"
        "        return\n"
        "    DataLoader(ds, sampler=given)\n"
        "    DataLoader(ds, sampler=[sampler][0])\n"
    )
    assert [s for s, _ in found] == [known(None), UNKNOWABLE, ANYTHING]


@pytest.mark.parametrize(
    "code",
    [
        # a name another scope may rebind
        "def f(ds, sampler=None):\n"
        "    def reset():\n"
        "        nonlocal sampler\n"
        "        sampler = None\n"
        "    if sampler is None:\n"
        "        return\n"
        "    reset()\n"
        "    DataLoader(ds, sampler=sampler)\n",
        "sampler = None\n"
        "def f(ds):\n"
        "    global sampler\n"
        "    if sampler is None:\n"
        "        return\n"
        "    print()\n"
        "    DataLoader(ds, sampler=sampler)\n",
        "sampler = None\n"
        "def f(ds):\n"
        "    if sampler is None:\n"
        "        return\n"
        "    print()\n"
        "    DataLoader(ds, sampler=sampler)\n",
        "sampler = None\n"
        "if sampler is None:\n"
        "    raise SystemExit\n"
        "print()\n"
        "DataLoader(ds, sampler=sampler)\n",
        # a loader class with an __init__ of its own: PyTorch's check may not run
        "class Mine(DataLoader):\n"
        "    def __init__(self, ds, sampler=None, shuffle=False):\n"
        "        super().__init__(ds)\n"
        "def f(ds, sampler=None):\n"
        "    if sampler is None:\n"
        "        return\n"
        "    Mine(ds, sampler=sampler)\n",
        # a partial's loader, a lambda (it runs later), a class body, a comprehension
        "def f(ds, sampler=None):\n"
        "    if sampler is None:\n"
        "        return\n"
        "    make = partial(DataLoader, ds)\n"
        "    make(sampler=sampler)\n",
        "def f(ds, sampler=None):\n"
        "    if sampler is None:\n"
        "        return\n"
        "    return lambda: DataLoader(ds, sampler=sampler)\n",
        "class C:\n"
        "    sampler = None\n"
        "    if sampler is not None:\n"
        "        loader = DataLoader([], sampler=sampler)\n",
        "def f(ds, sampler=None):\n"
        "    if sampler is None:\n"
        "        return\n"
        "    return [DataLoader(ds, sampler=sampler) for _ in ds]\n",
    ],
)
def test_no_narrowing_where_it_may_not_hold(code: str) -> None:
    found = _samplers(HEADER + code)
    assert found and found[-1][0].may(lambda option: option is None)


def test_a_local_name_survives_a_call() -> None:
    found = _samplers(
        HEADER + "def f(ds, sampler=None):\n"
        "    if sampler is None:\n"
        "        return\n"
        "    print()\n"
        "    DataLoader(ds, sampler=sampler)\n"
    )
    assert found == [(known(OBJECT), found[0][1])]
