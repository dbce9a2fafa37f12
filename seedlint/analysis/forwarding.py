"""What a loader subclass's own ``__init__`` passes on to its base's ``__init__``, per path.

torchmeta's ``MetaDataLoader`` has its own default ``shuffle=True`` and, for some datasets,
replaces shuffling by a sampler of its own and passes ``shuffle=False`` on::

    def __init__(self, dataset, batch_size=1, shuffle=True, sampler=None, ...):
        if isinstance(dataset, CombinationMetaDataset) and (sampler is None):
            if shuffle:
                sampler = CombinationRandomSampler(dataset)
            shuffle = False
        super().__init__(dataset, batch_size=batch_size, shuffle=shuffle, sampler=sampler, ...)

:func:`forwarding` walks the body once (it is summarised, so a module calling the class sees
it too) and gives its *routes*: for each path to the base ``__init__`` call (``super().__init__``,
``super(C, self).__init__``, ``Base.__init__(self, ...)``), the tests on the way (on a parameter:
``isinstance(p, C)``, ``p is None``, ``p``; ``and``, ``or``, ``not`` of them) and what the call
passes: a parameter passed on unchanged, or a value (a constructed object, a literal). Other tests
constrain nothing (both branches). :func:`follow` then binds one call of the class, the
``__init__``'s defaults included, through every level of the chain down to torch's
``DataLoader.__init__``: the loader arguments on each path the call may take, and the tests it
cannot decide.

Where it stops (:func:`forwarding` gives None, the caller keeps the plain binding): ``*args`` in
the signature or passed on, a ``**`` dict other than the ``__init__``'s own ``**kwargs``, the
base call inside a loop, ``try``, ``match`` or an expression, more than one call on a path, more
than 16 paths. A name assigned anything else than a parameter, a literal or a constructed object
may be anything; so may a value computed from parameters (``shuffle and x``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Optional, Union

from seedlint.analysis.calls import DATALOADER, Signature
from seedlint.analysis.names import Scope
from seedlint.analysis.values import (
    ABSENT,
    ANYTHING,
    OBJECT,
    Value,
    ValueEvaluator,
    known,
    union,
    with_origin,
)

ISINSTANCE = "isinstance"  # isinstance(p, C)
NONE = "none"  # p is None
TRUTHY = "truthy"  # p
SPREAD = "**"  # a keyword of the base call: the ``__init__``'s own ``**kwargs`` passed on
_MAX_ROUTES = 16

# A parameter's name: its value at the call, passed on unchanged; a Value: what is passed.
Term = Union[str, Value]


@dataclass(frozen=True)
class Test:
    """A test on one parameter of the ``__init__`` (``text``: its source, for messages).
    ``classes``: for ``isinstance``, what the class names mean (the summary writes them as its
    references)."""

    text: str
    kind: str
    parameter: str
    classes: tuple[object, ...] = ()


@dataclass(frozen=True)
class Route:
    """One path to the base ``__init__`` call: the tests that hold on it (test, truth), and the
    call's arguments (``self`` left out)."""

    tests: tuple[tuple[Test, bool], ...]
    args: tuple[Term, ...]
    keywords: tuple[tuple[str, Term], ...]


@dataclass(frozen=True)
class Forwarding:
    defaults: tuple[tuple[str, Value], ...]
    routes: tuple[Route, ...]


class _Stop(Exception):
    """The body leaves the model (see the module docstring)."""


State = tuple[tuple[tuple[Test, bool], ...], dict[str, Term]]


def forwarding(
    init: Union[ast.FunctionDef, ast.AsyncFunctionDef], evaluator: ValueEvaluator
) -> Optional[Forwarding]:
    """The routes of a class's own ``__init__`` to its base's, or None (module docstring)."""
    args = init.args
    positional = [a.arg for a in [*args.posonlyargs, *args.args]]
    if args.vararg is not None or not positional:
        return None
    scope = evaluator.builder.scope_of.get(id(init))
    if scope is None or scope.parent is None:
        return None
    walker = _Walker(evaluator, scope, positional[0], args.kwarg.arg if args.kwarg else None)
    names = [*positional[1:], *(a.arg for a in args.kwonlyargs)]
    if args.kwarg is not None:
        names.append(args.kwarg.arg)
    try:
        walker.block(init.body, [((), {name: name for name in names})])
    except _Stop:
        return None
    if not walker.routes:
        return None
    defaults: list[tuple[str, Value]] = []
    pairs = [
        *zip(positional[len(positional) - len(args.defaults) :], args.defaults),
        *((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None),
    ]
    for name, default in pairs:
        if name != positional[0]:
            defaults.append((name, evaluator.evaluate(default, scope.parent)))
    return Forwarding(tuple(defaults), tuple(walker.routes))


class _Walker:
    def __init__(
        self, evaluator: ValueEvaluator, scope: Scope, self_name: str, kwargs: Optional[str]
    ) -> None:
        self.evaluator = evaluator
        self.scope = scope
        self.self_name = self_name
        self.kwargs = kwargs
        self.routes: list[Route] = []

    def block(self, statements: list[ast.stmt], states: list[State]) -> list[State]:
        for statement in statements:
            if not states:
                break
            states = self.statement(statement, states)
            if len(states) + len(self.routes) > _MAX_ROUTES:
                raise _Stop
        return states

    def statement(self, node: ast.stmt, states: list[State]) -> list[State]:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            passed = self.base_call(node.value)
            if passed is not None:
                for tests, env in states:
                    self.routes.append(self.route(tests, env, *passed))
                return []  # what follows the base call changes nothing it was given
        if isinstance(node, (ast.Return, ast.Raise)):
            return []
        if isinstance(node, ast.If):
            after: list[State] = []
            for truth, body in ((True, node.body), (False, node.orelse)):
                branch = [
                    (tests + more, env)
                    for tests, env in states
                    for more in self.split(node.test, env, truth)
                ]
                after.extend(self.block(body, [(t, dict(e)) for t, e in branch]))
            return after
        if any(self.base_call(c) is not None for c in _calls(node)):
            raise _Stop  # in a loop, a `try`, a `with`, an expression: not followed
        if (
            isinstance(node, (ast.Assign, ast.AnnAssign))
            and node.value is not None
            and len(targets := _targets(node)) == 1
            and isinstance(targets[0], ast.Name)
        ):
            name, value = targets[0].id, node.value
            return [(tests, {**env, name: self.term(value, env)}) for tests, env in states]
        stored = _stored_names(node)
        if not stored:
            return states
        return [(tests, {**env, **dict.fromkeys(stored, ANYTHING)}) for tests, env in states]

    def base_call(self, call: ast.Call) -> Optional[tuple[list[ast.expr], list[ast.keyword]]]:
        """The arguments of ``super().__init__(...)`` or ``Base.__init__(self, ...)``."""
        func = call.func
        if not isinstance(func, ast.Attribute) or func.attr != "__init__":
            return None
        base = func.value
        if isinstance(base, ast.Call) and isinstance(base.func, ast.Name):
            if base.func.id == "super":
                return list(call.args), list(call.keywords)
            return None
        if (
            isinstance(base, (ast.Name, ast.Attribute))
            and call.args
            and isinstance(call.args[0], ast.Name)
            and call.args[0].id == self.self_name
        ):
            return list(call.args[1:]), list(call.keywords)
        return None

    def route(
        self,
        tests: tuple[tuple[Test, bool], ...],
        env: dict[str, Term],
        args: list[ast.expr],
        keywords: list[ast.keyword],
    ) -> Route:
        terms: list[Term] = []
        for arg in args:
            if isinstance(arg, ast.Starred):
                raise _Stop
            terms.append(self.term(arg, env))
        named: list[tuple[str, Term]] = []
        for keyword in keywords:
            if keyword.arg is not None:
                named.append((keyword.arg, self.term(keyword.value, env)))
            elif (
                isinstance(keyword.value, ast.Name)
                and keyword.value.id == self.kwargs
                and env.get(self.kwargs) == self.kwargs
            ):
                named.append((SPREAD, self.kwargs))
            else:
                raise _Stop
        return Route(tests, tuple(terms), tuple(named))

    def term(self, expr: ast.expr, env: dict[str, Term]) -> Term:
        if isinstance(expr, ast.Name) and expr.id in env:
            return env[expr.id]
        if isinstance(expr, ast.Constant):
            return known(expr.value)
        if isinstance(expr, ast.Call) and self.evaluator.constructs_object(expr, self.scope):
            return known(OBJECT)
        if any(isinstance(n, ast.Name) and n.id in env for n in ast.walk(expr)):
            return ANYTHING  # computed from parameters: not followed
        return self.evaluator.evaluate(expr, self.scope)

    def split(
        self, test: ast.expr, env: dict[str, Term], truth: bool
    ) -> list[tuple[tuple[Test, bool], ...]]:
        """The conjunctions of tests under which ``test`` has the value ``truth`` (one of them
        holds on each path; ``[()]``: nothing known; ``[]``: never)."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self.split(test.operand, env, not truth)
        if isinstance(test, ast.BoolOp):
            every = isinstance(test.op, ast.And) == truth  # all operands must agree
            parts = [self.split(value, env, truth) for value in test.values]
            if not every:
                return [c for part in parts for c in part]
            found: list[tuple[tuple[Test, bool], ...]] = [()]
            for part in parts:
                found = [a + b for a in found for b in part]
                if len(found) > _MAX_ROUTES:
                    return [()]
            return found
        atom = self.atom(test, env)
        if atom is None:
            return [()]
        if isinstance(atom, bool):
            return [()] if atom == truth else []
        test_node, positive = atom
        return [((test_node, positive == truth),)]

    def atom(self, test: ast.expr, env: dict[str, Term]) -> Union[bool, tuple[Test, bool], None]:
        """A test on a parameter (with the truth that makes ``test`` true), a truth known here,
        or None."""
        operand: Optional[ast.expr] = None
        kind = TRUTHY
        positive = True
        classes: tuple[object, ...] = ()
        if isinstance(test, ast.Name):
            operand = test
        elif (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], (ast.Is, ast.IsNot))
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None
        ):
            operand, kind, positive = test.left, NONE, isinstance(test.ops[0], ast.Is)
        elif (
            isinstance(test, ast.Call)
            and isinstance(test.func, ast.Name)
            and test.func.id == "isinstance"
            and len(test.args) == 2
            and not test.keywords
        ):
            operand, kind = test.args[0], ISINSTANCE
            spelled = test.args[1]
            options = spelled.elts if isinstance(spelled, ast.Tuple) else [spelled]
            meanings: set[object] = set()
            for option in options:
                found = self.evaluator.resolver.meanings(option, self.scope)
                if not found:
                    return None
                meanings |= found
            classes = tuple(meanings)
        if not isinstance(operand, ast.Name) or operand.id not in env:
            return None
        term = env[operand.id]
        if isinstance(term, Value):
            known_truth = truth_of(kind, term)
            return None if known_truth is None else known_truth == positive
        return Test(ast.unparse(test), kind, term, classes), positive


def truth_of(kind: str, value: Value) -> Optional[bool]:
    """Whether a ``none`` or ``truthy`` test holds for every option of ``value`` (True), for
    none (False), or either (None)."""
    if kind == ISINSTANCE or value.options is None or value.unknowable or not value.options:
        return None
    if kind == NONE:
        results = {option is None for option in value.options}
    elif OBJECT in value.options:  # an object may be empty
        return None
    else:
        results = {bool(option) for option in value.options}
    return results.pop() if len(results) == 1 else None


@dataclass(frozen=True)
class Level:
    """One class of the chain with its own ``__init__`` (the class called first)."""

    name: str
    positional: tuple[str, ...]
    keyword_only: tuple[str, ...]
    kwargs: bool
    forwarding: Forwarding


@dataclass(frozen=True)
class Outcome:
    """The DataLoader's arguments on one path, and the tests on it the call does not decide
    (``"unless `isinstance(dataset, C)`"``)."""

    args: dict[str, Value]
    undecided: tuple[str, ...]


# (level index, test, the parameter of the called class the tested value is, when it is one)
Decide = Callable[[int, Test, Optional[str]], Optional[bool]]
Passed = tuple[Value, Optional[str]]  # a value and the called class's parameter it is


def follow(
    levels: list[Level], passed: dict[str, Value], extras: dict[str, Value], decide: Decide
) -> list[Outcome]:
    """The paths of one call of ``levels[0]``'s class: ``passed`` its parameters (ABSENT where
    the call leaves them out), ``extras`` the keywords its ``**kwargs`` receives."""
    first = levels[0]
    sources: dict[str, Passed] = {name: (value, name) for name, value in passed.items()}
    extra: dict[str, Passed] = {name: (value, None) for name, value in extras.items()}
    found: list[Outcome] = []
    for outcome in _level(levels, 0, _defaults(first, sources), extra, decide):
        found.append(outcome)
        if len(found) > _MAX_ROUTES:
            break
    return found


def _defaults(level: Level, values: dict[str, Passed]) -> dict[str, Passed]:
    defaults = dict(level.forwarding.defaults)
    result: dict[str, Passed] = {}
    for name in (*level.positional, *level.keyword_only):
        value, source = values.get(name, (known(ABSENT), None))
        default = defaults.get(name)
        if value.options is not None and ABSENT in value.options and default is not None:
            where = f"`{level.name}` default"
            rest = value.options - {ABSENT}
            shown = with_origin(default, where)
            value = union([Value(rest, value.unknowable, value.origins), shown]) if rest else shown
        result[name] = (value, source)
    return result


def _level(
    levels: list[Level],
    index: int,
    values: dict[str, Passed],
    extras: dict[str, Passed],
    decide: Decide,
) -> Iterable[Outcome]:
    level = levels[index]
    for route in level.forwarding.routes:
        undecided: list[str] = []
        holds = True
        for test, truth in route.tests:
            value, source = values.get(test.parameter, (ANYTHING, None))
            if test.kind == ISINSTANCE:
                got = decide(index, test, source)
            else:
                got = truth_of(test.kind, value)
            if got is None:
                undecided.append(f"{'if' if truth else 'unless'} `{test.text}`")
            elif got != truth:
                holds = False
                break
        if not holds:
            continue
        args = [_term(term, values) for term in route.args]
        named: dict[str, Passed] = {}
        for name, term in route.keywords:
            if name == SPREAD:
                for key, item in extras.items():
                    named.setdefault(key, item)
            else:
                named[name] = _term(term, values)
        if index + 1 == len(levels):
            bound = _bind(args, named, DATALOADER, False)[0]
            plain = {name: bound.get(name, (known(ABSENT), None))[0] for name in DATALOADER.names}
            yield Outcome(plain, tuple(undecided))
            continue
        below = levels[index + 1]
        signature = Signature(below.positional, below.keyword_only)
        bound, rest = _bind(args, named, signature, below.kwargs)
        for outcome in _level(levels, index + 1, _defaults(below, bound), rest, decide):
            yield Outcome(outcome.args, (*undecided, *outcome.undecided))


def _term(term: Term, values: dict[str, Passed]) -> Passed:
    if isinstance(term, Value):
        return term, None
    return values.get(term, (ANYTHING, None))


def _bind(
    args: list[Passed], named: dict[str, Passed], signature: Signature, kwargs: bool
) -> tuple[dict[str, Passed], dict[str, Passed]]:
    """Arguments bound to ``signature``'s names, and the keywords its ``**kwargs`` takes."""
    bound = dict(zip(signature.positional, args))
    rest: dict[str, Passed] = {}
    for name, item in named.items():
        if name in signature.names:
            bound[name] = item
        elif kwargs:
            rest[name] = item
    return bound, rest


def _targets(node: Union[ast.Assign, ast.AnnAssign]) -> list[ast.expr]:
    return node.targets if isinstance(node, ast.Assign) else [node.target]


def _calls(node: ast.AST) -> Iterable[ast.Call]:
    return (n for n in ast.walk(node) if isinstance(n, ast.Call))


def _stored_names(node: ast.stmt) -> list[str]:
    """The names a statement binds (nested functions and classes: their own name only)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    return [
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    ]
