// Interning of strings, types, attribute values and spans; dtype parsing; tensors with shared
// bytes; the printed (Relay) forms of types and values; the op registry of the Relay dialect.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <graphpat/ir.hpp>
#include <graphpat/relay/dialect.hpp>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/arith_dialect.hpp"

using namespace graphpat;

namespace {

std::shared_ptr<Context> relay_context() { return Context::create<relay::Dialect>(); }

}  // namespace

TEST_CASE("strings are interned once and viewed back", "[strings]") {
  StringPool strings;
  StringId conv = strings.intern("nn.conv2d");
  StringId relu = strings.intern("nn.relu");
  CHECK(conv != relu);
  CHECK(strings.intern(std::string("nn.") + "conv2d") == conv);
  CHECK(strings.view(conv) == "nn.conv2d");
  CHECK(strings.find("nn.relu") == relu);
  CHECK_FALSE(strings.find("nn.dense").valid());
  CHECK(strings.size() == 2);
  // Views stay valid however many strings of whatever length follow: the pool's blocks never
  // move, and a string longer than a block (64 KiB at most) gets one of its own.
  std::string_view first = strings.view(conv);
  std::vector<std::string> texts;
  for (int i = 0; i < 10000; ++i) {
    texts.push_back(std::string(static_cast<std::size_t>(i % 97), static_cast<char>('a' + i % 26)) +
                    std::to_string(i));
  }
  texts.push_back(std::string(std::size_t{70} << 10, 'x'));
  texts.push_back(std::string(std::size_t{200} << 10, 'y'));
  texts.push_back("after the long ones");
  std::vector<StringId> ids;
  std::vector<std::string_view> views;
  for (const std::string& text : texts) {
    ids.push_back(strings.intern(text));
    views.push_back(strings.view(ids.back()));
  }
  std::size_t moved = 0, changed = 0, renamed = 0;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    moved += strings.view(ids[i]).data() != views[i].data();
    changed += strings.view(ids[i]) != texts[i];
    renamed += strings.intern(texts[i]) != ids[i];
  }
  CHECK(moved == 0);
  CHECK(changed == 0);
  CHECK(renamed == 0);
  CHECK(strings.size() == 2 + texts.size());
  CHECK(first.data() == strings.view(conv).data());
  CHECK(strings.view(strings.intern("")) == "");
  CHECK(strings.intern("") == strings.intern(std::string()));
}

TEST_CASE("a pool knows which control bytes its strings hold, its base's included", "[strings]") {
  StringPool base;
  base.intern("tab\there");
  base.intern("\x7f");
  StringPool strings(&base);
  strings.intern(std::string("nul\0", 4));
  strings.intern("\x1f and \x01");
  strings.intern("\x80\xff printable");  // bytes above 0x7F are not control bytes
  for (int byte = 0; byte < 0x100; ++byte) {
    bool expected = byte == '\t' || byte == 0x7F || byte == 0 || byte == 0x1F || byte == 0x01;
    INFO("byte " << byte);
    CHECK(strings.holds_control_byte(static_cast<unsigned char>(byte)) == expected);
    CHECK(base.holds_control_byte(static_cast<unsigned char>(byte)) ==
          (byte == '\t' || byte == 0x7F));
  }
}

TEST_CASE("a name cache answers what its pool answers, whatever an address held before",
          "[strings]") {
  StringPool pool;
  detail::NameCache cache;
  // One buffer rewritten between calls: the same address holds another name each time.
  char buffer[] = "span";
  const StringId span = cache.intern(pool, std::string_view(buffer, 4));
  CHECK(pool.view(span) == "span");
  std::memcpy(buffer, "name", 4);
  const StringId name = cache.intern(pool, std::string_view(buffer, 4));
  CHECK(pool.view(name) == "name");
  CHECK(name != span);
  CHECK(!cache.find(pool, std::string_view(buffer, 3)).valid());  // "nam" was never interned
  CHECK(cache.find(pool, std::string_view(buffer, 4)) == name);
  std::memcpy(buffer, "span", 4);
  CHECK(cache.find(pool, std::string_view(buffer, 4)) == span);
  // Four times more names than the cache has slots, each at its own address, asked twice.
  std::vector<std::string> names;
  for (int i = 0; i < 2048; ++i) names.push_back("field_" + std::to_string(i));
  std::size_t wrong = 0;
  for (const std::string& text : names) wrong += pool.view(cache.intern(pool, text)) != text;
  for (const std::string& text : names) wrong += cache.find(pool, text) != pool.find(text);
  CHECK(wrong == 0);
  CHECK(pool.size() == 2 + names.size());
}

TEST_CASE("dtypes parse into code, bits and lanes", "[tensor]") {
  using Code = DataType::Code;
  CHECK(parse_dtype("float32") == DataType{Code::kFloat, 32, 1});
  CHECK(parse_dtype("int8") == DataType{Code::kInt, 8, 1});
  CHECK(parse_dtype("uint1") == DataType{Code::kUInt, 1, 1});
  CHECK(parse_dtype("bool") == DataType{Code::kBool, 1, 1});
  CHECK(parse_dtype("bfloat16") == DataType{Code::kBFloat, 16, 1});
  CHECK(parse_dtype("float16x4") == DataType{Code::kFloat, 16, 4});
  CHECK(parse_dtype("float16x4")->element_bytes() == 8);
  CHECK(parse_dtype("bool")->element_bytes() == 1);
  CHECK(parse_dtype("int64")->element_bytes() == 8);
  CHECK_FALSE(parse_dtype("").has_value());
  CHECK_FALSE(parse_dtype("float").has_value());
  CHECK_FALSE(parse_dtype("float32x").has_value());
  CHECK_FALSE(parse_dtype("float0").has_value());
  CHECK_FALSE(parse_dtype("int32 ").has_value());
  CHECK_FALSE(parse_dtype("complex64").has_value());
  CHECK(parse_dtype("handle") == DataType{Code::kHandle, 64, 1});
  CHECK(parse_dtype("int") == std::nullopt);  // a prefix alone, or shorter than one
  CHECK(parse_dtype("in") == std::nullopt);
  CHECK(parse_dtype("boo") == std::nullopt);
  CHECK(parse_dtype("bools") == std::nullopt);
  CHECK(parse_dtype("bfloat") == std::nullopt);
}

TEST_CASE("text compares with a literal by length and bytes", "[strings]") {
  using graphpat::detail::is_literal;
  using graphpat::detail::starts_with_literal;
  CHECK(is_literal("type_key", "type_key"));
  CHECK_FALSE(is_literal("type_ke", "type_key"));
  CHECK_FALSE(is_literal("type_keys", "type_key"));
  CHECK_FALSE(is_literal("type_kez", "type_key"));
  CHECK(is_literal(std::string_view(), ""));  // a null view, never passed to memcmp
  CHECK_FALSE(is_literal(std::string_view(), "type_key"));
  CHECK(starts_with_literal(std::string_view(), ""));
  CHECK(starts_with_literal("float32", "float"));
  CHECK(starts_with_literal("float", "float"));
  CHECK_FALSE(starts_with_literal("flo", "float"));
  CHECK_FALSE(starts_with_literal("bfloat16", "float"));
}

TEST_CASE("decimal strings parse whole and in range", "[strings]") {
  // Up to 19 digits are read in place, longer ones by from_chars: both refuse the same inputs.
  using graphpat::detail::parse_decimal;
  CHECK(parse_decimal<std::uint32_t>("54") == 54u);
  CHECK(parse_decimal<std::uint32_t>("007") == 7u);
  CHECK(parse_decimal<std::uint32_t>("4294967295") == 4294967295u);
  CHECK(parse_decimal<std::uint32_t>("4294967296") == std::nullopt);
  CHECK(parse_decimal<std::uint64_t>("9999999999999999999") == 9999999999999999999u);  // 19
  CHECK(parse_decimal<std::uint64_t>("18446744073709551615") == 18446744073709551615u);
  CHECK(parse_decimal<std::uint64_t>("18446744073709551616") == std::nullopt);
  CHECK(parse_decimal<std::uint64_t>("00000000000000000001") == 1u);  // 20 digits
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1a", "a", "1.0", "0x1", "/", ":"}) {
    INFO(bad);
    CHECK(parse_decimal<std::uint64_t>(bad) == std::nullopt);
    CHECK(parse_decimal<std::uint32_t>(bad) == std::nullopt);
  }
  CHECK(parse_decimal<std::int64_t>("-12") == -12);
  CHECK(parse_decimal<std::int32_t>("2147483648") == std::nullopt);
}

TEST_CASE("short texts compare in place as memcmp would at every length and byte", "[strings]") {
  // same_text compares up to 16 bytes in overlapping words: checked at each length around the
  // word sizes, against texts that differ from it at each position (first, middle, last
  // bytes of either word) and in length.
  using graphpat::detail::same_text;
  CHECK(same_text(std::string_view(), std::string_view()));
  CHECK(same_text(std::string_view(), ""));
  for (std::size_t length = 1; length <= 40; ++length) {
    std::string text;
    for (std::size_t i = 0; i < length; ++i) text += static_cast<char>('a' + i % 26);
    const std::string copy = text;  // other bytes at another address
    CHECK(same_text(text, copy));
    CHECK_FALSE(same_text(text, std::string_view(copy).substr(0, length - 1)));
    CHECK_FALSE(same_text(text, copy + "a"));
    for (std::size_t position = 0; position < length; ++position) {
      std::string other = copy;
      other[position] = static_cast<char>(other[position] ^ 0x80);
      INFO("length " << length << ", byte " << position);
      CHECK_FALSE(same_text(text, other));
      CHECK_FALSE(same_text(other, text));
    }
  }
}

TEST_CASE("short texts copy in place as memcpy would at every length", "[strings]") {
  // copy_bytes copies up to 16 bytes as overlapping words: each length 0-40 is copied into the
  // middle of a buffer, whose bytes on either side must stay as they were.
  using graphpat::detail::copy_bytes;
  for (std::size_t length = 0; length <= 40; ++length) {
    std::string source;
    for (std::size_t i = 0; i < length; ++i) source += static_cast<char>(0x41 + i);
    std::string buffer(length + 16, '#');
    copy_bytes(buffer.data() + 8, source.data(), length);
    INFO("length " << length);
    CHECK(buffer == std::string(8, '#') + source + std::string(8, '#'));
  }
  std::string untouched = "#";
  copy_bytes(untouched.data(), nullptr, 0);
  CHECK(untouched == "#");
}

TEST_CASE("tensor bytes are shared, not copied", "[tensor]") {
  auto context = relay_context();
  auto buffer = std::make_shared<std::vector<std::uint8_t>>(std::vector<std::uint8_t>{1, 2, 3, 4});
  const std::uint8_t* original = buffer->data();
  TensorId with_bytes =
      context->tensors.add({context->strings.intern("int8"), {2, 2}, share_bytes(buffer)});
  TensorId type_only = context->tensors.add({context->strings.intern("float32"), {64}, {}});
  buffer.reset();  // the tensor keeps the buffer alive
  const Tensor& tensor = context->tensors.get(with_bytes);
  REQUIRE(tensor.has_data());
  CHECK(tensor.data->view().data() == original);
  CHECK(std::vector<std::uint8_t>(tensor.data->view().begin(), tensor.data->view().end()) ==
        std::vector<std::uint8_t>{1, 2, 3, 4});
  CHECK_FALSE(context->tensors.get(type_only).has_data());
  CHECK(context->tensors.get(type_only).shape == std::vector<std::int64_t>{64});
  CHECK(with_bytes != type_only);
}

TEST_CASE("types are interned structurally", "[types]") {
  auto context = relay_context();
  TypeTable& types = context->types;
  TypeId image =
      types.tensor("float32", {types.dim(1), types.dim(3), types.dim(224), types.dim(224)});
  CHECK(types.tensor("float32", {types.dim(1), types.dim(3), types.dim(224), types.dim(224)}) ==
        image);
  CHECK(types.tensor("float16", {types.dim(1), types.dim(3), types.dim(224), types.dim(224)}) !=
        image);
  // An int64 extent is a different dim from the int32 one, as in TVM (1 vs 1i64).
  CHECK(types.dim(1, 64) != types.dim(1));
  CHECK(types.tensor("float32", {types.dim(1, 64)}) != types.tensor("float32", {types.dim(1)}));
  TypeId scalar = types.tensor("int64", {});
  CHECK(types.kind(scalar) == TypeKind::kTensor);
  CHECK(types.dims(scalar).empty());
  TypeId pair = types.tuple({image, scalar});
  CHECK(types.tuple({image, scalar}) == pair);
  CHECK(types.tuple({scalar, image}) != pair);
  REQUIRE(types.children(pair).size() == 2);
  CHECK(types.children(pair)[1] == scalar);
  TypeId a = types.type_var("A");
  TypeId fn = types.func(std::vector{a, image}, scalar, std::vector{a});
  CHECK(types.func_type_params(fn).size() == 1);
  CHECK(types.func_type_params(fn)[0] == a);
  REQUIRE(types.func_params(fn).size() == 2);
  CHECK(types.func_params(fn)[1] == image);
  CHECK(types.func_result(fn) == scalar);
  CHECK(types.func(std::vector{a, image}, scalar) != fn);  // no type params: another type
  CHECK(types.opaque("meta[IncompleteType][0]") == types.opaque("meta[IncompleteType][0]"));
}

TEST_CASE("types print as Relay writes them", "[types][format]") {
  auto context = relay_context();
  TypeTable& types = context->types;
  auto text = [&](TypeId id) { return to_string(*context, id); };
  TypeId image =
      types.tensor("float32", {types.dim(1), types.dim(64), types.dim(56), types.dim(56)});
  CHECK(text(image) == "Tensor[(1, 64, 56, 56), float32]");
  CHECK(text(types.tensor("float32", {types.dim(64)})) == "Tensor[(64), float32]");
  CHECK(text(types.tensor("bool", {})) == "bool");
  CHECK(text(types.tensor("int64", {types.dim(2, 64), types.any_dim()})) ==
        "Tensor[(2i64, ?), int64]");
  CHECK(text(types.tensor("float32", {types.symbolic_dim("n", "tir.SizeVar"), types.dim(3)})) ==
        "Tensor[(n, 3), float32]");
  TypeId scalar = types.tensor("float32", {});
  CHECK(text(types.tuple({scalar})) == "(float32,)");
  CHECK(text(types.tuple({})) == "()");
  CHECK(text(types.tuple({image, scalar})) == "(Tensor[(1, 64, 56, 56), float32], float32)");
  CHECK(text(types.func(std::vector{scalar, scalar}, scalar)) ==
        "fn (float32, float32) -> float32");
  TypeId a = types.type_var("A");
  TypeId b = types.type_var("B");
  CHECK(text(types.func(std::vector{a}, a, std::vector{a, b})) == "fn [A, B](A) -> A");
  TypeId list = types.global_type_var("List");
  CHECK(text(types.type_call(list, std::vector{a})) == "List[A]");
  CHECK(text(types.ref(scalar)) == "ref(float32)");
  CHECK(fmt::format("{}", show(*context, image)) == "Tensor[(1, 64, 56, 56), float32]");
}

TEST_CASE("attribute values are interned by value and width", "[attrs]") {
  auto context = relay_context();
  AttrTable& attrs = context->attrs;
  CHECK(attrs.integer(1) == attrs.integer(1));
  CHECK(attrs.integer(1) != attrs.integer(1, 64));
  CHECK(attrs.integer(1) != attrs.boolean(true));
  CHECK(attrs.floating(0.5, 32) == attrs.floating(0.5, 32));
  CHECK(attrs.floating(0.5, 32) != attrs.floating(0.5, 64));
  // Kept bit for bit: -0 is not 0 (both print differently in Relay).
  CHECK(attrs.floating(-0.0, 32) != attrs.floating(0.0, 32));
  CHECK(attrs.as_float(attrs.floating(0.1, 32)) == 0.1);
  CHECK(attrs.as_int(attrs.integer(std::numeric_limits<std::int64_t>::min(), 64)) ==
        std::numeric_limits<std::int64_t>::min());
  CHECK(attrs.string("NCHW") != attrs.data_type("NCHW"));
  AttrValueId strides = attrs.array({attrs.integer(2), attrs.integer(2)});
  CHECK(attrs.array({attrs.integer(2), attrs.integer(2)}) == strides);
  CHECK(attrs.elements(strides).size() == 2);
  AttrValueId conv = attrs.object("relay.attrs.Conv2DAttrs",
                                  {{"strides", strides}, {"data_layout", attrs.string("NHWC")}});
  CHECK(attrs.object("relay.attrs.Conv2DAttrs",
                     {{"strides", strides}, {"data_layout", attrs.string("NHWC")}}) == conv);
  // Field order is part of the value (printing follows it).
  CHECK(attrs.object("relay.attrs.Conv2DAttrs",
                     {{"data_layout", attrs.string("NHWC")}, {"strides", strides}}) != conv);
  CHECK(attrs.object("relay.attrs.Conv2DTransposeAttrs",
                     {{"strides", strides}, {"data_layout", attrs.string("NHWC")}}) != conv);
  CHECK(attrs.text(conv) == "relay.attrs.Conv2DAttrs");
  REQUIRE(attrs.find_field(conv, "data_layout").has_value());
  CHECK(attrs.text(*attrs.find_field(conv, "data_layout")) == "NHWC");
  CHECK_FALSE(attrs.find_field(conv, "groups").has_value());
  CHECK_FALSE(attrs.find_field(conv, "never_interned_key").has_value());
  std::pair<AttrValueId, AttrValueId> entry{attrs.string("a"), attrs.integer(1)};
  AttrValueId map = attrs.map(std::span(&entry, 1));
  CHECK(attrs.entry_count(map) == 1);
  CHECK(attrs.map_key(map, 0) == attrs.string("a"));
  CHECK(attrs.entry_value(map, 0) == attrs.integer(1));
}

TEST_CASE("attribute values print in Relay attribute syntax", "[attrs][format]") {
  auto context = relay_context();
  AttrTable& attrs = context->attrs;
  auto text = [&](AttrValueId id) { return to_string(*context, id); };
  CHECK(text(attrs.null()) == "None");
  CHECK(text(attrs.boolean(true)) == "True");
  CHECK(text(attrs.boolean(false)) == "False");
  CHECK(text(attrs.integer(-1)) == "-1");
  CHECK(text(attrs.integer(2, 64)) == "2i64");
  CHECK(text(attrs.integer(1, 16)) == "1i16");
  CHECK(text(attrs.integer(1, 8)) == "1");  // int8/uint8 lose their dtype in TVM's printer
  CHECK(text(attrs.floating(6.0, 32)) == "6f");
  CHECK(text(attrs.floating(0.5, 16)) == "0.5f16");
  CHECK(text(attrs.floating(0.25, 64)) == "0.25f64");
  CHECK(text(attrs.string("NCHW")) == "\"NCHW\"");
  CHECK(text(attrs.data_type("float32")) == "\"float32\"");
  CHECK(text(attrs.data_type("")) == "\"\"");
  CHECK(text(attrs.array({attrs.array({attrs.integer(0), attrs.integer(0)}),
                          attrs.array({attrs.integer(1), attrs.integer(1)})})) ==
        "[[0, 0], [1, 1]]");
  CHECK(text(attrs.array({})) == "[]");
  CHECK(text(attrs.object("relay.attrs.SoftmaxAttrs", {{"axis", attrs.integer(0)}})) == "{axis=0}");
  std::pair<AttrValueId, AttrValueId> entry{attrs.string("a"), attrs.integer(1)};
  CHECK(text(attrs.map(std::span(&entry, 1))) == "{\"a\"=1}");
  CHECK(fmt::format("{}", show(*context, attrs.integer(7, 64))) == "7i64");
}

TEST_CASE("floats format as TVM's ostream does, with the width suffix", "[format]") {
  // The forms of docs/relay-formats.md §1.4 and §1.5 (verified against TVM v0.14).
  CHECK(format_float(6, 32) == "6f");
  CHECK(format_float(0.5, 32) == "0.5f");
  CHECK(format_float(1e-5, 32) == "1e-05f");
  CHECK(format_float(1e6, 32) == "1e+06f");
  CHECK(format_float(123456, 32) == "123456f");
  CHECK(format_float(1234567, 32) == "1.23457e+06f");
  CHECK(format_float(-0.75, 32) == "-0.75f");
  CHECK(format_float(std::numeric_limits<double>::infinity(), 32) == "inff");
  CHECK(format_float(-std::numeric_limits<double>::infinity(), 32) == "-inff");
  CHECK(format_float(1e-10, 32) == "1e-10f");
  CHECK(format_float(100000, 32) == "100000f");
  CHECK(format_float(1e16, 32) == "1e+16f");
  CHECK(format_float(1.0 / 3.0, 32) == "0.333333f");
  CHECK(format_float(2.5e-7, 32) == "2.5e-07f");
  CHECK(format_float(-0.0, 32) == "-0f");
  CHECK(format_float(std::nan(""), 32) == "nanf");
  CHECK(format_float(-std::nan(""), 64) == "-nanf64");
  // docs/relay-formats.md §1.5: float16 0.1 is 0.0999756 once rounded to half precision.
  CHECK(format_float(0.0999755859375, 16) == "0.0999756f16");
  CHECK(format_float(1e300, 64) == "1e+300f64");
  // Other widths (bfloat16) print std::to_string style without a suffix.
  CHECK(format_float(0.5, 8) == "0.500000");
}

TEST_CASE("integers format with the width suffix", "[format]") {
  CHECK(format_int(-32768, 16, false) == "-32768i16");
  CHECK(format_int(std::numeric_limits<std::int32_t>::min(), 32, false) == "-2147483648");
  CHECK(format_int(std::numeric_limits<std::int64_t>::min(), 64, false) ==
        "-9223372036854775808i64");
  CHECK(format_int(std::numeric_limits<std::int64_t>::max(), 64, false) ==
        "9223372036854775807i64");
  CHECK(format_int(-1, 64, true) == "18446744073709551615");
}

TEST_CASE("strings escape as Relay's StrEscape does", "[format]") {
  // docs/relay-formats.md §1.4: q"b\s<TAB>t<CR>r<LF>n<0x01><0x7F>é
  CHECK(escape_string("q\"b\\s\tt\rr\nn\x01\x7F\xC3\xA9") ==
        "q\\\"b\\\\s\\tt\\rr\\nn\\x01\\x7F\\xC3\\xA9");
  CHECK(escape_string("NCHW") == "NCHW");
}

TEST_CASE("spans are interned", "[spans]") {
  auto context = relay_context();
  StringId conv = context->strings.intern("Conv_0");
  SpanId a = context->spans.intern({conv, 0, 0, 0, 0});
  CHECK(context->spans.intern({conv, 0, 0, 0, 0}) == a);
  SpanId b = context->spans.intern({conv, 12, 7, 0, 0});
  CHECK(b != a);
  CHECK(context->spans.get(b).line == 12);
  CHECK(context->spans.get(b).column == 7);
}

TEST_CASE("ids format as %N and #N", "[format]") {
  CHECK(fmt::format("{}", NodeId(12)) == "%12");
  CHECK(fmt::format("{}", NodeId()) == "%none");
  CHECK(fmt::format("{}", TypeId(3)) == "#3");
  CHECK(fmt::format("{}", OpId()) == "#none");
}

TEST_CASE("errors carry a stable id", "[errors]") {
  absl::Status status =
      make_error(absl::StatusCode::kInvalidArgument, "relay_text.unexpected_token",
                 "12:7: expected ')' after call arguments, found ';'");
  CHECK(
      std::string(status.message()) ==
      "[graphpat.relay_text.unexpected_token] 12:7: expected ')' after call arguments, found ';'");
  CHECK(error_id(status) == "graphpat.relay_text.unexpected_token");
  CHECK(error_id(absl::InvalidArgumentError("plain")) == "");
  CHECK(error_id(absl::OkStatus()) == "");
  // Statuses and their messages print with fmt.
  CHECK(fmt::format("{}", status) ==
        "[graphpat.relay_text.unexpected_token] 12:7: expected ')' after call arguments, found ';'");
  CHECK(fmt::format("{}", status.message()) == fmt::format("{}", status));
  CHECK(fmt::format("<{:>4}>", absl::OkStatus()) == "<  OK>");
}

TEST_CASE("the Relay registry holds TVM's ops with their schemas and properties", "[ops]") {
  auto context = relay_context();
  OpRegistry& ops = context->ops;
  CHECK(ops.size() == 288);
  const OpInfo& add = ops.info(ops.find("add"));
  CHECK(add.known);
  CHECK(add.commutative);
  CHECK_FALSE(add.stateful);
  CHECK(add.pattern_kind == OpPatternKind::kBroadcast);
  CHECK(ops.schema(add) == nullptr);
  for (std::string_view name : {"multiply", "maximum", "minimum", "logical_and", "logical_or",
                                "equal", "not_equal", "bitwise_and", "bitwise_or", "bitwise_xor"}) {
    INFO(name);
    CHECK(ops.info(ops.find(name)).commutative);
  }
  for (std::string_view name : {"subtract", "divide", "power", "nn.conv2d", "less"}) {
    INFO(name);
    CHECK_FALSE(ops.info(ops.find(name)).commutative);
  }
  CHECK(ops.info(ops.find("nn.dropout")).stateful);
  CHECK_FALSE(ops.info(ops.find("nn.relu")).stateful);
  CHECK(ops.info(ops.find("nn.relu")).pattern_kind == OpPatternKind::kElemWise);
  CHECK(ops.info(ops.find("nn.conv2d")).pattern_kind == OpPatternKind::kOutEWiseFusable);
  CHECK(ops.info(ops.find("nn.dense")).pattern_kind == OpPatternKind::kOutEWiseFusable);
  CHECK(ops.info(ops.find("reshape")).pattern_kind == OpPatternKind::kInjective);
  CHECK(ops.info(ops.find("sum")).pattern_kind == OpPatternKind::kCommReduce);
  CHECK(ops.info(ops.find("nn.batch_norm")).pattern_kind == OpPatternKind::kOutEWiseFusable);
  CHECK(ops.info(ops.find("nn.cross_entropy")).pattern_kind == OpPatternKind::kOpaque);

  const AttrSchema* conv = ops.schema(ops.info(ops.find("nn.conv2d")));
  REQUIRE(conv != nullptr);
  CHECK(context->strings.view(conv->type_key) == "relay.attrs.Conv2DAttrs");
  // docs/relay-formats.md §2.2, nn.conv2d: fields in declaration order with their defaults.
  struct Expected {
    std::string_view name, cpp_type;
    bool has_default;
    std::string_view default_value;
  };
  const std::vector<Expected> expected = {
      {"strides", "Array<IndexExpr>", true, "[1, 1]"},
      {"padding", "Array<IndexExpr>", true, "[0, 0]"},
      {"dilation", "Array<IndexExpr>", true, "[1, 1]"},
      {"groups", "int", true, "1"},
      {"channels", "IndexExpr", true, "None"},
      {"kernel_size", "Array<IndexExpr>", true, "None"},
      {"data_layout", "tvm::String", true, "\"NCHW\""},
      {"kernel_layout", "tvm::String", true, "\"OIHW\""},
      {"out_layout", "tvm::String", true, "\"\""},
      {"out_dtype", "DataType", true, "\"\""},
  };
  REQUIRE(conv->fields.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO(expected[i].name);
    CHECK(context->strings.view(conv->fields[i].name) == expected[i].name);
    CHECK(context->strings.view(conv->fields[i].cpp_type) == expected[i].cpp_type);
    CHECK(conv->fields[i].has_default == expected[i].has_default);
    CHECK(context->strings.view(conv->fields[i].default_value) == expected[i].default_value);
  }
  const AttrSchema* dense = ops.find_schema("relay.attrs.DenseAttrs");
  REQUIRE(dense != nullptr);
  CHECK(context->strings.view(dense->fields[0].name) == "units");
  CHECK_FALSE(dense->fields[0].has_default);  // TVM declares none: always printed
  CHECK(ops.find_schema("relay.attrs.NoSuchAttrs") == nullptr);
}

TEST_CASE("unknown ops are registered on the fly as opaque", "[ops]") {
  auto context = relay_context();
  CHECK_FALSE(context->ops.find("vendor.fused_conv").valid());
  OpId vendor = context->op("vendor.fused_conv");
  REQUIRE(vendor.valid());
  CHECK(context->op("vendor.fused_conv") == vendor);
  const OpInfo& info = context->ops.info(vendor);
  CHECK_FALSE(info.known);
  CHECK(info.pattern_kind == OpPatternKind::kOpaque);
  CHECK_FALSE(info.commutative);
  CHECK_FALSE(info.stateful);
  CHECK(context->ops.size() == 289);
  CHECK(context->op_name(vendor) == "vendor.fused_conv");
}

TEST_CASE("a second dialect fills its own registry", "[ops][dialect]") {
  auto context = Context::create<testing::ArithDialect>();
  CHECK(context->dialect_name() == "arith");
  CHECK(context->ops.size() == 6);
  CHECK(context->ops.info(context->ops.find("mul")).commutative);
  CHECK(context->ops.info(context->ops.find("rand")).stateful);
  CHECK_FALSE(context->ops.find("nn.conv2d").valid());
}
