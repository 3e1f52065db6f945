"""Relay modules: read and written as TVM does (text, `tvm.ir.save_json`), viewed read-only.

    mod = graphpat.relay.parse(open("mobilenet_v2.relay").read())
    main = mod["main"]                   # a Node: .kind .op .name .type_text .attrs .operands
                                         # .args .users, .data (a constant's numpy array)
    text = mod.astext()                  # byte for byte as TVM v0.14 prints it
    again = graphpat.relay.load_json(graphpat.relay.save_json(mod))
"""
from . import _graphpat, _graph

Node = _graphpat.relay.Node
_graph.add_node_properties(Node)


class Module(_graph.Module):
    """A Relay module (immutable here: passes return a new one)."""

    def astext(self, show_meta_data=True):
        return self._native.astext("astext" if show_meta_data else "astext_no_meta")

    def __str__(self):
        return self._native.astext("str")


def parse(text):
    """Reads TVM's Relay text (`mod.astext()`, `str(mod)`); raises graphpat.Error."""
    return Module(_graphpat.relay.parse_text(text))


fromtext = parse


def parse_expr(text):
    """Reads a bare expression (what TVM's `str(expr)` prints: `free_var %x;\nadd(%x, 1f)`, or
    `1`), as a Node of a module of its own; raises graphpat.Error."""
    return _graphpat.relay.parse_expression(text)


def load_json(json):
    """Reads a `tvm.ir.save_json` file's text (TVM 0.7 to 0.19); raises graphpat.Error."""
    return Module(_graphpat.relay.load_json(json))


def save_json(module):
    """Writes `module` as TVM v0.14's save_json does."""
    return module._native.save_json()


def TensorType(shape, dtype="float32"):
    """A tensor type as graphpat's patterns take it: its Relay text (`Tensor[(10, 10), float32]`),
    so that `has_type(relay.TensorType((10, 10), "float32"))` reads as in TVM."""
    dims = ", ".join(str(d) for d in shape)
    if len(shape) == 1:
        dims += ","
    return f"Tensor[({dims}), {dtype}]"


def call(op_name, *args, **attrs):
    """A call of `op_name` on `args` with the attributes `attrs` (TVM's keyword arguments:
    `call("nn.conv2d", x, w, strides=[2, 2], channels=16)`; the others at their defaults), built
    in the graph being rewritten: for DFPatternCallback.callback (graphpat.dpl), the only place
    it works."""
    from . import dpl
    return dpl._build(op_name, args, attrs)


def const(value, dtype=None):
    """A scalar constant as TVM's relay.const makes it from a Python bool, int or float (int32,
    float32 unless `dtype` says otherwise): inside a rewrite callback, a node of the graph being
    rewritten (an argument for call()); elsewhere a Node of a module of its own (for is_expr)."""
    if isinstance(value, bool):
        text = "True" if value else "False"
    elif isinstance(value, int):
        text = f"{value}" if dtype in (None, "int32") else f"{value}{_suffix(dtype)}"
    elif isinstance(value, float):
        text = f"{value!r}{_suffix(dtype or 'float32')}"
    else:
        raise TypeError(f"const takes a bool, int or float, not {type(value).__name__}")
    from . import dpl
    built = dpl._build_constant(text)
    return parse_expr(text) if built is None else built


def _suffix(dtype):
    suffixes = {"int64": "i64", "float32": "f", "float64": "f64", "float16": "f16"}
    if dtype not in suffixes:
        raise ValueError(f"const: no literal of dtype {dtype}")
    return suffixes[dtype]
