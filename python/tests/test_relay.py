"""graphpat.relay: reading and writing Relay modules, the node view, errors."""
import pytest

import graphpat
import graphpat.relay as relay
from conftest import DATA

TEXT = """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8), float32]) -> Tensor[(1, 8), float32] {
  %0 = nn.relu(%x) /* ty=Tensor[(1, 8), float32] */;
  add(%0, 1f /* ty=float32 */) /* ty=Tensor[(1, 8), float32] */
}
"""


def test_parse_and_astext_round_trip():
    mod = relay.parse(TEXT)
    assert mod.astext() == TEXT
    assert mod.functions() == ["main"]


def test_node_view():
    main = relay.parse(TEXT)["main"]
    assert main.kind == "Function"
    add = main.body
    assert (add.kind, add.op, add.type_text) == ("Call", "add", "Tensor[(1, 8), float32]")
    relu, one = add.args
    assert (relu.op, one.kind, one.type_text) == ("nn.relu", "Constant", "float32")
    (x,) = relu.args
    assert (x.kind, x.name, x.op) == ("Var", "x", None)
    assert relu.astext().endswith("nn.relu(%x) /* ty=Tensor[(1, 8), float32] */")
    with pytest.raises(KeyError):
        relay.parse(TEXT)["other"]


def test_json_round_trip():
    text = (DATA / "corpus" / "models" / "mlp.unbound.json").read_text()
    mod = relay.load_json(text)
    assert relay.save_json(mod) == relay.save_json(relay.load_json(relay.save_json(mod)))
    assert relay.load_json(relay.save_json(mod)).astext() == mod.astext()


def test_text_error_has_id_line_and_column():
    with pytest.raises(graphpat.Error) as caught:
        relay.parse('#[version = "0.0.5"]\ndef @main(%x) {\n  nn.relu(%x\n}\n')
    error = caught.value
    assert error.id == "graphpat.relay_text.unexpected_token"
    assert (error.line, error.column, error.path) == (4, 1, None)
    assert str(error).startswith("[graphpat.relay_text.unexpected_token] 4:1: ")


def test_json_error_is_a_graphpat_error():
    with pytest.raises(graphpat.Error) as caught:
        relay.load_json("{")
    assert caught.value.id.startswith("graphpat.relay_json.")
