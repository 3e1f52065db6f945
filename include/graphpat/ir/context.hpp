// A context owns everything graphs share by id: interned strings, types, attribute values and
// spans, constant tensors, and the op registry filled by a dialect. Graphs hold their context
// through a shared_ptr; a pass's output graph shares its input's context, so ids stay
// comparable between the two and nothing is re-interned. The dialect fills its registry once
// per process, into a frozen prototype; a new context shares the prototype's strings and
// copies its small op table, so creating one costs microseconds, not a registration.
//
//   std::shared_ptr<graphpat::Context> context =
//   graphpat::Context::create<graphpat::relay::Dialect>(); graphpat::OpId conv =
//   context->op("nn.conv2d"); bool commutative = context->ops.info(context->op("add")).commutative;
//   // true
#pragma once

#include <concepts>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/detail/linkage.hpp"
#include "graphpat/ir/attrs.hpp"
#include "graphpat/ir/conventions.hpp"
#include "graphpat/ir/op_registry.hpp"
#include "graphpat/ir/spans.hpp"
#include "graphpat/ir/strings.hpp"
#include "graphpat/ir/tensor.hpp"
#include "graphpat/ir/types.hpp"

namespace graphpat {

class Context;

/// A dialect names itself and fills a context's op registry; it may also declare
/// `static constexpr DialectConventions kConventions` (conventions.hpp).
template <class D>
concept Dialect = requires(Context& context) {
  { D::kName } -> std::convertible_to<std::string_view>;
  D::register_ops(context);
} && (DeclaresConventions<D> || !requires { D::kConventions; });

/// The tables shared by the graphs of one dialect. Not thread-safe; not copyable.
class Context {
 public:
  /// A new context whose op registry the dialect `D` has filled.
  template <Dialect D>
  static std::shared_ptr<Context> create() {
    static const Context* const prototype = [] {
      auto* filled = new Context(D::kName);  // never freed: contexts read it until exit
      D::register_ops(*filled);
      return filled;
    }();
    return std::shared_ptr<Context>(new Context(SeededFrom{*prototype}));
  }

  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  /// The op called `name`; an op the dialect does not know is registered as opaque.
  GRAPHPAT_INSTANTIATED_ON_CALL OpId op(std::string_view name) { return ops.find_or_add(name); }
  [[nodiscard]] std::string_view op_name(OpId id) const { return ops.name(id); }
  [[nodiscard]] std::string_view dialect_name() const { return dialect_name_; }

  /// The one `T` of this context, made as `T(*this)` on first use and kept as long as the
  /// context: what a reader or writer derives from the tables and reuses from call to call
  /// (detail::AttrSchemaCache: each schema's parsed defaults, each attribute object's text).
  /// T may only depend on what the tables hold, which only ever grows.
  template <class T>
  T& derived() {
    static constexpr char kTag = 0;  // one address per T
    for (auto& [tag, value] : derived_) {
      if (tag == &kTag) return *static_cast<T*>(value.get());
    }
    auto made = std::make_shared<T>(*this);
    T& result = *made;
    derived_.emplace_back(&kTag, std::move(made));
    return result;
  }

  StringPool strings;
  TypeTable types{strings};
  AttrTable attrs{strings};
  SpanTable spans;
  TensorTable tensors;
  OpRegistry ops{strings};

 private:
  explicit Context(std::string_view dialect_name) : dialect_name_(dialect_name) {}
  struct SeededFrom {
    const Context& prototype;
  };
  explicit Context(SeededFrom seed)
      : strings(&seed.prototype.strings),
        ops(strings, seed.prototype.ops),
        dialect_name_(seed.prototype.dialect_name_) {}

  std::string_view dialect_name_;
  std::vector<std::pair<const void*, std::shared_ptr<void>>> derived_;  // derived<T>()'s
};

}  // namespace graphpat
