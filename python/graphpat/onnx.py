"""ONNX models (`.onnx` files) as graphpat modules: read, matched, partitioned, rewritten and
written back, an unchanged model byte for byte (graphpat/io/onnx.hpp says what a file becomes:
the main graph is function `main`, each NodeProto a call of its op, `Conv` or
`com.microsoft.FusedConv`, its attributes a dict).

    mod = graphpat.onnx.load("resnet18.onnx")
    conv = graphpat.dpl.is_op("Conv")(graphpat.dpl.wildcard(), graphpat.dpl.wildcard(),
                                      graphpat.dpl.wildcard())
    out, report = conv.partition(mod, attrs={"Composite": "conv"})
    graphpat.onnx.save(out, "partitioned.onnx")   # each group a FunctionProto
"""
import os

from . import _graphpat, _graph

Node = _graphpat.onnx.Node
_graph.add_node_properties(Node)


class Module(_graph.Module):
    """An ONNX module (immutable here: passes return a new one); what it descends from by load
    is kept, so that what a pass did not change is written as the file had it."""

    def save(self):
        """The serialized ModelProto (bytes)."""
        return self._native.save()


def load(source):
    """Reads a model: a path (str or os.PathLike) or the file's bytes; raises graphpat.Error."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        with open(os.fspath(source), "rb") as file:
            data = file.read()
    return Module(_graphpat.onnx.load(data))


def save(module, path=None):
    """Writes `module` as a serialized ModelProto: returns the bytes, and writes them to `path`
    when given; raises graphpat.Error when the module cannot be written."""
    data = module.save()
    if path is not None:
        with open(os.fspath(path), "wb") as file:
            file.write(data)
    return data


def call(op_name, *args, **attrs):
    """A call of the ONNX op `op_name` ("Relu", "com.microsoft.FusedConv") on `args`, with the
    attributes `attrs` (int -> INT, float -> FLOAT, str -> STRING, lists -> INTS, FLOATS,
    STRINGS), built in the graph being rewritten: inside DFPatternCallback.callback only."""
    from . import dpl
    return dpl._build(op_name, args, attrs)
