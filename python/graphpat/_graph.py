"""What Relay and ONNX modules and nodes share in Python (graphpat.relay, graphpat.onnx): the
module wrapper, TVM-style attribute access, constants as numpy arrays, DOT pictures.

    mod = graphpat.onnx.load("resnet18.onnx")   # or graphpat.relay.parse(text)
    main = mod["main"]
    conv = main.body.args[0]                    # a Node: .op .attrs .operands .users .data
    mod                                         # a notebook shows the picture (_repr_svg_)
"""
import shutil
import subprocess


class Attrs(dict):
    """A call's or function's attributes: a dict also read as TVM reads attrs
    (`call.attrs.data_layout`)."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None


def _data(node):
    """A constant's value as a read-only numpy array over the graph's own bytes (no copy);
    None for other nodes and for a constant whose bytes the file did not carry."""
    tensor = node.tensor
    if tensor is None:
        return None
    import numpy
    return numpy.asarray(tensor)


def add_node_properties(node_class):
    """Gives a dialect's native Node class the Python-side properties."""
    node_class.attrs = property(
        lambda node: None if node.attrs_dict is None else Attrs(node.attrs_dict),
        doc="The attributes of a call or function (Attrs), else None.")
    node_class.data = property(_data, doc=_data.__doc__)
    node_class.__repr__ = _node_repr


def _node_repr(node):
    words = " ".join(w for w in (node.kind, node.op or node.name) if w)
    return f"<graphpat Node %{node.index} {words}>"


def svg(dot_text):
    """Graphviz's SVG of `dot_text` (the `dot` program), or None when it is not installed."""
    program = shutil.which("dot")
    if program is None:
        return None
    done = subprocess.run([program, "-Tsvg"], input=dot_text.encode(), capture_output=True,
                          check=True)
    return done.stdout.decode()


def structural_equal(lhs, rhs, compare_types=False):
    """TVM's tvm.ir.structural_equal: two Nodes (functions, expressions) or two Modules of one
    dialect equal as graphs, variables paired by position; types compared when asked."""
    if isinstance(lhs, Module) and isinstance(rhs, Module):
        lhs, rhs = lhs._native, rhs._native
    if type(lhs) is not type(rhs) or getattr(lhs, "_engine", None) is None:
        raise TypeError("structural_equal compares two Nodes or two Modules of one dialect, not "
                        f"{type(lhs).__name__} and {type(rhs).__name__}")
    return lhs._engine.structural_equal(lhs, rhs, compare_types)


class Module:
    """A module (immutable here: passes return a new one), subclassed per dialect."""

    def __init__(self, native):
        self._native = native

    @property
    def _engine(self):
        """The extension's submodule of this module's dialect (its match, partition, ...)."""
        return self._native._engine

    def functions(self):
        """The names of the module's global functions, in order."""
        return self._native.function_names()

    def __getitem__(self, name):
        node = self._engine.function(self._native, name)
        if node is None:
            raise KeyError(name)
        return node

    def node_count(self):
        return self._native.node_count()

    def to_dot(self, function="main", cluster_partitioned_functions=True):
        """Graphviz DOT text of one function; each group partition or merge_composite made is
        a labelled cluster of its body (cluster_partitioned_functions)."""
        return self._native.to_dot(function, cluster_partitioned_functions)

    def _repr_svg_(self):
        if "main" not in self.functions():
            return None
        return svg(self.to_dot())

    def _derived(self, native):
        """A module a pass made of this one, of the same dialect."""
        return type(self)(native)
