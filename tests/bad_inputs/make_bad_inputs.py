"""Writes the files of tests/bad_inputs/ (run from anywhere: python3 make_bad_inputs.py).

The files are committed; this script says how the binary parts were made (NDArray blobs with
absurd shapes, claimed lengths, invalid UTF-8 bytes). MANIFEST.tsv is written by hand.
"""
import base64, json, os, struct

D = os.path.dirname(os.path.abspath(__file__)) + '/'
def w(name, data):
    if isinstance(data, str): data = data.encode()
    open(D+name,'wb').write(data)

def blob(shape, code=2, bits=32, lanes=1, count=None, data=None, magic=0xDD5E40F096B4A13F, device=1, ndim=None):
    n = 1
    for s in shape: n *= s
    eb = ((bits+7)//8)*lanes
    if data is None: data = bytes(min(n*eb, 64)) if count is None else b''
    if count is None: count = n*eb
    raw = struct.pack('<QQiiiBBH', magic, 0, device, 0, len(shape) if ndim is None else ndim, code, bits, lanes)
    raw += b''.join(struct.pack('<q', s) for s in shape)
    raw += struct.pack('<q', count) + data
    return base64.b64encode(raw).decode()

HEAD = '#[version = "0.0.5"]\n'
# ---------------- Relay text: parse_text ----------------
T = {}
T['text_truncated_body.relay'] = HEAD + 'def @main(%x: Tensor[(1, 3), float32]) {\n  nn.relu(%x)\n'
T['text_truncated_call.relay'] = HEAD + 'def @main(%x: Tensor[(1, 3), float32]) {\n  add(%x, '
T['text_truncated_params.relay'] = HEAD + 'def @main(%x: Tensor[(1, 3'
T['text_truncated_string.relay'] = HEAD + 'def @main(%x, %w) {\n  nn.conv2d(%x, %w, data_layout="NCH)\n}\n'
T['text_truncated_comment.relay'] = HEAD + 'def @main(%x) {\n  nn.relu(%x) /* ty=Tensor[(1, 3), float32]\n}\n'
T['text_truncated_header.relay'] = '#[version = "0.0.5"\ndef @main(%x) {\n  %x\n}\n'
T['text_def_without_at.relay'] = HEAD + 'def main(%x) {\n  %x\n}\n'
T['text_missing_operand.relay'] = HEAD + 'def @main(%x) {\n  %x + \n}\n'
T['text_stray_character.relay'] = HEAD + 'def @main(%x) {\n  nn.relu($x)\n}\n'
T['text_control_character.relay'] = HEAD + 'def @main(%x) {\n  nn.relu(%x)\x01\n}\n'
T['text_lone_carriage_return.relay'] = HEAD + 'def @main(%x) {\r  %x\n}\n'
T['text_missing_else.relay'] = HEAD + 'def @main(%c: bool, %x) {\n  if (%c) {\n    %x\n  }\n}\n'
T['text_let_without_body.relay'] = HEAD + 'def @main(%x) {\n  let %y = %x;\n}\n'
T['text_binding_without_value.relay'] = HEAD + 'def @main(%x) {\n  %0 = ;\n  %0\n}\n'
T['text_attr_after_args_then_arg.relay'] = HEAD + 'def @main(%x) {\n  nn.softmax(axis=1, %x)\n}\n'
T['text_unknown_header.relay'] = '#[vers = "0.0.5"]\ndef @main(%x) {\n  %x\n}\n'
T['text_bad_version.relay'] = '#[version = "0.0.4"]\ndef @main(%x) {\n  %x\n}\n'
T['text_adt_definition.relay'] = HEAD + 'type List[A] {\n  Cons(A, List[A]),\n  Nil,\n}\n'
T['text_match_expression.relay'] = HEAD + 'def @main(%x) {\n  match (%x) {\n    _ => %x,\n  }\n}\n'
T['text_ref_expression.relay'] = HEAD + 'def @main(%x) {\n  ref(%x)\n}\n'
T['text_adt_type_annotation.relay'] = HEAD + 'def @main(%x: List[int32]) {\n  %x\n}\n'
T['text_virtual_device_param.relay'] = HEAD + 'def @main(%x {virtual_device=VirtualDevice(1)}) {\n  %x\n}\n'
T['text_meta_expression_kind.relay'] = HEAD + 'def @main(%x) {\n  add(%x, meta[relay.Var][0])\n}\n'
T['text_duplicate_def.relay'] = HEAD + 'def @main(%x) {\n  %x\n}\n\ndef @main(%y) {\n  %y\n}\n'
T['text_undefined_var.relay'] = HEAD + 'def @main(%x) {\n  add(%x, %y)\n}\n'
T['text_undefined_binding.relay'] = HEAD + 'def @main(%x) {\n  %0 = nn.relu(%x);\n  add(%0, %1)\n}\n'
T['text_var_out_of_scope.relay'] = HEAD + 'def @f(%a) {\n  %a\n}\n\ndef @main(%x) {\n  add(%x, %a)\n}\n'
T['text_type_dim_float.relay'] = HEAD + 'def @main(%x: Tensor[(1, 3.5), float32]) {\n  %x\n}\n'
T['text_type_dim_nan.relay'] = HEAD + 'def @main(%x: Tensor[(1, nanf), float32]) {\n  %x\n}\n'
T['text_type_missing_dtype.relay'] = HEAD + 'def @main(%x: Tensor[(1, 3), ]) {\n  %x\n}\n'
T['text_type_dim_overflow.relay'] = HEAD + 'def @main(%x: Tensor[(99999999999999999999), float32]) {\n  %x\n}\n'
T['text_literal_overflow.relay'] = HEAD + 'def @main(%x) {\n  add(%x, 99999999999999999999)\n}\n'
T['text_literal_bad_suffix.relay'] = HEAD + 'def @main(%x) {\n  add(%x, 1i7)\n}\n'
T['text_literal_malformed.relay'] = HEAD + 'def @main(%x) {\n  add(%x, 1.2.3f)\n}\n'
T['text_nan_axis.relay'] = HEAD + 'def @main(%x) {\n  nn.softmax(%x, axis=nanf)\n}\n'
T['text_nan_tuple_index.relay'] = HEAD + 'def @main(%x) {\n  (%x, %x).nanf\n}\n'
T['text_attr_wrong_type.relay'] = HEAD + 'def @main(%x, %w) {\n  nn.conv2d(%x, %w, strides=[1, "a"])\n}\n'
T['text_bad_span.relay'] = HEAD + 'def @main(%x) {\n  nn.relu(%x) /* ty=Tensor[(1, 3), float32] span=model.py:x:3 */\n}\n'
T['text_scalar_annotation_mismatch.relay'] = HEAD + 'def @main(%x) {\n  add(%x, 1i64 /* ty=int32 */)\n}\n'
T['text_invalid_utf8_string.relay'] = HEAD.encode() + b'def @main(%x, %w) {\n  nn.conv2d(%x, %w, data_layout="NC\xffHW")\n}\n'
T['text_invalid_utf8_name.relay'] = HEAD.encode() + b'def @main(%\xc3\x28) {\n  %x\n}\n'
# metadata section
def meta(blobs, const_data='0', extra_nodes=None):
    nodes = [{"type_key": ""}, {"type_key": "Map", "keys": ["relay.Constant"], "data": [2]},
             {"type_key": "Array", "data": [3]},
             {"type_key": "relay.Constant", "attrs": {"_checked_type_": "0", "data": const_data, "span": "0", "virtual_device_": "0"}}]
    return json.dumps({"root": 1, "nodes": nodes, "b64ndarrays": blobs, "attrs": {"tvm_version": "0.14.0"}}, indent=2)
MOD = HEAD + 'def @main(%x: Tensor[(2, 2), float32]) {\n  add(%x, meta[relay.Constant][0] /* ty=Tensor[(2, 2), float32] */)\n}\n\n#[metadata]\n'
T['text_meta_not_json.relay'] = MOD + '{"root": 1, "nodes": [\n'
T['text_meta_bad_base64.relay'] = MOD + meta(["AAAA$$$="])
T['text_meta_byte_count_mismatch.relay'] = MOD + meta([blob([2, 2], count=8, data=bytes(8))])
T['text_meta_absurd_dims.relay'] = MOD + meta([blob([1 << 62, 4], count=0, data=b'')])
T['text_meta_claims_1gb.relay'] = MOD + meta([blob([1 << 28], data=bytes(16))])
T['text_meta_missing_constant.relay'] = HEAD + 'def @main(%x: Tensor[(2, 2), float32]) {\n  add(%x, meta[relay.Constant][1] /* ty=Tensor[(2, 2), float32] */)\n}\n\n#[metadata]\n' + meta([blob([2, 2])])
T['text_meta_index_overflow.relay'] = HEAD + 'def @main(%x) {\n  add(%x, meta[relay.Constant][99999999999999999999])\n}\n'
T['text_meta_data_index_out_of_range.relay'] = MOD + meta([blob([2, 2])], const_data='7')
T['text_meta_annotation_mismatch.relay'] = MOD + meta([blob([3], code=0, bits=8)])
T['text_meta_bad_magic.relay'] = MOD + meta([blob([2, 2], magic=0x1234)])
T['text_meta_bad_dtype_code.relay'] = MOD + meta([blob([2], code=3, bits=64)])
for k, v in T.items(): w(k, v)
# ---------------- Relay text: parse_expression ----------------
E = {}
E['expr_trailing_tokens.relay'] = 'free_var %x;\nnn.relu(%x) %x'
E['expr_free_var_without_name.relay'] = 'free_var ;\n%x'
E['expr_keyword_as_expression.relay'] = 'free_var %x;\nadd(%x, def)'
E['expr_unclosed_tuple.relay'] = 'free_var %x;\n(%x, %x'
for k, v in E.items(): w(k, v)
# ---------------- TVM JSON ----------------
def var_nodes(first=1):
    # Var at `first`, Id at first+1, String at first+2
    return [{"type_key": "relay.Var", "attrs": {"_checked_type_": "0", "span": "0", "type_annotation": "0", "vid": str(first+1), "virtual_device_": "0"}},
            {"type_key": "relay.Id", "attrs": {"name_hint": str(first+2)}},
            {"type_key": "runtime.String", "repr_str": "x"}]
def doc(nodes, root=1, blobs=None, attrs=None):
    d = {"root": root, "nodes": nodes, "b64ndarrays": blobs if blobs is not None else []}
    d["attrs"] = attrs if attrs is not None else {"tvm_version": "0.14.0"}
    return json.dumps(d, indent=2)
NULL = {"type_key": ""}
def const_doc(b):
    return doc([NULL, {"type_key": "relay.Constant", "attrs": {"_checked_type_": "0", "data": "0", "span": "0", "virtual_device_": "0"}}], blobs=[b])
# a call add(%x, %x): 1 Call, 2 Op, 3 Array args [4,4], 4.. var
def call_doc(op_ref="2", args_ref="3", args_data=None, extra=None):
    nodes = [NULL,
             {"type_key": "relay.Call", "attrs": {"_checked_type_": "0", "args": args_ref, "attrs": "0", "op": op_ref, "span": "0", "type_args": "7", "virtual_device_": "0"}},
             {"type_key": "Op", "repr_str": "add"},
             {"type_key": "Array", "data": args_data if args_data is not None else [4, 4]}] + var_nodes(4) + [{"type_key": "Array"}]
    if extra: nodes += extra
    return nodes
J = {}
J['json_empty.json'] = ''
J['json_truncated.json'] = doc(call_doc())[:200]
J['json_not_an_object.json'] = '[1, 2, 3]'
J['json_missing_root.json'] = json.dumps({"nodes": [NULL], "b64ndarrays": []})
J['json_root_dangling.json'] = doc([NULL] + var_nodes(), root=9)
J['json_root_is_string.json'] = doc([NULL] + var_nodes(), root="1")
J['json_nodes_is_object.json'] = json.dumps({"root": 1, "nodes": {"type_key": ""}})
J['json_empty_nodes.json'] = json.dumps({"root": 0, "nodes": []})
J['json_node0_not_null.json'] = doc([{"type_key": "relay.Var"}] + var_nodes())
J['json_dangling_op.json'] = doc(call_doc(op_ref="99"))
J['json_dangling_array_element.json'] = doc(call_doc(args_data=[4, 42]))
J['json_cyclic_call.json'] = doc(call_doc(args_data=[4, 1]))
# the call's attrs (node 8) are an object of a type graphpat does not know, whose elements
# ("data") lead back to the call: a save with provenance copies them, so the cycle is refused
def cycle_through_elements():
    nodes = call_doc(extra=[{"type_key": "relay.attrs.VendorAttrs", "data": [1]}])
    nodes[1]["attrs"]["attrs"] = "8"
    return doc(nodes)
J['json_cycle_through_object_elements.json'] = cycle_through_elements()
J['json_attr_not_string.json'] = doc(call_doc(op_ref=2))
J['json_data_negative.json'] = doc(call_doc(args_data=[4, -1]))
J['json_type_key_number.json'] = doc([NULL, {"type_key": 7}])
J['json_unknown_node_member.json'] = doc([NULL, {"type_key": "relay.Var", "colour": "red"}])
J['json_duplicate_key.json'] = '{"root": 1, "root": 1, "nodes": [{"type_key": ""}]}'
J['json_unknown_expression.json'] = doc([NULL, {"type_key": "relay.Frobnicate", "attrs": {}}])
J['json_ref_create.json'] = doc([NULL, {"type_key": "relay.RefCreate", "attrs": {"value": "2", "span": "0", "_checked_type_": "0", "virtual_device_": "0"}}] + var_nodes(2))
J['json_var_without_vid.json'] = doc([NULL, {"type_key": "relay.Var", "attrs": {"_checked_type_": "0", "span": "0", "type_annotation": "0", "virtual_device_": "0"}}])
J['json_tuple_index_nan.json'] = doc([NULL, {"type_key": "relay.TupleGetItem", "attrs": {"_checked_type_": "0", "index": "nan", "span": "0", "tuple_value": "2", "virtual_device_": "0"}}] + var_nodes(2))
J['json_intimm_inf.json'] = doc([NULL] + var_nodes()[:1] + var_nodes()[1:] + [
    {"type_key": "relay.TensorType", "attrs": {"dtype": "float32", "shape": "5", "span": "0"}},
    {"type_key": "Array", "data": [6]},
    {"type_key": "IntImm", "attrs": {"dtype": "int32", "span": "0", "value": "inf"}}]).replace('"type_annotation": "0"', '"type_annotation": "4"', 1)
J['json_bad_base64.json'] = const_doc("AAAA$$$=")
J['json_byte_count_mismatch.json'] = const_doc(blob([2, 2], count=8, data=bytes(8)))
J['json_absurd_dims.json'] = const_doc(blob([1 << 62, 4], count=0, data=b''))
J['json_claims_1gb.json'] = const_doc(blob([1 << 28], data=bytes(16)))
J['json_negative_dim.json'] = const_doc(blob([-2, 2], count=0, data=b''))
J['json_rank_too_big.json'] = const_doc(blob([], ndim=1000, data=b''))
J['json_truncated_blob.json'] = const_doc(blob([2, 2])[:20])
J['json_bad_dtype_code.json'] = const_doc(blob([2], code=3, bits=64))
J['json_blob_index_dangling.json'] = doc([NULL, {"type_key": "relay.Constant", "attrs": {"_checked_type_": "0", "data": "3", "span": "0", "virtual_device_": "0"}}], blobs=[blob([1])])
J['json_invalid_utf8.json'] = doc([NULL] + var_nodes()).replace('"repr_str": "x"', '"repr_str": "x\udcff"').encode('utf-8', 'surrogateescape')
J['json_old_version.json'] = doc([NULL] + var_nodes(), attrs={"tvm_version": "0.6.0"})
J['json_repr_b64_claims_1gb.json'] = doc([NULL, {"type_key": "runtime.String", "repr_b64": base64.b64encode(struct.pack('<Q', 1 << 30) + b'abc').decode()}])
for k, v in J.items(): w(k, v)
# ---------------- pattern text ----------------
P = {}
P['pattern_empty.txt'] = ''
P['pattern_only_comment.txt'] = '# nothing here\n'
P['pattern_unknown_name.txt'] = "is_opp('add')(wildcard(), wildcard())"
P['pattern_unterminated_string.txt'] = "is_op('nn.relu)(wildcard())"
P['pattern_unbalanced_parens.txt'] = "is_op('nn.relu')(wildcard()"
P['pattern_truncated_operator.txt'] = "wildcard() |"
P['pattern_bad_number.txt'] = "is_tuple_get_item(wildcard(), 1x)"
P['pattern_op_name_not_string.txt'] = "is_op(1)(wildcard())"
P['pattern_index_not_int.txt'] = "is_tuple_get_item(wildcard(), 'zero')"
P['pattern_shape_inf.txt'] = "wildcard().has_shape([1, 1e999])"
P['pattern_attr_nan.txt'] = "is_op('nn.leaky_relu')(wildcard()).has_attr({'alpha': float('nan')})"
P['pattern_invalid_utf8.txt'] = b"is_op('nn.re\xfflu')(wildcard())"
P['pattern_bad_assignment.txt'] = "a.b = wildcard()\na.b"
P['pattern_unknown_method.txt'] = "wildcard().has_attrr({'axis': 1})"
P['pattern_is_expr_unknown.txt'] = "is_expr(zero)"
P['pattern_lambda_two_args.txt'] = "wildcard().optional(lambda x, y: x)"
P['pattern_undefined_variable.txt'] = "conv = is_op('nn.conv2d')(wildcard(), wildcard())\nis_op('nn.relu')(con)"
P['pattern_has_type_bad_text.txt'] = "wildcard().has_type('Tensor[(1, 3), ]')"
P['pattern_stray_character.txt'] = "wildcard() $ wildcard()"
P['pattern_attr_value_unsupported.txt'] = "is_op('nn.softmax')(wildcard()).has_attr({'axis': lambda x: x})"
for k, v in P.items(): w(k, v)
# ---------------- valid inputs over a small limit ----------------
w('limit_text_chain.relay', HEAD + 'def @main(%x) {\n  %0 = nn.relu(%x);\n  %1 = nn.relu(%0);\n  nn.relu(%1)\n}\n')
w('limit_text_nested.relay', HEAD + 'def @main(%x) {\n  nn.relu(nn.relu(nn.relu(%x)))\n}\n')
w('limit_text_constant.relay', HEAD + 'def @main(%x: Tensor[(2, 2), float32]) {\n  add(%x, meta[relay.Constant][0] /* ty=Tensor[(2, 2), float32] */)\n}\n\n#[metadata]\n' + meta([blob([2, 2])]))
w('limit_json_chain.json', doc([NULL,
   {"type_key": "relay.Call", "attrs": {"_checked_type_": "0", "args": "3", "attrs": "0", "op": "2", "span": "0", "type_args": "7", "virtual_device_": "0"}},
   {"type_key": "Op", "repr_str": "nn.relu"},
   {"type_key": "Array", "data": [4]}] + var_nodes(4) + [{"type_key": "Array"}]))
w('limit_json_constant.json', const_doc(blob([2, 2])))
w('limit_json_typed_var.json', doc([NULL, {"type_key": "relay.Var", "attrs": {"_checked_type_": "4", "span": "0", "type_annotation": "0", "vid": "2", "virtual_device_": "0"}},
   {"type_key": "relay.Id", "attrs": {"name_hint": "3"}}, {"type_key": "runtime.String", "repr_str": "x"},
   {"type_key": "TupleType", "attrs": {"fields": "5", "span": "0"}}, {"type_key": "Array", "data": [6]},
   {"type_key": "TupleType", "attrs": {"fields": "7", "span": "0"}}, {"type_key": "Array", "data": [8]},
   {"type_key": "TupleType", "attrs": {"fields": "9", "span": "0"}}, {"type_key": "Array", "data": []}]))
w('limit_pattern_nested.txt', "is_op('nn.relu')(is_op('nn.relu')(is_op('nn.relu')(wildcard())))")

# h2-patterns: issue 21 classes 3 and 8 in the pattern text
w('pattern_redirect_self.txt', "w = wildcard()\nw.redirect_to(w)\nw\n")
w('pattern_redirect_alt_self.txt', "w = wildcard()\nw.redirect_to(w | is_op('nn.relu')(w))\nw\n")
w('pattern_redirect_two_wildcards.txt',
  "a = wildcard()\nb = wildcard()\na.redirect_to(b)\nb.redirect_to(a)\na\n")
w('pattern_redirect_through_predicates.txt',
  "w = wildcard()\nrelu = is_op('nn.relu')(w)\n"
  "w.redirect_to(relu | ~w.has_attr({'axis': 1}))\nrelu\n")
w('pattern_tuple_index_negative.txt', "is_tuple_get_item(is_op('split')(None), -2)\n")
# ---------------- graph JSON ----------------
def gdoc(nodes, params=None, outputs=None, extra=None, fextra=None):
    f = {"name": "main", "params": params if params is not None else [0], "nodes": nodes, "outputs": outputs if outputs is not None else [1]}
    if fextra: f.update(fextra)
    d = {"format": "graphpat.graph", "version": 1, "functions": [f]}
    if extra: d.update(extra)
    return json.dumps(d, indent=2)
X = {"id": 0, "kind": "var", "name": "x"}
def relu(i, inp): return {"id": i, "kind": "call", "op": "nn.relu", "inputs": [inp]}
def gconst(i, shape, data, dtype="float32"): return {"id": i, "kind": "const", "dtype": dtype, "shape": shape, "data": data}
G = {}
G['graph_truncated.json'] = gdoc([X, relu(1, 0)])[:120]
G['graph_wrong_format.json'] = gdoc([X, relu(1, 0)]).replace('"graphpat.graph"', '"tvm.graph"')
G['graph_wrong_version.json'] = gdoc([X, relu(1, 0)]).replace('"version": 1', '"version": 2')
G['graph_dangling_input.json'] = gdoc([X, relu(1, 7)])
G['graph_forward_reference.json'] = gdoc([X, relu(1, 2), relu(2, 1)], outputs=[2])
G['graph_duplicate_id.json'] = gdoc([X, relu(0, 0)], outputs=[0])
G['graph_unknown_field.json'] = gdoc([X, dict(relu(1, 0), colour="red")])
G['graph_inputs_not_array.json'] = gdoc([X, dict(relu(1, 0), inputs="0")])
G['graph_bad_base64.json'] = gdoc([gconst(0, [2], "AAAA$$$=")], params=[], outputs=[0])
G['graph_byte_count_mismatch.json'] = gdoc([gconst(0, [4], base64.b64encode(bytes(8)).decode())], params=[], outputs=[0])
G['graph_bad_annotation.json'] = gdoc([dict(X, annotation="Tensor[(1, 3), ]"), relu(1, 0)])
G['graph_nan_literal.json'] = gdoc([X, {"id": 1, "kind": "tuple", "inputs": [0, 0]}, {"id": 2, "kind": "get", "inputs": [1], "index": 0}], outputs=[2]).replace('"index": 0', '"index": NaN')
G['graph_duplicate_function.json'] = json.dumps({"format": "graphpat.graph", "version": 1, "functions": [
    {"name": "main", "params": [0], "nodes": [X], "outputs": [0]}, {"name": "main", "params": [1], "nodes": [dict(X, id=1)], "outputs": [1]}]})
G['graph_param_not_var.json'] = gdoc([X, relu(1, 0)], params=[1])
G['graph_nan_index.json'] = gdoc([X, {"id": 1, "kind": "tuple", "inputs": [0, 0]}, {"id": 2, "kind": "get", "inputs": [1], "index": 1.5}], outputs=[2])
G['graph_tensor_bytes_overflow.json'] = gdoc([gconst(0, [2**62, 4], "AAAA")], params=[], outputs=[0])
G['graph_invalid_utf8.json'] = gdoc([dict(X, name="x\udcff"), relu(1, 0)]).replace('\\udcff', '\udcff').encode('utf-8', 'surrogateescape')
for k, v in G.items(): w(k, v)
w('limit_graph_chain.json', gdoc([X, relu(1, 0), relu(2, 1), relu(3, 2)], outputs=[3]))
w('limit_graph_constant.json', gdoc([gconst(0, [2, 2], base64.b64encode(bytes(16)).decode())], params=[], outputs=[0]))
w('limit_text_tuple.relay', HEAD + 'def @main() {\n  (1, 2, 3, 4)\n}\n')
w('limit_text_params.relay', HEAD + 'def @main(%a, %b, %c, %d) {\n  %a\n}\n')
w('limit_text_let.relay', HEAD + 'def @main() {\n  let %a = 1;\n  %a\n}\n')
# ---------------- h3-text-reader: the one validation of dtypes, dimensions and values (JSON) ----
H = {}
def typed_var_doc(dtype="float32", dim="1", dim_dtype="int32"):
    v = var_nodes()
    v[0]["attrs"]["type_annotation"] = "4"
    return doc([NULL] + v + [{"type_key": "relay.TensorType", "attrs": {"dtype": dtype, "shape": "5", "span": "0"}},
                             {"type_key": "Array", "data": [6]},
                             {"type_key": "IntImm", "attrs": {"dtype": dim_dtype, "span": "0", "value": dim}}])
H['json_type_negative_dim.json'] = typed_var_doc(dim="-1")
H['json_dtype_int1024.json'] = typed_var_doc(dtype="int1024")
H['json_dtype_float32x0.json'] = typed_var_doc(dtype="float32x0")
H['json_dim_int8_overflow.json'] = typed_var_doc(dim="300", dim_dtype="int8")
# An unsigned dimension came back signed (fuzz_relay_json, CI seed 1: uint2 saved as int2).
H['json_dim_unsigned.json'] = typed_var_doc(dim="2", dim_dtype="uint8")
def attr_call(value): return [X, {"id": 1, "kind": "call", "op": "vendor.op", "inputs": [0], "attrs": {"a": value}}]
H['graph_attr_int8_overflow.json'] = gdoc(attr_call({"int": 300, "bits": 8}))
H['graph_attr_float_overflow.json'] = gdoc(attr_call({"float": 1e39, "bits": 32}))
H['graph_const_dtype_int1024.json'] = gdoc([{"id": 0, "kind": "const", "dtype": "int1024", "shape": [1]}], params=[], outputs=[0])
# Function attributes of a golden case: node 25 is FloatImm float32 0.5, node 20 IntImm bool 1.
FN_ATTRS = json.load(open(D + '../data/corpus/golden/fn_attrs_many_entries/save_json.json'))
def fn_attrs_with(index, value):
    d = json.loads(json.dumps(FN_ATTRS))
    d["nodes"][index]["attrs"]["value"] = value
    return json.dumps(d, indent=2)
H['json_float32_attr_overflow.json'] = fn_attrs_with(25, "1e+300")
H['json_bool_attr_two.json'] = fn_attrs_with(20, "2")
def fn_attrs_dtype(index, dtype):
    d = json.loads(json.dumps(FN_ATTRS))
    d["nodes"][index]["attrs"]["dtype"] = dtype
    return json.dumps(d, indent=2)
# A dtype of no family on an IntImm (fuzz_relay_json, CI seed 1: it read an empty message).
H['json_intimm_dtype_of_no_family.json'] = fn_attrs_dtype(20, "qint32")
# A Map key twice: Relay text keeps the last of a repeated key, so the print of a map holding
# both read back as another map (fuzz_writer_roundtrip, session 14).
def fn_attrs_keys(keys):
    d = json.loads(json.dumps(FN_ATTRS))
    d["nodes"][17]["keys"] = keys
    return json.dumps(d, indent=2)
H['json_map_key_twice.json'] = fn_attrs_keys(['Primitive', 'Name', 'Flag', 'Name', 'List', 'Scale'])
H['graph_attr_map_key_twice.json'] = gdoc(attr_call({"map": [["k", 1], ["j", 0], ["k", 2]]}))
# An attribute field TVM declares `int` past 32 bits (nn.conv2d's groups, node 59 of a golden
# case) was kept as a 32-bit int holding 5000000000 (session 15's review).
CONV2D = json.load(open(D + '../data/corpus/golden/attrs_conv2d/save_json.json'))
CONV2D["nodes"][59]["attrs"]["groups"] = "5000000000"
H['json_int_attr_past_32_bits.json'] = json.dumps(CONV2D, indent=2)
for k, v in H.items(): w(k, v)
# ---------------- h3-text-reader: inconsistent Relay text, and its dtypes, dimensions, values ----
H = {}
H['text_duplicate_parameter.relay'] = HEAD + 'def @main(%x, %x) {\n  %x\n}\n'
H['text_let_reads_itself.relay'] = HEAD + 'def @main(%x) {\n  let %x = %x;\n  %x\n}\n'
H['text_undefined_global.relay'] = HEAD + 'def @main(%x) {\n  @nope(%x)\n}\n'
H['text_tuple_index_out_of_range.relay'] = HEAD + 'def @main(%t: (float32, float32)) {\n  %t.5\n}\n'
H['text_float_overflow_attr.relay'] = HEAD + 'def @main(%x) {\n  nn.batch_norm(%x, %x, %x, %x, %x, epsilon=1e999f)\n}\n'
H['text_int8_overflow.relay'] = HEAD + 'def @main(%x) {\n  add(%x, 300i8)\n}\n'
H['text_negative_dim.relay'] = HEAD + 'def @main(%x: Tensor[(-1), float32]) {\n  %x\n}\n'
H['text_dtype_int1024.relay'] = HEAD + 'def @main(%x: Tensor[(1), int1024]) {\n  %x\n}\n'
H['text_dtype_float32x0.relay'] = HEAD + 'def @main(%x: Tensor[(1), float32x0]) {\n  %x\n}\n'
H['expr_let_reads_itself.relay'] = 'free_var %x;\nlet %x = %x;\n%x'
H['expr_tuple_index_out_of_range.relay'] = 'free_var %t: (float32, float32);\n%t.2'
H['graph_negative_dim.json'] = gdoc([dict(X, annotation="Tensor[(-1), float32]")], outputs=[0])
H['graph_dtype_int1024.json'] = gdoc([dict(X, annotation="Tensor[(1), int1024]")], outputs=[0])
for k, v in H.items(): w(k, v)
# ---------------- h4-json-readers: hostile JSON (issue 21, classes 4, 8, 10) ----------------
H4 = {}
H4['graph_float_overflow.json'] = gdoc([X, dict(relu(1, 0), op="nn.leaky_relu", attrs={"alpha": {"float": 0.5}})]).replace('"float": 0.5', '"float": 1e400')
H4['graph_int_past_uint64.json'] = gdoc([X, dict(relu(1, 0), op="nn.softmax", attrs={"axis": 1})]).replace('"axis": 1', '"axis": 18446744073709551616')
H4['graph_duplicate_key.json'] = gdoc([X, relu(1, 0)]).replace('"op": "nn.relu"', '"op": "nn.relu",\n          "op": "nn.tanh"')
H4['graph_duplicate_param.json'] = gdoc([X, relu(1, 0)], params=[0, 0])
H4['graph_undefined_global.json'] = gdoc([X, {"id": 1, "kind": "global", "name": "nope"}, {"id": 2, "kind": "call", "callee": 1, "inputs": [0]}], outputs=[2])
H4['graph_nul_in_name.json'] = gdoc([X, {"id": 1, "kind": "lam\u0000bda\u00e3"}])
# TVM JSON: v0.14's save_json of def @main(%x: Tensor[(1, 8), float32]) { nn.relu(%x) }
RELU = json.load(open(D + '../data/corpus/golden/json_untyped_relu_module/save_json.json'))
def relu_module(edit):
    d = json.loads(json.dumps(RELU))
    edit(d)
    return json.dumps(d, indent=2)
def gvm_function(d): d['nodes'][22]['data'] = [5]
def unused_bad_blob(d): d['b64ndarrays'] = ["AAAA$$$="]
def duplicate_param(d): d['nodes'][6]['data'] = [7, 7]
def undefined_global(d):  # the call's op becomes GlobalVar @nope (node 26, its name node 27)
    d['nodes'] += [{"type_key": "GlobalVar", "attrs": {"_checked_type_": "0", "name_hint": "27", "span": "0", "virtual_device_": "0"}},
                   {"type_key": "runtime.String", "repr_str": "nope"}]
    d['nodes'][16]['attrs']['op'] = "26"
def duplicate_function(d):  # a second GlobalVar (26) named main keys the same function
    d['nodes'] += [{"type_key": "GlobalVar", "attrs": {"_checked_type_": "0", "name_hint": "4", "span": "0", "virtual_device_": "0"}}]
    d['nodes'][2]['data'] = [3, 5, 26, 5]
def name_with_nul(d): d['nodes'][16]['attrs']['op'] = "1\u0000\u00e3"
H4['json_gvm_function.json'] = relu_module(gvm_function)
H4['json_unused_bad_base64.json'] = relu_module(unused_bad_blob)
H4['json_duplicate_param.json'] = relu_module(duplicate_param)
H4['json_undefined_global.json'] = relu_module(undefined_global)
H4['json_duplicate_function.json'] = relu_module(duplicate_function)
H4['json_name_with_nul.json'] = relu_module(name_with_nul)
H4['json_float_overflow.json'] = relu_module(lambda d: None).replace('"root": 1,', '"root": 1e400,', 1)
H4['json_duplicate_top_attr.json'] = relu_module(lambda d: None).replace('"tvm_version": "0.14.0"', '"tvm_version": "0.14.0",\n    "tvm_version": "0.8.0"')
for k, v in H4.items(): w(k, v)
