// ONNX op names: how graphpat spells an ONNX operator, whose identity is (domain, op_type), as
// one op name of the registry, and how it splits a name back. The default domain ("" or its
// alias "ai.onnx") is the bare op_type; any other domain prefixes it with a dot.
//
//   graphpat::onnx::op_name("", "Conv");                          // "Conv"
//   graphpat::onnx::op_name("com.microsoft", "FusedConv");       // "com.microsoft.FusedConv"
//   graphpat::onnx::split_op_name("ai.onnx.ml.LinearClassifier");
//   // {.domain = "ai.onnx.ml", .op_type = "LinearClassifier"}
//
// Domains hold dots, so a name splits after the longest domain the splitter knows (ONNX's own
// domains, which libonnx registers, and those the caller adds: a model's opset imports). A
// dotted name under no known domain splits at its last dot ("com.example.Op" is op `Op` of
// domain `com.example`), since ONNX's op_types are identifiers and domains are dotted names; a
// name without a dot is of the default domain, spelt "". So every (domain, op_type) whose
// op_type has no dot comes back from its name, the domain "ai.onnx" as "".
#pragma once

#include <onnx/defs/schema.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace graphpat::onnx {

/// An ONNX operator's identity; `domain` is "" for the default domain.
struct OpIdentity {
  std::string_view domain;
  std::string_view op_type;
  friend bool operator==(const OpIdentity&, const OpIdentity&) = default;
};

/// Whether `domain` is ONNX's default domain: "" or "ai.onnx".
inline bool is_default_domain(std::string_view domain) {
  return domain.empty() || domain == "ai.onnx";
}

/// The registry's name of op `op_type` of `domain` (see the top of this file).
inline std::string op_name(std::string_view domain, std::string_view op_type) {
  std::string name;
  if (!is_default_domain(domain)) {
    name.reserve(domain.size() + 1 + op_type.size());
    name.append(domain).push_back('.');
  }
  name.append(op_type);
  return name;
}

/// The non-default domains libonnx registers ("ai.onnx.ml", "ai.onnx.training",
/// "ai.onnx.preview.training" in ONNX 1.12), and "ai.onnx".
inline const std::vector<std::string>& onnx_domains() {
  static const std::vector<std::string> domains = [] {
    std::vector<std::string> found{"ai.onnx"};
    for (const auto& [domain, versions] :
         ::onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map()) {
      if (!domain.empty() && domain != "ai.onnx") found.push_back(domain);
    }
    return found;
  }();
  return domains;
}

/// The (domain, op_type) of the registry's op name `name`: after the longest of onnx_domains()
/// and `more_domains` that prefixes it, else at its last dot, else of the default domain (see
/// the top of this file). The views point into `name`.
inline OpIdentity split_op_name(std::string_view name,
                                std::span<const std::string> more_domains = {}) {
  std::string_view best;
  auto consider = [&](std::string_view domain) {
    if (domain.empty() || domain.size() <= best.size() || name.size() <= domain.size() + 1)
      return;
    if (name.starts_with(domain) && name[domain.size()] == '.') best = domain;
  };
  for (const std::string& domain : onnx_domains()) consider(domain);
  for (const std::string& domain : more_domains) consider(domain);
  if (!best.empty()) return {best, name.substr(best.size() + 1)};
  std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == name.size()) return {{}, name};
  return {name.substr(0, dot), name.substr(dot + 1)};
}

}  // namespace graphpat::onnx
