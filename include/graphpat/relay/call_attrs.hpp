// A Relay call's attributes from `k=v` fields: the canonical object of the op's attribute
// struct (its schema in the op registry, every field in declaration order, the others at their
// declared defaults), the very object the Relay text and JSON readers give the call, so a call
// built with it equals the call they read. It lives here, below io/, so that a rewrite callback
// can build such a call without a reader (Rewriter::call, through relay::Dialect).
//
//   auto attrs = graphpat::relay::call_attrs(context, "nn.conv2d",
//                                            {{"channels", context.attrs.integer(16)}});
//   NodeId conv = builder.call("nn.conv2d", {x, w}, {.attrs = *attrs});
//
// The op must be registered: a name the registry does not have (a typo such as `nn.rleu`) is
// refused, as Builder::call asserts and TVM's Op::Get raises. An op Relay does not know is
// made on purpose with Builder::opaque_op, which registers it; its fields are then kept as
// written:
//
//   NodeId fused = builder.opaque_op("vendor.fused");
//   auto kept = graphpat::relay::call_attrs(context, "vendor.fused",
//                                           {{"k", context.attrs.integer(1)}});
//   NodeId call = builder.call(fused, {x}, {.attrs = *kept});
#pragma once

#include <absl/status/statusor.h>

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/detail/linkage.hpp"
#include "graphpat/ir/context.hpp"

namespace graphpat::relay {

/// The attributes the Relay readers give a call of `op_name` written with `fields`: the
/// canonical object of the op's schema; for a registered op without a schema (an opaque op a
/// reader met or Builder::opaque_op made), the fields as written under
/// "graphpat.relay_text.UnknownAttrs", or no attributes when there are none.
///
/// Errors, as the reader's without a place (there is no text): `relay_text.unregistered_op`
/// for an op the context's registry does not have ("no op nn.rleu is registered in dialect
/// relay"; it is not registered then), `relay_text.bad_attribute` for a value the field cannot
/// hold, `relay_text.missing_attribute` for a required field left out.
GRAPHPAT_ENTRY absl::StatusOr<AttrValueId> call_attrs(Context& context, std::string_view op_name,
                                                      std::span<const AttrField> fields);

/// The same, the fields named by strings.
GRAPHPAT_ENTRY absl::StatusOr<AttrValueId> call_attrs(
    Context& context, std::string_view op_name,
    const std::vector<std::pair<std::string_view, AttrValueId>>& fields = {});

}  // namespace graphpat::relay

#if GRAPHPAT_ENTRY_DEFINITIONS
#include <fmt/format.h>

#include <optional>

#include "graphpat/ir/errors.hpp"
#include "graphpat/relay/text/attributes.hpp"

namespace graphpat::relay {

GRAPHPAT_ENTRY absl::StatusOr<AttrValueId> call_attrs(Context& context, std::string_view op_name,
                                                      std::span<const AttrField> fields) {
  OpId op = context.ops.find(op_name);
  if (!op.valid()) {
    return make_error(absl::StatusCode::kInvalidArgument, "relay_text.unregistered_op",
                      graphpat::detail::unregistered_op_text(op_name, context.dialect_name()));
  }
  const AttrSchema* schema = context.ops.schema(context.ops.info(op));
  if (schema == nullptr) {
    if (fields.empty()) return AttrValueId();
    return context.attrs.object(graphpat::detail::kUnknownAttrsKey, fields);
  }
  return graphpat::detail::AttrSchemaCache::of(context).canonical(
      *schema, fields, op_name,
      [](std::string_view id, std::optional<std::size_t>, const std::string& problem) {
        return make_error(absl::StatusCode::kInvalidArgument, fmt::format("relay_text.{}", id),
                          problem);
      });
}

GRAPHPAT_ENTRY absl::StatusOr<AttrValueId> call_attrs(
    Context& context, std::string_view op_name,
    const std::vector<std::pair<std::string_view, AttrValueId>>& fields) {
  std::vector<AttrField> written;
  for (const auto& [key, value] : fields) written.push_back({context.strings.intern(key), value});
  return call_attrs(context, op_name, written);
}

}  // namespace graphpat::relay
#endif  // GRAPHPAT_ENTRY_DEFINITIONS
