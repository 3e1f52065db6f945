// The one walk over an attribute value that every printer of values shares: Relay's attribute
// syntax (`to_string` in ir/format.hpp, and Relay text's call attributes with their meta[...]
// references, relay/text/attributes.hpp) and graph JSON's tagged values
// (io/graph_json/attr_values.hpp). A syntax says how a scalar, a map's and an object's brackets
// and an entry's key are spelt; the walk does the nesting, the arrays (`[a, b]` in every syntax)
// and the commas, and stops at the first value the syntax cannot write.
//
//   class Upper : public graphpat::detail::RelayAttrSyntax {   // ir/format.hpp's syntax
//     std::optional<bool> whole(std::string& out, const Context& c, AttrValueId id) const override {
//       if (c.attrs.kind(id) != AttrKind::kString) return std::nullopt;  // the walk spells it
//       out += absl::AsciiStrToUpper(c.attrs.text(id));
//       return true;
//     }
//   };
//   std::string out;
//   bool written = graphpat::detail::append_attr(out, context, value, Upper{});
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "graphpat/ir/context.hpp"

namespace graphpat::detail {

/// How one syntax spells attribute values; the walk is append_attr's. Each member that writes
/// returns false for a value the syntax cannot write (graph JSON: a string that is not UTF-8),
/// which ends the walk.
class AttrSyntax {
 public:
  AttrSyntax(const AttrSyntax&) = delete;
  AttrSyntax& operator=(const AttrSyntax&) = delete;
  virtual ~AttrSyntax() = default;

  /// Spells a whole value its own way (true: written, false: cannot be), or nullopt to leave it
  /// to the walk. Asked first of every value, nested ones included.
  virtual std::optional<bool> whole(std::string& /*out*/, const Context& /*context*/,
                                    AttrValueId /*id*/) const {
    return std::nullopt;
  }
  /// A null, bool, int, float, string or dtype.
  virtual bool scalar(std::string& out, const Context& context, AttrValueId id) const = 0;
  /// What stands before an object's first field: `{`, or the object's type and more.
  virtual bool open_object(std::string& out, const Context& context, AttrValueId id) const = 0;
  /// A field's key and what separates it from its value: `k=`, `"k": `.
  virtual bool field_key(std::string& out, std::string_view key) const = 0;
  virtual void close_object(std::string& out, const Context& context, AttrValueId id) const = 0;

  /// A map's brackets, and the spelling of one entry: OPEN key BETWEEN value CLOSE.
  struct MapSpelling {
    std::string_view open, close, entry_open, entry_between, entry_close;
  };
  [[nodiscard]] const MapSpelling& map() const { return map_; }

 protected:
  explicit AttrSyntax(MapSpelling map) : map_(map) {}

 private:
  MapSpelling map_;
};

/// Appends value `id` in `syntax`; false when the syntax could not write a part of it (`out`
/// then holds what came before). Recursion follows the nesting of one value, which the readers
/// bound; never a graph.
inline bool append_attr(std::string& out, const Context& context, AttrValueId id,
                        const AttrSyntax& syntax) {
  if (std::optional<bool> written = syntax.whole(out, context, id)) return *written;
  const AttrTable& attrs = context.attrs;
  switch (attrs.kind(id)) {
    case AttrKind::kArray: {
      out += '[';
      bool first = true;
      for (AttrValueId element : attrs.elements(id)) {
        if (!first) out += ", ";
        first = false;
        if (!append_attr(out, context, element, syntax)) return false;
      }
      out += ']';
      return true;
    }
    case AttrKind::kMap: {
      const AttrSyntax::MapSpelling& map = syntax.map();
      out += map.open;
      for (std::size_t i = 0; i < attrs.entry_count(id); ++i) {
        if (i > 0) out += ", ";
        out += map.entry_open;
        if (!append_attr(out, context, attrs.map_key(id, i), syntax)) return false;
        out += map.entry_between;
        if (!append_attr(out, context, attrs.entry_value(id, i), syntax)) return false;
        out += map.entry_close;
      }
      out += map.close;
      return true;
    }
    case AttrKind::kObject: {
      if (!syntax.open_object(out, context, id)) return false;
      for (std::size_t i = 0; i < attrs.entry_count(id); ++i) {
        if (i > 0) out += ", ";
        if (!syntax.field_key(out, context.strings.view(attrs.field_key(id, i)))) return false;
        if (!append_attr(out, context, attrs.entry_value(id, i), syntax)) return false;
      }
      syntax.close_object(out, context, id);
      return true;
    }
    default:
      return syntax.scalar(out, context, id);
  }
}

}  // namespace graphpat::detail
