"""graphpat: dataflow patterns over Relay and ONNX graphs, driven by graphpat's C++ engine.

    import graphpat.relay, graphpat.onnx, graphpat.dpl, graphpat.transform
    mod = graphpat.relay.parse(text)                    # TVM's Relay text (or onnx.load(path))
    pattern = graphpat.dpl.is_op("nn.relu")(graphpat.dpl.wildcard())
    partitioned, report = pattern.partition(mod, attrs={"Composite": "relu"})
    merged, counts = graphpat.transform.eliminate_common_subexpr(mod)

Every failure on bad input is a graphpat.Error carrying the stable id of docs/errors.md.
"""
import re


class Error(Exception):
    """A graphpat error: `.id` ("graphpat.relay_text.unexpected_token"), `.problem` (the
    message after the id), and the place: `.line`/`.column` when the problem starts with
    `L:C: `, else `.path` when it starts with a JSON place (`/functions/0: `, `nodes[3]: `)."""

    _LINE_COLUMN = re.compile(r"^(\d+):(\d+): ")
    _PATH = re.compile(r"^((?:/|nodes\[|root|attrs)[^ ]*): ")

    def __init__(self, id, problem, message):
        super().__init__(message)
        self.id = id
        self.problem = problem
        self.line = self.column = self.path = None
        place = self._LINE_COLUMN.match(problem)
        if place:
            self.line, self.column = int(place.group(1)), int(place.group(2))
        else:
            path = self._PATH.match(problem)
            if path:
                self.path = path.group(1)


from . import _graphpat  # noqa: E402  (the extension raises Error, defined above)
from ._graph import structural_equal  # noqa: E402

__all__ = ["Error", "structural_equal"]
