#!/usr/bin/env python3
"""Generates include/graphpat/relay/op_table.hpp, graphpat's table of Relay operators.

Usage: python3 generate_relay_op_table.py OUT_HEADER

Inputs, all beside this script:
  relay_op_attrs.tsv        every op TVM v0.14 registers and its attrs type (from TVM's sources)
  relay_attrs_fields.tsv    every attrs struct's fields in declaration order, with their C++
                            defaults (read from TVM's sources)
  relay_op_properties.tsv   hand-maintained: op pattern kind, commutative, stateful, and the TVM
                            source each fact was read from; ops absent from it are opaque (8),
                            not commutative and not stateful

The output is deterministic (same inputs, same bytes). Any malformed row, unknown reference or
default this script cannot translate stops it with a non-zero exit and a FILE:LINE message.

Defaults are written in Relay attribute text syntax, as TVM v0.14's printer writes the value
(docs/relay-formats.md §1.4 and §2.1):
  <none>                            no declared default (has_default false, text "")
  NullValue<X>() for object types   None (a null ObjectRef; Optional<X> with NullValue<X>() too)
  NullValue<DataType>()             "" (the void dtype prints as an empty quoted string)
  DataType::Int(32) etc.            "int32"; DataType::Float(32, 1) is "float32" (lanes 1 is the
                                    scalar type, TVM prints no lane suffix)
  string literals                   quoted and escaped as TVM's StrEscape does; the std::string
                                    default "None" is that four-letter string, printed "\"None\"",
                                    not a null
  bool true/false/1/0               True / False
  Bool(false), Bool(true)           False / True (an IntImm of dtype bool prints as True/False)
  int / Integer literals            decimal; Integer(0) is an int32 IntImm, printed plain as 0
  double literals                   C++ ostream %g with 6 significant digits, without the f
                                    suffix the printer appends for double fields (1e-05, 0.5, 2);
                                    the script fails if that text does not read back as the same
                                    double
  Array<X>({a, b}), Array<X>{a, b}  [a, b]; Array<X>() and Array<X>({}) are []
  Array elements                    integer literals are int32 IntImms, printed plain; float
                                    literals (0.1f, 4.0f, static_cast<float>(-1.0)) build float32
                                    FloatImms through PrimExpr(float), which TVM prints as %g-6
                                    plus an "f" suffix, so they are written with it (0.1f): unlike
                                    a double field, nothing in cpp_type tells a reader to add it
Decisions for defaults TVM's printer never shows plainly:
  Map<String, ObjectRef>()          {} (an empty Map printed with show_meta_data=False; with
                                    metadata TVM would print a meta[...] reference instead)
  VirtualDevice::FullyUnconstrained()
                                    VirtualDevice(?) (the fully unconstrained device's repr, which
                                    TVM prints when show_meta_data=False)
Attrs types of ops:
  The op TSV's attrs_type_key column names the struct; two rows carry the extractor's
  "(struct declared outside include/; see source)" instead, and are resolved by their struct
  name (AutoSchedulerLayoutTransformAttrs, Conv2DWinogradNNPACKWeightTransformAttrs are both in
  the fields TSV). vm.invoke_tvm_op registers the type key DictAttrs, a free-form dictionary
  rather than a struct with declared fields, so it is emitted with attrs_struct -1.
  nn.sparse_transpose's relay.attrs.SparseTransposeAttrs declares no fields at all, so the
  fields TSV has no row for it; it is listed in ZERO_FIELD_STRUCTS below and emitted as a struct
  with field_count 0 (checked in include/tvm/relay/attrs/nn.h).
"""

import math
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OPS_TSV = "relay_op_attrs.tsv"
FIELDS_TSV = "relay_attrs_fields.tsv"
PROPS_TSV = "relay_op_properties.tsv"

OPS_HEADER = ["op", "attrs_struct", "attrs_type_key", "registered_in"]
FIELDS_HEADER = ["attrs_type_key", "struct", "field_index", "field", "cpp_type", "default",
                 "declared_in"]
PROPS_HEADER = ["op", "pattern_kind", "commutative", "stateful", "source"]

OUTSIDE_INCLUDE = "(struct declared outside include/; see source)"
# Attrs types that are dictionaries, not structs with declared fields.
FREE_FORM_ATTRS = {"DictAttrs"}
# Structs TVM declares with an empty TVM_DECLARE_ATTRS body, which the fields TSV (one row per
# field) cannot list: type key -> struct name. Emitted after the TSV's structs, with no fields.
ZERO_FIELD_STRUCTS = {
    # include/tvm/relay/attrs/nn.h: TVM_DECLARE_ATTRS(SparseTransposeAttrs, ...) {}
    "relay.attrs.SparseTransposeAttrs": "SparseTransposeAttrs",
}
PATTERN_KINDS = {"0", "1", "2", "3", "4", "7", "8"}
OPAQUE = 8

INT_TYPES = {"int", "int32_t", "int64_t", "uint32_t", "uint64_t"}
STRING_TYPES = {"std::string", "tvm::String", "String"}
# Object types whose integer-literal elements or values are int32 IntImms.
INT_OBJECT_TYPES = {"Integer", "IndexExpr", "PrimExpr"}
# Element types that accept a float literal (PrimExpr(float) makes a float32 FloatImm).
FLOAT_OBJECT_TYPES = {"IndexExpr", "PrimExpr"}
NOT_OBJECT_TYPES = INT_TYPES | STRING_TYPES | {"bool", "double", "float", "DataType"}

INT_RE = re.compile(r"^[-+]?\d+$")
DOUBLE_RE = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
FLOAT32_RE = re.compile(r"^([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)[fF]$")
STATIC_CAST_FLOAT_RE = re.compile(r"^static_cast<float>\((.*)\)$")
NULL_VALUE_RE = re.compile(r"^NullValue<(.+)>\(\)$")
DTYPE_RE = re.compile(r"^DataType::(Int|UInt|Float|BFloat)\((\d+)(?:,\s*(\d+))?\)$")
STRING_LITERAL_RE = re.compile(r'^"((?:[^"\\]|\\.)*)"$')
ARRAY_TYPE_RE = re.compile(r"^Array<(.+)>$")


class GenerationError(Exception):
    """A problem in an input file, reported as FILE:LINE: message."""

    def __init__(self, where, message):
        super().__init__(f"{where}: {message}")


def read_tsv(name, header):
    """Returns [(where, fields)] for the data rows of a TSV whose first line must be header."""
    path = os.path.join(HERE, name)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise GenerationError(name, f"cannot read: {e.strerror}") from e
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise GenerationError(name, f"not UTF-8: {e}") from e
    if not text.endswith("\n"):
        raise GenerationError(name, "does not end with a newline")
    rows = []
    for number, line in enumerate(text[:-1].split("\n"), start=1):
        where = f"{name}:{number}"
        if "\r" in line:
            raise GenerationError(where, "carriage return in line")
        fields = line.split("\t")
        if len(fields) != len(header):
            raise GenerationError(where, f"expected {len(header)} tab-separated columns, "
                                         f"got {len(fields)}")
        if number == 1:
            if fields != header:
                raise GenerationError(where, f"expected header {' '.join(header)}")
            continue
        for column, value in zip(header, fields):
            if value != value.strip():
                raise GenerationError(where, f"column {column} has surrounding whitespace")
        rows.append((where, fields))
    if not rows:
        raise GenerationError(name, "has no data rows")
    return rows


# ---------------------------------------------------------------------------------------------
# Default translation


def format_double(value, where, float32=False):
    """C++ `ostream << double` with the default precision 6 (%g), checked to read back as the
    same value (the same float32 value for float32 ones)."""
    if math.isnan(value) or math.isinf(value):
        raise GenerationError(where, f"cannot express the default {value!r} as attribute text")
    text = "%g" % value
    read_back = to_float32(float(text)) if float32 else float(text)
    if read_back != value:
        raise GenerationError(where, f"default {value!r} does not survive 6 significant digits "
                                     f"(prints as {text})")
    return text


def to_float32(value):
    return struct.unpack("<f", struct.pack("<f", value))[0]


def str_escape(value):
    """TVM's support::StrEscape, applied to the UTF-8 bytes of value."""
    out = []
    for byte in value.encode("utf-8"):
        ch = chr(byte)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\n":
            out.append("\\n")
        elif 0x20 <= byte <= 0x7E:
            out.append(ch)
        else:
            out.append("\\x%02X" % byte)
    return '"' + "".join(out) + '"'


CPP_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r", "'": "'"}


def decode_cpp_string(body, where):
    out = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            escaped = body[i + 1]
            if escaped not in CPP_SIMPLE_ESCAPES:
                raise GenerationError(where, f"unsupported escape \\{escaped} in string default")
            out.append(CPP_SIMPLE_ESCAPES[escaped])
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def split_top_level(text, where):
    """Splits 'a, f(b, c), d' on the commas outside parentheses and angle brackets."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "(<{[":
            depth += 1
        elif ch in ")>}]":
            depth -= 1
            if depth < 0:
                raise GenerationError(where, f"unbalanced brackets in {text!r}")
        elif ch == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    if depth != 0:
        raise GenerationError(where, f"unbalanced brackets in {text!r}")
    items.append(text[start:].strip())
    if items and items[-1] == "":
        items.pop()  # trailing comma: Array<IndexExpr>({ 1, })
    if any(item == "" for item in items):
        raise GenerationError(where, f"empty element in {text!r}")
    return items


def translate_array_element(element_type, element, where):
    if INT_RE.match(element):
        if element_type not in INT_OBJECT_TYPES:
            raise GenerationError(where, f"integer element {element} in Array<{element_type}>")
        return str(int(element))
    cast = STATIC_CAST_FLOAT_RE.match(element)
    literal = cast.group(1).strip() if cast else None
    if cast and not DOUBLE_RE.match(literal):
        raise GenerationError(where, f"cannot translate array element {element}")
    if not cast:
        suffixed = FLOAT32_RE.match(element)
        if not suffixed:
            raise GenerationError(where, f"cannot translate array element {element}")
        literal = suffixed.group(1)
    if element_type not in FLOAT_OBJECT_TYPES:
        raise GenerationError(where, f"float element {element} in Array<{element_type}>")
    # PrimExpr(float) stores the float32 value in a FloatImm; TVM prints it %g-6 plus "f".
    return format_double(to_float32(float(literal)), where, float32=True) + "f"


def translate_array(cpp_type, element_type, expr, where):
    body = None
    for prefix in (f"{cpp_type}(", f"{cpp_type}{{"):
        if expr.startswith(prefix):
            body = expr[len(cpp_type):]
    if body is None:
        raise GenerationError(where, f"cannot translate the {cpp_type} default {expr}")
    if body in ("()", "({})", "{}"):
        return "[]"
    if body.startswith("({") and body.endswith("})"):
        inner = body[2:-2]
    elif body.startswith("{") and body.endswith("}"):
        inner = body[1:-1]
    else:
        raise GenerationError(where, f"cannot translate the {cpp_type} default {expr}")
    elements = split_top_level(inner, where)
    return "[" + ", ".join(translate_array_element(element_type, e, where) for e in elements) + "]"


def translate_default(cpp_type, expr, where):
    """Returns (has_default, default_value) for one field, or raises GenerationError."""
    if expr == "<none>":
        return False, ""
    null = NULL_VALUE_RE.match(expr)
    if null:
        inner = null.group(1)
        if inner == "DataType":
            if cpp_type != "DataType":
                raise GenerationError(where, f"NullValue<DataType>() default for {cpp_type}")
            return True, '""'
        if cpp_type in NOT_OBJECT_TYPES:
            raise GenerationError(where, f"null default {expr} for non-object type {cpp_type}")
        if inner != cpp_type and cpp_type != f"Optional<{inner}>":
            raise GenerationError(where, f"null default {expr} does not match type {cpp_type}")
        return True, "None"
    if cpp_type.startswith("Optional<") and (expr == "NullOpt" or expr == f"{cpp_type}()"):
        return True, "None"
    if cpp_type == "bool":
        if expr in ("true", "1"):
            return True, "True"
        if expr in ("false", "0"):
            return True, "False"
    elif cpp_type == "Bool":
        if expr in ("Bool(true)", "true"):
            return True, "True"
        if expr in ("Bool(false)", "false"):
            return True, "False"
    elif cpp_type in INT_TYPES or cpp_type in INT_OBJECT_TYPES:
        match = re.match(r"^Integer\((.*)\)$", expr) if cpp_type == "Integer" else None
        literal = match.group(1).strip() if match else expr
        if INT_RE.match(literal):
            return True, str(int(literal))
    elif cpp_type in ("double", "float"):
        if DOUBLE_RE.match(expr):
            value = float(expr)
            if cpp_type == "float":
                return True, format_double(to_float32(value), where, float32=True)
            return True, format_double(value, where)
    elif cpp_type == "DataType":
        dtype = DTYPE_RE.match(expr)
        if dtype:
            code, bits, lanes = dtype.group(1), dtype.group(2), dtype.group(3)
            name = {"Int": "int", "UInt": "uint", "Float": "float", "BFloat": "bfloat"}[code]
            text = f"{name}{bits}" + (f"x{lanes}" if lanes not in (None, "1") else "")
            return True, f'"{text}"'
        if expr == "DataType::Bool()":
            return True, '"bool"'
        if expr == "DataType::Void()":
            return True, '""'
    elif cpp_type in STRING_TYPES:
        literal = STRING_LITERAL_RE.match(expr)
        if literal:
            return True, str_escape(decode_cpp_string(literal.group(1), where))
    elif ARRAY_TYPE_RE.match(cpp_type):
        return True, translate_array(cpp_type, ARRAY_TYPE_RE.match(cpp_type).group(1), expr, where)
    elif cpp_type.startswith("Map<"):
        if expr in (f"{cpp_type}()", f"{cpp_type}{{}}"):
            return True, "{}"
    elif cpp_type == "VirtualDevice":
        if expr == "VirtualDevice::FullyUnconstrained()":
            return True, "VirtualDevice(?)"
    raise GenerationError(where,
                          f"cannot translate the default {expr!r} of a field of type {cpp_type}")


# ---------------------------------------------------------------------------------------------
# Loading


class AttrStruct:
    def __init__(self, type_key, struct_name, first_field):
        self.type_key = type_key
        self.struct_name = struct_name
        self.first_field = first_field
        self.field_count = 0


def load_fields():
    structs, by_key, fields = [], {}, []
    for where, (type_key, struct_name, index, field, cpp_type, default, _) in read_tsv(
            FIELDS_TSV, FIELDS_HEADER):
        if not type_key or not struct_name or not field or not cpp_type or not default:
            raise GenerationError(where, "empty column")
        if not INT_RE.match(index):
            raise GenerationError(where, f"field_index {index!r} is not an integer")
        current = structs[-1] if structs else None
        if current is None or current.type_key != type_key:
            if type_key in by_key:
                raise GenerationError(where, f"fields of {type_key} are not contiguous")
            current = AttrStruct(type_key, struct_name, len(fields))
            structs.append(current)
            by_key[type_key] = current
        if struct_name != current.struct_name:
            raise GenerationError(where, f"struct {struct_name} differs from "
                                         f"{current.struct_name} for {type_key}")
        if int(index) != current.field_count:
            raise GenerationError(where, f"field_index {index}, expected {current.field_count}")
        has_default, default_value = translate_default(cpp_type, default, where)
        fields.append((field, cpp_type, has_default, default_value))
        current.field_count += 1
    for type_key, struct_name in ZERO_FIELD_STRUCTS.items():
        if type_key in by_key:
            raise GenerationError(FIELDS_TSV, f"{type_key} has fields; remove it from "
                                              f"ZERO_FIELD_STRUCTS")
        by_key[type_key] = AttrStruct(type_key, struct_name, len(fields))
        structs.append(by_key[type_key])
    by_name = {}
    for s in structs:
        by_name.setdefault(s.struct_name, []).append(s)
    return structs, by_key, by_name, fields


def resolve_attrs(where, struct_column, key_column, structs, by_key, by_name):
    """Index into structs of the op's attrs struct, or -1."""
    if not struct_column and not key_column:
        return -1
    if key_column == OUTSIDE_INCLUDE or not key_column:
        if struct_column in FREE_FORM_ATTRS:
            return -1
        candidates = by_name.get(struct_column, [])
        if len(candidates) != 1:
            raise GenerationError(where, f"attrs struct {struct_column!r} is "
                                         f"{'ambiguous' if candidates else 'not'} in {FIELDS_TSV}")
        return structs.index(candidates[0])
    found = by_key.get(key_column)
    if found is None:
        raise GenerationError(where, f"attrs type key {key_column} is not in {FIELDS_TSV}")
    if struct_column not in (found.struct_name, found.type_key):
        raise GenerationError(where, f"attrs struct {struct_column} does not match "
                                     f"{key_column} ({found.struct_name})")
    return structs.index(found)


def load_ops(structs, by_key, by_name):
    ops, previous = [], None
    for where, (op, struct_column, key_column, registered_in) in read_tsv(OPS_TSV, OPS_HEADER):
        if not op or not registered_in:
            raise GenerationError(where, "empty op or registered_in column")
        if previous is not None and op.encode() <= previous.encode():
            raise GenerationError(where, f"op {op} is not after {previous} (the TSV must be "
                                         f"sorted and free of duplicates)")
        previous = op
        ops.append((op, resolve_attrs(where, struct_column, key_column, structs, by_key,
                                      by_name)))
    return ops


def load_properties(op_names):
    props, previous = {}, None
    for where, (op, kind, commutative, stateful, source) in read_tsv(PROPS_TSV, PROPS_HEADER):
        if op not in op_names:
            raise GenerationError(where, f"op {op} is not in {OPS_TSV}")
        if previous is not None and op.encode() <= previous.encode():
            raise GenerationError(where, f"op {op} is not after {previous} (the TSV must be "
                                         f"sorted and free of duplicates)")
        previous = op
        if kind != "" and kind not in PATTERN_KINDS:
            raise GenerationError(where, f"pattern_kind {kind!r} is not one of "
                                         f"{', '.join(sorted(PATTERN_KINDS))} or empty")
        for column, value in (("commutative", commutative), ("stateful", stateful)):
            if value not in ("0", "1"):
                raise GenerationError(where, f"{column} {value!r} is not 0 or 1")
        if not source:
            raise GenerationError(where, "empty source")
        props[op] = (int(kind) if kind else None, commutative == "1", stateful == "1")
    return props


# ---------------------------------------------------------------------------------------------
# Output

PREAMBLE = """\
// Relay's operator table: every op TVM v0.14 registers, its attribute struct and fields with
// their declared defaults, and the op properties graphpat's engines use (commutative, stateful,
// op pattern kind). GENERATED by tests/relay_op_table/generate_relay_op_table.py from the TSVs
// beside it; do not edit by hand. relay::Dialect loads it into the op registry.
#pragma once
#include <cstdint>
#include <string_view>

namespace graphpat::relay::detail {

/// One field of an attribute struct, in declaration order.
struct AttrFieldSpec {
  std::string_view name;           // "strides"
  std::string_view cpp_type;       // "Array<IndexExpr>" (decides JSON inline vs reference)
  bool has_default;                // false: TVM declares no default, the printer always prints it
  std::string_view default_value;  // the default in Relay attribute text syntax, e.g. "[1, 1]", "\\"NCHW\\"", "None", "1e-05", "True", "\\"\\"" (void DataType), "-1"
};
/// An attribute struct such as relay.attrs.Conv2DAttrs: a slice of kAttrFields.
struct AttrStructSpec {
  std::string_view type_key;  // "relay.attrs.Conv2DAttrs"
  std::string_view struct_name; // "Conv2DAttrs"
  std::uint32_t first_field;
  std::uint32_t field_count;
};
/// One operator.
struct OpSpec {
  std::string_view name;       // "nn.conv2d"
  std::int32_t attrs_struct;   // index into kAttrStructs, -1 when the op has no attrs struct
  bool commutative;
  bool stateful;
  std::int8_t pattern_kind;    // TOpPattern: 0 elemwise,1 broadcast,2 injective,3 comm-reduce,4 out-elemwise-fusable,7 tuple,8 opaque (also when TVM registers none)
};
"""


def cpp_string(value):
    """A C++ string literal for value (ASCII printable kept; everything else as octal)."""
    out = []
    for byte in value.encode("utf-8"):
        ch = chr(byte)
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif 0x20 <= byte <= 0x7E:
            out.append(ch)
        else:
            out.append("\\%03o" % byte)
    return '"' + "".join(out) + '"'


def cpp_bool(value):
    return "true" if value else "false"


COLUMN_LIMIT = 100  # .clang-format's; a trailing comment is dropped when it would exceed it


def with_comment(line, comment):
    full = f"{line}  // {comment}"
    return full if len(full) <= COLUMN_LIMIT else line


def render(structs, fields, ops, props):
    lines = [PREAMBLE]
    lines.append("inline constexpr AttrFieldSpec kAttrFields[] = {")
    for s in (s for s in structs if s.field_count):
        lines.append(f"    // {s.type_key}: kAttrFields[{s.first_field}..."
                     f"{s.first_field + s.field_count - 1}]")
        for name, cpp_type, has_default, default_value in \
                fields[s.first_field:s.first_field + s.field_count]:
            lines.append(f"    {{{cpp_string(name)}, {cpp_string(cpp_type)}, "
                         f"{cpp_bool(has_default)}, {cpp_string(default_value)}}},")
    lines.append("};")
    lines.append("")
    lines.append("inline constexpr AttrStructSpec kAttrStructs[] = {")
    for index, s in enumerate(structs):
        lines.append(with_comment(f"    {{{cpp_string(s.type_key)}, {cpp_string(s.struct_name)}, "
                                  f"{s.first_field}, {s.field_count}}},", f"[{index}]"))
    lines.append("};")
    lines.append("")
    lines.append("inline constexpr OpSpec kOps[] = {  // sorted by name as in the TSV")
    for name, attrs_struct in ops:
        kind, commutative, stateful = props.get(name, (None, False, False))
        line = (f"    {{{cpp_string(name)}, {attrs_struct}, {cpp_bool(commutative)}, "
                f"{cpp_bool(stateful)}, {OPAQUE if kind is None else kind}}},")
        lines.append(with_comment(line, structs[attrs_struct].struct_name)
                     if attrs_struct >= 0 else line)
    lines.append("};")
    lines.append("")
    lines.append("}  // namespace graphpat::relay::detail")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) != 2:
        print(f"usage: {os.path.basename(argv[0])} OUT_HEADER", file=sys.stderr)
        return 2
    try:
        structs, by_key, by_name, fields = load_fields()
        ops = load_ops(structs, by_key, by_name)
        props = load_properties({name for name, _ in ops})
    except GenerationError as e:
        print(f"generate_relay_op_table.py: error: {e}", file=sys.stderr)
        return 1
    text = render(structs, fields, ops, props)
    try:
        with open(argv[1], "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    except OSError as e:
        print(f"generate_relay_op_table.py: error: cannot write {argv[1]}: {e.strerror}",
              file=sys.stderr)
        return 1
    with_kind = sum(1 for kind, _, _ in props.values() if kind is not None)
    print(f"wrote {argv[1]}: {len(ops)} ops ({sum(1 for _, s in ops if s >= 0)} with an attrs "
          f"struct, {with_kind} with a pattern kind from {PROPS_TSV}, "
          f"{sum(1 for _, c, _ in props.values() if c)} commutative, "
          f"{sum(1 for _, _, s in props.values() if s)} stateful), {len(structs)} attrs structs, "
          f"{len(fields)} fields ({sum(1 for f in fields if f[2])} with a declared default)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
