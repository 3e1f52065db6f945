"""Relay's dataflow pattern language with TVM's names (python/tvm/relay/dataflow_pattern):
a TVM user changes `from tvm.relay.dataflow_pattern import *` to `from graphpat.dpl import *`.

    from graphpat.dpl import *
    bn = is_tuple_get_item(is_op("nn.batch_norm")(wildcard(), wildcard(), wildcard(),
                                                  wildcard(), wildcard()), 0)
    partitioned, report = bn.partition(mod, attrs={"Composite": "bn"})   # report["accepted"]

A pattern is written as the text of TVM's Python spelling, which graphpat's C++ reader
(graphpat/pattern/text.hpp) compiles; a pattern object used twice is one pattern node, as in TVM.
"""
from . import _graphpat, _graph

def _node_engine(expr, what):
    """The extension submodule of `expr`'s dialect, for a Node (of a Relay or an ONNX module)."""
    if not isinstance(expr, (_graphpat.relay.Node, _graphpat.onnx.Node)):
        raise TypeError(f"{what} expects a graphpat Node, not {type(expr).__name__}")
    return expr._engine


def _module_engine(expr, what):
    if not isinstance(expr, _graph.Module):
        raise TypeError(f"{what} expects a graphpat Module (graphpat.relay.parse, "
                        f"graphpat.onnx.load), not {type(expr).__name__}")
    return expr._engine


def _engine_and_native(expr, what):
    """The engine of a Module or a Node, and what it passes to the engine; and how to wrap the
    engine's result (a Module of the same dialect, or the Node itself)."""
    if isinstance(expr, _graph.Module):
        return expr._engine, expr._native, expr._derived
    return _node_engine(expr, what), expr, lambda node: node


__all__ = [
    "DFPattern", "wildcard", "is_op", "is_var", "is_constant", "is_expr", "ExprPattern",
    "is_tuple", "is_tuple_get_item",
    "is_if", "is_let", "dominates", "FunctionPattern", "CallPattern", "TuplePattern",
    "TupleGetItemPattern", "WildcardPattern", "VarPattern", "ConstantPattern", "AltPattern",
    "AndPattern", "NotPattern", "IfPattern", "LetPattern", "DominatorPattern", "AttrPattern",
    "TypePattern", "DataTypePattern", "ShapePattern", "has_attr", "has_type", "has_dtype",
    "has_shape", "DFPatternCallback", "rewrite", "PatternContext", "PatternSeq",
]


class DFPattern:
    """The base of every pattern: operators and methods as TVM's DFPattern has them, and
    Relax's graph-pattern ones (`^`, `>>`, used_by, only_used_by, fork_to, dup,
    same_shape_as), which constrain the PatternContext open around them."""

    _operands = ()

    def __new__(cls, *args, **kwargs):
        made = super().__new__(cls)
        if PatternContext._open:
            PatternContext._open[-1]._made[id(made)] = made
        return made

    def __call__(self, *args):
        # `p(None)`: any arguments, as TVM's text and Relax spell it.
        return CallPattern(self, None if args == (None,) else list(args))

    def __or__(self, other):
        return AltPattern(self, other)

    def __and__(self, other):
        return AndPattern(self, other)

    def __invert__(self):
        return NotPattern(self)

    def __add__(self, other):
        return is_op("add")(self, other)

    def __sub__(self, other):
        return is_op("subtract")(self, other)

    def __mul__(self, other):
        return is_op("multiply")(self, other)

    def __truediv__(self, other):
        return is_op("divide")(self, other)

    def has_attr(self, attrs):
        return AttrPattern(self, attrs)

    def has_type(self, ttype):
        return TypePattern(self, ttype)

    def has_dtype(self, dtype):
        return DataTypePattern(self, dtype)

    def has_shape(self, shape):
        return ShapePattern(self, shape)

    def optional(self, option_constructor):
        return self | option_constructor(self)

    def dominates(self, parent, path=None):
        return DominatorPattern(parent, wildcard() if path is None else path, self)

    def used_by(self, other, index=-1):
        """Relax's `self ^ other`: other's node takes self's as its argument `index` (any
        when -1); returns the PatternSeq [self, other...]."""
        return PatternSeq([self]).used_by(other, index)

    def only_used_by(self, other, index=-1):
        """Relax's `self >> other`: used_by, and nothing else uses self's node."""
        return PatternSeq([self]).only_used_by(other, index)

    def __xor__(self, other):
        return self.used_by(other)

    def __rshift__(self, other):
        return self.only_used_by(other)

    def fork_to(self, *others):
        """self ^ each of `others`."""
        for other in others:
            self.used_by(other)
        return self

    def same_shape_as(self, *others):
        """The nodes of self and `others` have tensor types of the same dims."""
        PatternContext._current("same_shape_as")._constraints.append(
            ("same_shape_as", self, others, None))
        return self

    def dup(self):
        """A pattern of the same shape matching other nodes (Relax's dup)."""
        return _DupPattern(self)

    def text(self):
        """The pattern in TVM's Python spelling, one statement per pattern node."""
        order = _post_order([self])
        names = {id(node): f"p{i}" for i, node in enumerate(order)}
        lines = [f"{names[id(node)]} = {node._spell(lambda p: names[id(p)])}" for node in order]
        lines.append(names[id(self)])
        return "\n".join(lines)

    def _exprs(self):
        """The expressions of the ExprPatterns in this pattern, by the names text() gives them."""
        return {name: node.expr for name, node in _named(self).items()
                if isinstance(node, ExprPattern)}

    def _compiled(self):
        """The engine's pattern, read from text() once: a pattern object does not change after
        it is made (its operands are fixed), so each later match or partition reuses it."""
        compiled = self.__dict__.get("_compiled_pattern")
        if compiled is None:
            compiled = self._compiled_pattern = _graphpat.parse_pattern(self.text(), self._exprs())
        return compiled

    def match(self, expr, relay_compat=False):
        """Whether the pattern matches at `expr` (a Node); `relay_compat`: TVM v0.14's matcher
        rules (graphpat/pattern/matcher.hpp)."""
        engine = _node_engine(expr, "match")
        return engine.match(self._compiled(), expr, relay_compat)

    def explain(self, expr, relay_compat=False):
        """Why the pattern does not match at `expr`, in words ("expected op nn.conv2d, got
        nn.dense; in operand 0 of %12 = nn.bias_add(...)"), or "matched"."""
        engine = _node_engine(expr, "explain")
        return engine.explain(self._compiled(), expr, relay_compat)

    def partition(self, expr, attrs=None, check=None, relay_compat=False):
        """Outlines every match in every function of the module `expr` (or in the expression or
        function Node `expr`, as TVM's pattern.partition(mod["main"])) as TVM's partition does;
        returns (the new Module or Node, a report dict: accepted, rejected and duplicated (a
        sentence each), not_outlined, stopped_matches, cse_merged). `check(pre)` gets the
        group's root (a Node of `expr`) and says whether to outline it; an exception it raises
        is raised from here."""
        engine, native, wrap = _engine_and_native(expr, "partition")
        pairs = [(str(k), str(v)) for k, v in (attrs or {}).items()]
        out, report = engine.partition(self._compiled(), native, pairs, check, relay_compat)
        return wrap(out), report


class _DupPattern(DFPattern):
    def __init__(self, source):
        self._operands = (source,)

    def _spell(self, name):
        return f"{name(self._operands[0])}.dup()"


class PatternSeq:
    """Relax's chain of patterns (`a ^ b >> c`), each step a constraint of the open context."""

    def __init__(self, patterns, links=()):
        self.patterns = list(patterns)
        self._links = list(links)   # (method, index) between patterns[i] and patterns[i + 1]

    def _link(self, method, other, index):
        seq = other if isinstance(other, PatternSeq) else PatternSeq([other])
        _constrain(method, self.patterns[-1], seq.patterns[0], int(index))
        return PatternSeq(self.patterns + seq.patterns,
                          self._links + [(method, int(index))] + seq._links)

    def used_by(self, other, index=-1):
        return self._link("used_by", other, index)

    def only_used_by(self, other, index=-1):
        return self._link("only_used_by", other, index)

    def __xor__(self, other):
        return self.used_by(other)

    def __rshift__(self, other):
        return self.only_used_by(other)

    def dup(self):
        """The chain again, of other nodes, linked as this one is."""
        copies = [p.dup() for p in self.patterns]
        for (method, index), first, second in zip(self._links, copies, copies[1:]):
            _constrain(method, first, second, index)
        return PatternSeq(copies, self._links)


def _constrain(method, pattern, other, index):
    PatternContext._current(method)._constraints.append((method, pattern, (other,), index))


class PatternContext:
    """Relax's PatternContext: several patterns matched at once with constraints between their
    nodes (graphpat/pattern/graph_pattern.hpp). As in Relax, each call pattern made inside the
    `with` block uses its arguments (`arg ^ call` is added for each); `^`, `>>` and the other
    constraints are written inside the block.

        with PatternContext() as ctx:
            x = wildcard()
            q = is_op("nn.dense")(x, wildcard())
            k = is_op("nn.dense")(x, wildcard())
        ctx.match_dfb(mod["main"])[q]          # the first match: pattern -> Node
        fused, report = ctx.partition(mod, attrs={"Composite": "qk"})   # one function each
    """

    _open = []

    def __init__(self, incremental=False):
        if incremental:
            raise NotImplementedError("PatternContext(incremental=True) is not offered by graphpat")
        self._made = {}          # the patterns made inside the block, by id
        self._constraints = []   # (method, pattern, others, index), in the order written

    def __enter__(self):
        if PatternContext._open:
            raise RuntimeError("PatternContext blocks do not nest in graphpat")
        PatternContext._open.append(self)
        return self

    def __exit__(self, *exc):
        PatternContext._open.pop()

    @staticmethod
    def current():
        """The context whose `with` block is open, or None."""
        return PatternContext._open[-1] if PatternContext._open else None

    @staticmethod
    def _current(what):
        if not PatternContext._open:
            raise RuntimeError(f"{what} constrains a PatternContext: write it inside a "
                               "`with PatternContext() as ctx:` block")
        return PatternContext._open[-1]

    def text(self):
        """The context in Relax's spelling, as graphpat's reader reads it: the patterns made
        before the block, then the block with those made in it and the constraints."""
        order = self._order()
        names = {id(node): f"p{i}" for i, node in enumerate(order)}

        def name(pattern):
            return names[id(pattern)]

        outside = [f"{name(n)} = {n._spell(name)}" for n in order if id(n) not in self._made]
        inside = [f"    {name(n)} = {n._spell(name)}" for n in order if id(n) in self._made]
        for method, pattern, others, index in self._constraints:
            arguments = ", ".join(name(o) for o in others)
            if index is not None:
                arguments += f", {index}"
            inside.append(f"    {name(pattern)}.{method}({arguments})")
        return "\n".join(outside + ["with PatternContext() as ctx:"] + inside)

    def _order(self):
        """The patterns of the text in the order it names them: those made in the block and
        those the constraints name, after their operands."""
        roots = list(self._made.values())
        for _, pattern, others, _ in self._constraints:
            roots += [pattern, *others]
        return _post_order(roots)

    def _objects(self):
        return {f"p{i}": node for i, node in enumerate(self._order())}

    def _search(self, expr, first_only, relay_compat):
        engine = _node_engine(expr, "PatternContext.match_dfb")
        objects = self._objects()
        exprs = {n: p.expr for n, p in objects.items() if isinstance(p, ExprPattern)}
        found = engine.graph_match(self.text(), exprs, expr, first_only, relay_compat)
        return [{objects[name]: node for name, node in match.items()} for match in found]

    def match_dfb(self, dfb, relay_compat=False):
        """The first match among the nodes `dfb` (a function Node) reaches, as {pattern: Node}
        for every pattern that bound a node, or None."""
        found = self._search(dfb, True, relay_compat)
        return found[0] if found else None

    def match_all(self, expr, relay_compat=False):
        """Every match among the nodes `expr` reaches, one per set of matched nodes."""
        return self._search(expr, False, relay_compat)

    def partition(self, expr, attrs=None, check=None, relay_compat=False):
        """Outlines every match in every function of the module `expr` into one function,
        returning a tuple of the values used outside it (a QKV block: one function, three
        outputs); returns (the new Module, the report), as DFPattern.partition."""
        engine = _module_engine(expr, "PatternContext.partition")
        objects = self._objects()
        exprs = {n: p.expr for n, p in objects.items() if isinstance(p, ExprPattern)}
        pairs = [(str(k), str(v)) for k, v in (attrs or {}).items()]
        native, report = engine.graph_partition(self.text(), exprs, expr._native, pairs, check,
                                                relay_compat)
        return expr._derived(native), report


def _value(value):
    """A Python value in the spelling the pattern reader reads (a literal)."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_value(k)}: {_value(v)}" for k, v in value.items()) + "}"
    return repr(value)


class WildcardPattern(DFPattern):
    def _spell(self, name):
        return "wildcard()"


class VarPattern(DFPattern):
    def __init__(self, name_hint=""):
        self.name_hint = name_hint

    def _spell(self, name):
        return f"is_var({self.name_hint!r})" if self.name_hint else "is_var()"


class ExprPattern(DFPattern):
    """Matches expressions structurally equal to `expr` (a Node, of any module:
    graphpat.relay.parse_expr("1") makes one)."""

    def __init__(self, expr):
        _node_engine(expr, "is_expr")
        self.expr = expr

    def _spell(self, name):
        return f"is_expr({name(self)})"


class ConstantPattern(DFPattern):
    def _spell(self, name):
        return "is_constant()"


class _OpPattern(DFPattern):
    def __init__(self, op_name):
        self.op_name = op_name

    def _spell(self, name):
        return f"is_op({self.op_name!r})"


class CallPattern(DFPattern):
    def __init__(self, op, args):
        self.op, self.args = op, args
        self._operands = (op,) + tuple(args or ())

    def _spell(self, name):
        if self.args is None:
            return f"{name(self.op)}(None)"
        return f"{name(self.op)}(" + ", ".join(name(a) for a in self.args) + ")"


class TuplePattern(DFPattern):
    def __init__(self, fields):
        self.fields = fields
        self._operands = tuple(fields or ())

    def _spell(self, name):
        if self.fields is None:
            return "is_tuple(None)"
        return "is_tuple([" + ", ".join(name(f) for f in self.fields) + "])"


class TupleGetItemPattern(DFPattern):
    def __init__(self, tuple_value, index=None):
        self.tuple, self.index = tuple_value, index
        self._operands = (tuple_value,)

    def _spell(self, name):
        if self.index is None:
            return f"is_tuple_get_item({name(self.tuple)})"
        return f"is_tuple_get_item({name(self.tuple)}, {int(self.index)})"


class IfPattern(DFPattern):
    def __init__(self, cond, true_branch, false_branch):
        self._operands = (cond, true_branch, false_branch)

    def _spell(self, name):
        return "is_if(" + ", ".join(name(p) for p in self._operands) + ")"


class LetPattern(DFPattern):
    def __init__(self, var, value, body):
        self._operands = (var, value, body)

    def _spell(self, name):
        return "is_let(" + ", ".join(name(p) for p in self._operands) + ")"


class FunctionPattern(DFPattern):
    def __init__(self, params, body):
        self.params, self.body = params, body
        self._operands = tuple(params or ()) + (body,)

    def _spell(self, name):
        params = "None" if self.params is None else "[" + ", ".join(name(p) for p in self.params) + "]"
        return f"FunctionPattern({params}, {name(self.body)})"


class DominatorPattern(DFPattern):
    def __init__(self, parent, path, child):
        self._operands = (parent, path, child)

    def _spell(self, name):
        return "dominates(" + ", ".join(name(p) for p in self._operands) + ")"


class _Binary(DFPattern):
    _symbol = ""

    def __init__(self, left, right):
        self.left, self.right = left, right
        self._operands = (left, right)

    def _spell(self, name):
        return f"{name(self.left)} {self._symbol} {name(self.right)}"


class AltPattern(_Binary):
    _symbol = "|"


class AndPattern(_Binary):
    _symbol = "&"


class NotPattern(DFPattern):
    def __init__(self, pattern):
        self._operands = (pattern,)

    def _spell(self, name):
        return f"~{name(self._operands[0])}"


class _Constraint(DFPattern):
    _method = ""

    def __init__(self, pattern, value):
        self.pattern, self.value = pattern, value
        self._operands = (pattern,)

    def _spell(self, name):
        return f"{name(self.pattern)}.{self._method}({_value(self.value)})"


class AttrPattern(_Constraint):
    _method = "has_attr"


class TypePattern(_Constraint):
    _method = "has_type"


class DataTypePattern(_Constraint):
    _method = "has_dtype"


class ShapePattern(_Constraint):
    _method = "has_shape"


def wildcard():
    return WildcardPattern()


def is_op(op_name):
    return _OpPattern(op_name)


def is_var(name=""):
    return VarPattern(name)


def is_constant():
    return ConstantPattern()


def is_expr(expr):
    return ExprPattern(expr)


def is_tuple(fields):
    return TuplePattern(fields)


def is_tuple_get_item(tuple_value, index=None):
    return TupleGetItemPattern(tuple_value, index)


def is_if(cond, true_branch, false_branch):
    return IfPattern(cond, true_branch, false_branch)


def is_let(var, value, body):
    return LetPattern(var, value, body)


def dominates(parent, path, child):
    return DominatorPattern(parent, path, child)


def has_attr(attrs, pattern=None):
    return (wildcard() if pattern is None else pattern).has_attr(attrs)


def has_type(ttype, pattern=None):
    return (wildcard() if pattern is None else pattern).has_type(ttype)


def has_dtype(dtype, pattern=None):
    return (wildcard() if pattern is None else pattern).has_dtype(dtype)


def has_shape(shape, pattern=None):
    return (wildcard() if pattern is None else pattern).has_shape(shape)


class DFPatternCallback:
    """A rewrite callback as TVM's: set `self.pattern` and define callback(pre, post, node_map),
    which returns the replacement of `post`. node_map maps each pattern to the nodes it bound
    (post-rewrite); graphpat.relay.call(op, *args, **attrs) (graphpat.onnx.call in an ONNX
    module) builds a call while a callback runs. Nodes
    seen by a callback are valid during the callback only; read after it, they raise ValueError."""

    def __init__(self, require_type=False, rewrite_once=False):
        self.pattern = None
        self.require_type = require_type
        self.rewrite_once = rewrite_once

    def callback(self, pre, post, node_map):
        raise NotImplementedError("a DFPatternCallback defines callback(pre, post, node_map)")

    def _spec(self):
        if self.require_type:
            raise NotImplementedError("require_type=True: graphpat has no type inference yet")
        text = self.pattern.text()
        objects = _named(self.pattern)

        def run(pre, post, bound, make_call, make_const):
            node_map = {objects[name]: nodes for name, nodes in bound.items()}
            _builders.append((make_call, make_const))
            try:
                return self.callback(pre, post, node_map)
            finally:
                _builders.pop()

        return (text, text.rsplit("\n", 1)[-1], run, self.rewrite_once, self.pattern._exprs())


_builders = []


def _build(op_name, args, attrs):
    """A call built in the graph of the rewrite callback running now (relay.call, onnx.call)."""
    if not _builders:
        raise RuntimeError("calls are built inside a rewrite callback only")
    return _builders[-1][0](op_name, list(args), attrs)


def _build_constant(literal):
    """A scalar constant (its Relay literal: `1f`) built in the graph of the rewrite callback
    running now, or None outside one (relay.const)."""
    return _builders[-1][1](literal) if _builders else None


def _post_order(roots):
    """Every pattern object `roots` reach, each after its operands, without recursion."""
    order, seen, stack = [], set(), [(root, False) for root in reversed(roots)]
    while stack:
        node, ready = stack.pop()
        if id(node) in seen:
            continue
        if ready:
            seen.add(id(node))
            order.append(node)
            continue
        stack.append((node, True))
        for operand in reversed(node._operands):
            if id(operand) not in seen:
                stack.append((operand, False))
    return order


def _named(pattern):
    """The name text() gives each pattern object of `pattern`, mapped back to the object."""
    return {f"p{i}": node for i, node in enumerate(_post_order([pattern]))}


def rewrite(callbacks, expr, relay_compat=False):
    """Rewrites every function of the module `expr` (or the expression or function Node
    `expr`, as TVM's rewrite(callback, mod["main"])) with the callbacks (one or a list) to a
    fixed point, as TVM's rewrite does; returns the new Module (or Node). An exception raised
    by a callback is raised from here."""
    if isinstance(callbacks, DFPatternCallback):
        callbacks = [callbacks]
    engine, native, wrap = _engine_and_native(expr, "rewrite")
    specs = [c._spec() for c in callbacks]
    return wrap(engine.rewrite(specs, native, relay_compat))
