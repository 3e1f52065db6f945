// graphpat._graphpat, the extension module behind the Python package python/graphpat/ (issue 26).
// Two submodules, one per dialect, with the same engine functions: `relay` (Relay text and TVM
// JSON) and `onnx` (.onnx files). Each has a Module and a read-only Node view (op, attrs, type,
// operands, users, a constant's bytes through the buffer protocol), match, explain, partition,
// merge_composite, rewrite with Python callbacks, CSE and DOT pictures; patterns are read from
// TVM's Python spelling, which graphpat.dpl writes. An error status is raised as graphpat.Error
// (its id and place, python/graphpat/__init__.py). An engine runs holding the GIL: a module and
// the modules made from it share one context, which engines write to (a partition interns its
// functions' names and attributes) and which is not thread-safe, and Python threads may share a
// module; only the readers, which make a context of their own, let other threads run meanwhile.
// Used through the package:
//   import graphpat.relay, graphpat.dpl
//   mod = graphpat.relay.parse(text)
//   out, report = graphpat.dpl.is_op("nn.relu")(graphpat.dpl.wildcard()).partition(mod)
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "graphpat/graphpat.hpp"
#include "graphpat/io/onnx.hpp"
#include "graphpat/onnx/dialect.hpp"
#include "graphpat/pattern/explain.hpp"
#include "graphpat/pattern/graph_matcher.hpp"
#include "graphpat/pattern/matcher.hpp"
#include "graphpat/transform/cse.hpp"
#include "graphpat/transform/graph_partition.hpp"
#include "graphpat/transform/merge_composite.hpp"
#include "graphpat/transform/partition.hpp"

namespace py = pybind11;

namespace {

using graphpat::NodeId;

// A failed status on its way to Python, where graphpat.Error is made of it.
struct StatusError {
  std::string id;
  std::string problem;
  std::string message;
};

[[noreturn]] void raise(const absl::Status& status) {
  throw StatusError{std::string(graphpat::error_id(status)),
                    std::string(graphpat::error_problem(status)), std::string(status.message())};
}

template <typename T>
T value_or_raise(absl::StatusOr<T> result) {
  if (!result.ok()) raise(result.status());
  return *std::move(result);
}

constexpr const char* kStaleNode =
    "a node a callback was given is used after the callback returned; keep what it says "
    "(op, attrs, astext()), not the node";

template <graphpat::Dialect D>
constexpr bool kIsOnnx = std::is_same_v<D, graphpat::onnx::Dialect>;

// What writing an ONNX module back needs besides the graph: the load it descends from.
template <graphpat::Dialect D>
struct Origin {};
template <>
struct Origin<graphpat::onnx::Dialect> {
  graphpat::onnx::OnnxProvenance provenance;
};

// A module as Python holds it: immutable (passes make new ones), with its users index built on
// first use.
template <graphpat::Dialect D>
struct Shared {
  graphpat::Module<D> module;
  Origin<D> origin;
  std::optional<graphpat::UsersIndex> users;

  const graphpat::UsersIndex& users_index() {
    if (!users) users = graphpat::UsersIndex::build(module.graph);
    return *users;
  }
};
template <graphpat::Dialect D>
using SharedPtr = std::shared_ptr<Shared<D>>;

// A pass's result, descending from `from` (an ONNX module keeps its file's provenance).
template <graphpat::Dialect D>
SharedPtr<D> derived(const SharedPtr<D>& from, graphpat::Module<D> module) {
  return std::make_shared<Shared<D>>(Shared<D>{std::move(module), from->origin, std::nullopt});
}

// A node of a module, kept alive by the module it belongs to; or, inside a callback (module
// null), a node of the graph an engine is working on, valid while the callback runs.
template <graphpat::Dialect D>
struct NodeView {
  SharedPtr<D> module;
  const graphpat::Graph<D>* graph_in;
  NodeId id;
  // Inside a callback: false once the callback has returned (the graph changes after).
  std::shared_ptr<const bool> alive;

  const graphpat::Graph<D>& graph() const {
    if (alive && !*alive) throw py::value_error(kStaleNode);
    return *graph_in;
  }
  NodeView at(NodeId other) const { return {module, graph_in, other, alive}; }
  py::list views(std::span<const NodeId> ids) const {
    py::list out;
    for (NodeId node : ids) out.append(at(node));
    return out;
  }
};

template <graphpat::Dialect D>
NodeView<D> view(const SharedPtr<D>& module, NodeId id) {
  return {module, &module->module.graph, id, nullptr};
}

// A constant's bytes, shared with the graph (never copied), read through the buffer protocol:
// numpy.asarray(node.tensor) is an array over the graph's own buffer, read-only.
struct TensorData {
  graphpat::TensorBytes bytes;
  std::string format;  // the struct module's code, little-endian ("<f", "<q", "?")
  py::ssize_t item_size;
  std::vector<py::ssize_t> shape;
};

// The buffer format of a dtype, or nullopt for one Python's buffers cannot spell (bfloat16,
// vectors, handles).
std::optional<std::string> buffer_format(const graphpat::DataType& type) {
  using Code = graphpat::DataType::Code;
  if (type.lanes != 1) return std::nullopt;
  switch (type.code) {
    case Code::kBool: return "?";
    case Code::kFloat:
      if (type.bits == 16) return "<e";
      if (type.bits == 32) return "<f";
      if (type.bits == 64) return "<d";
      return std::nullopt;
    case Code::kInt:
    case Code::kUInt: {
      const char* codes = type.code == Code::kInt ? "bhiq" : "BHIQ";
      int at = type.bits == 8 ? 0 : type.bits == 16 ? 1 : type.bits == 32 ? 2 : type.bits == 64 ? 3 : -1;
      if (at < 0) return std::nullopt;
      return std::string(at == 0 ? "" : "<") + codes[at];
    }
    case Code::kBFloat:
    case Code::kHandle: return std::nullopt;
  }
  return std::nullopt;
}

// An attribute value as a Python value: None, bool, int, float, str (strings and dtypes; bytes
// when not UTF-8), list, dict (maps; an object's fields). Nesting is bounded by the readers'
// InputLimits.
py::object attr_value(const graphpat::AttrTable& table, const graphpat::StringPool& strings,
                      graphpat::AttrValueId id) {
  switch (table.kind(id)) {
    case graphpat::AttrKind::kNull: return py::none();
    case graphpat::AttrKind::kBool: return py::bool_(table.as_bool(id));
    case graphpat::AttrKind::kInt: return py::int_(table.as_int(id));
    case graphpat::AttrKind::kFloat: return py::float_(table.as_float(id));
    case graphpat::AttrKind::kString:
    case graphpat::AttrKind::kDataType: {
      // Text that is not UTF-8 (an ONNX TENSOR attribute's serialized proto) as bytes.
      std::string_view text = table.text(id);
      if (graphpat::detail::invalid_utf8_at(text) != std::string_view::npos) return py::bytes(std::string(text));
      return py::str(std::string(text));
    }
    case graphpat::AttrKind::kArray: {
      py::list out;
      for (graphpat::AttrValueId element : table.elements(id)) out.append(attr_value(table, strings, element));
      return out;
    }
    case graphpat::AttrKind::kMap:
    case graphpat::AttrKind::kObject: {
      bool map = table.kind(id) == graphpat::AttrKind::kMap;
      py::dict out;
      for (std::size_t i = 0; i < table.entry_count(id); ++i) {
        py::object key = map ? attr_value(table, strings, table.map_key(id, i))
                             : py::str(std::string(strings.view(table.field_key(id, i))));
        if (py::isinstance<py::list>(key)) key = py::tuple(key);
        out[key] = attr_value(table, strings, table.entry_value(id, i));
      }
      return out;
    }
  }
  return py::none();
}

// A Python value as an attribute value of a call built in a rewrite callback: bool, int, float,
// str, and lists of those. `int_bits`/`float_bits`: the widths the dialect's readers give
// literals (ONNX: 64 and 32, as INT and FLOAT attributes; Relay: 32 and 64, which the op's
// schema then converts).
graphpat::AttrValueId attr_of(graphpat::AttrTable& table, const py::handle& value,
                              std::uint8_t int_bits, std::uint8_t float_bits) {
  if (py::isinstance<py::bool_>(value)) return table.boolean(value.cast<bool>());
  if (py::isinstance<py::int_>(value)) {
    auto integer = value.cast<std::int64_t>();
    bool wide = integer < INT32_MIN || integer > INT32_MAX;
    return table.integer(integer, wide ? std::uint8_t{64} : int_bits);
  }
  if (py::isinstance<py::float_>(value)) return table.floating(value.cast<double>(), float_bits);
  if (py::isinstance<py::str>(value)) return table.string(value.cast<std::string>());
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    std::vector<graphpat::AttrValueId> elements;
    for (const py::handle& element : value) elements.push_back(attr_of(table, element, int_bits, float_bits));
    return table.array(std::span<const graphpat::AttrValueId>(elements));
  }
  throw py::type_error("an attribute is a bool, int, float, str or a list of those, not " +
                       std::string(py::str(py::type::of(value).attr("__name__"))));
}

// The expressions a pattern's text names with is_expr(name) (graphpat.dpl's ExprPattern).
template <graphpat::Dialect D>
graphpat::PatternParseOptions pattern_options(const std::map<std::string, NodeView<D>>& exprs) {
  graphpat::PatternParseOptions options;
  for (const auto& [name, node] : exprs) {
    options.names.emplace(name, graphpat::dsl::is_expr(node.graph(), node.id, name));
  }
  return options;
}

// A partition's or merge_composite's report: counts, and each refused group and each interior
// computed twice in a sentence (partition/describe.hpp), naming nodes of the input graph.
template <graphpat::Dialect D>
py::dict report_dict(const graphpat::PartitionReport& report, const graphpat::Graph<D>& input,
                     const std::vector<std::string>& entry_names = {}) {
  auto entry_name = [&](std::size_t entry) -> std::string_view {
    return entry < entry_names.size() ? std::string_view(entry_names[entry]) : std::string_view();
  };
  py::list rejected;
  for (const graphpat::RejectedGroup& group : report.rejected) {
    rejected.append(graphpat::describe(group, input, {}, entry_name(group.entry)));
  }
  py::list duplicated;
  for (const graphpat::DuplicatedInterior& interior : report.duplicated) {
    duplicated.append(graphpat::describe(interior, input, {}, entry_name(interior.entry)));
  }
  py::dict out;
  out["accepted"] = report.accepted;
  out["rejected"] = rejected;
  out["not_outlined"] = report.not_outlined;
  out["duplicated"] = duplicated;
  out["stopped_matches"] = report.stopped_matches;
  out["cse_merged"] = report.cse.merged;
  return out;
}

// check(root) as a bool; an exception it raises is kept in `failure` (and the answer is no).
template <graphpat::Dialect D>
bool call_check(const py::object& check, const NodeView<D>& root,
                std::optional<py::error_already_set>& failure) {
  try {
    return py::cast<bool>(check(root));
  } catch (py::error_already_set& error) {
    failure.emplace(std::move(error));
  } catch (py::builtin_exception& error) {  // cast_error: an answer that is no bool
    error.set_error();
    failure.emplace();
  }
  return false;
}

// A Python `check(pre)` as an engine's check: it sees the group's root, a node of the module
// given when the engine checks that module's graph (partition), else a node valid while the
// check runs (merge_composite's later entries check the graph the earlier ones made). An
// exception it raises makes the remaining checks fail and is raised again once the engine
// returns (`failure`).
template <graphpat::Dialect D>
std::function<bool(const graphpat::Graph<D>&, NodeId)> python_check(
    const SharedPtr<D>& module, const py::object& check,
    const std::shared_ptr<std::optional<py::error_already_set>>& failure) {
  if (check.is_none()) return {};
  return [module, check, failure](const graphpat::Graph<D>& graph, NodeId id) {
    if (*failure) return false;
    if (&graph == &module->module.graph) return call_check(check, view(module, id), *failure);
    auto alive = std::make_shared<bool>(true);
    bool accepted = call_check(check, NodeView<D>{nullptr, &graph, id, alive}, *failure);
    *alive = false;
    return accepted;
  };
}

// A call of `op` on `args` built by a rewrite callback, with attributes from keyword arguments.
template <graphpat::Dialect D>
NodeId build_call(graphpat::Rewriter<D>& rewriter, const std::string& op,
                  std::span<const NodeId> args, const py::dict& attrs) {
  graphpat::AttrTable& table = rewriter.attrs();
  if constexpr (kIsOnnx<D>) {
    // An ONNX node's attributes are an object keyed by its op, holding the fields written.
    std::vector<graphpat::AttrField> fields;
    graphpat::StringPool& strings = rewriter.graph().context().strings;
    for (const auto& [key, value] : attrs) {
      fields.push_back({strings.intern(py::cast<std::string>(key)), attr_of(table, value, 64, 32)});
    }
    graphpat::Builder<D>& builder = rewriter.builder();
    graphpat::AttrValueId object =
        fields.empty() ? graphpat::AttrValueId{} : table.object(op, std::span<const graphpat::AttrField>(fields));
    return builder.call(builder.opaque_op(op), args, {.attrs = object, .fresh = rewriter.fresh_calls()});
  } else {
    std::vector<std::string> keys;
    std::vector<std::pair<std::string_view, graphpat::AttrValueId>> fields;
    keys.reserve(attrs.size());
    for (const auto& [key, value] : attrs) {
      keys.push_back(py::cast<std::string>(key));
      fields.emplace_back(keys.back(), attr_of(table, value, 32, 64));
    }
    return value_or_raise(rewriter.call(op, args, std::span<const std::pair<std::string_view, graphpat::AttrValueId>>(fields)));
  }
}

// rewrite's callbacks from graphpat.dpl's specs: (pattern text, root name, fn, rewrite_once,
// is_expr names). Each pattern text is read with parse_graph_pattern for its named patterns;
// fn(pre, post, bound, make_call, make_const) gets views of the graph being rewritten, `bound`
// mapping each name to the post nodes it bound, make_call(op, args, attrs) builds a call,
// make_const(literal) a scalar constant (Relay's literal text: `1f`, `2i64`, `True`), and fn returns the
// replacement (a view of that graph). The first exception a callback raises is kept in
// `failure` and leaves every later application unchanged.
template <graphpat::Dialect D>
std::vector<graphpat::RewriteCallback<D>> python_callbacks(
    const std::vector<py::tuple>& specs,
    const std::shared_ptr<std::optional<py::error_already_set>>& failure) {
  using Rewriter = graphpat::Rewriter<D>;
  std::vector<graphpat::RewriteCallback<D>> callbacks;
  for (const py::tuple& spec : specs) {
    graphpat::ParsedGraphPattern parsed = value_or_raise(graphpat::parse_graph_pattern(
        spec[0].cast<std::string>(),
        pattern_options(spec[4].cast<std::map<std::string, NodeView<D>>>())));
    std::optional<graphpat::Pattern> root = parsed.find(spec[1].cast<std::string>());
    if (!root) throw py::value_error("the pattern's root is not named in its text");
    py::object fn = spec[2];
    auto names = std::make_shared<std::vector<std::pair<std::string, graphpat::Pattern>>>(parsed.names);
    auto rewrite = [fn, names, failure](NodeId pre, NodeId post, const graphpat::RewriteBindings& bound,
                                        Rewriter& rewriter) {
      if (*failure) return post;
      const graphpat::Graph<D>* graph = &rewriter.graph();
      // The views and the call builder given to Python die with this call.
      auto alive = std::make_shared<bool>(true);
      struct Expire {
        std::shared_ptr<bool> flag;
        ~Expire() { *flag = false; }
      } expire{alive};
      auto node = [&](NodeId id) { return NodeView<D>{nullptr, graph, id, alive}; };
      try {
        py::dict bindings;
        for (const auto& [name, pattern] : *names) {
          py::list nodes;
          for (NodeId bound_node : bound.all(pattern)) nodes.append(node(bound_node));
          if (!nodes.empty()) bindings[py::str(name)] = nodes;
        }
        py::cpp_function make_call([&rewriter, graph, alive](const std::string& op,
                                                             const std::vector<NodeView<D>>& args,
                                                             const py::dict& attrs) {
          if (!*alive) throw py::value_error(kStaleNode);
          std::vector<NodeId> ids;
          for (const NodeView<D>& arg : args) {
            if (arg.graph_in != graph || arg.alive != alive) {
              throw py::value_error("an argument is not a node of this callback's graph");
            }
            ids.push_back(arg.id);
          }
          return NodeView<D>{nullptr, graph, build_call(rewriter, op, ids, attrs), alive};
        });
        py::cpp_function make_const([&rewriter, graph, alive](const std::string& literal) {
          if (!*alive) throw py::value_error(kStaleNode);
          graphpat::Context& context = rewriter.graph().context();
          graphpat::Tensor tensor;
          if (literal == "True" || literal == "False") {
            tensor = graphpat::detail::bool_tensor(context, literal == "True");
          } else {
            std::string error;
            std::optional<graphpat::detail::NumberLiteral> number = graphpat::detail::read_number(literal, error);
            if (!number) throw py::value_error("not a scalar literal: " + literal + " (" + error + ")");
            tensor = graphpat::detail::scalar_tensor(context, *number);
          }
          graphpat::TensorId id = context.tensors.add(std::move(tensor));
          return NodeView<D>{nullptr, graph, rewriter.builder().constant(id, {.fresh = true}), alive};
        });
        py::object out = fn(node(pre), node(post), bindings, make_call, make_const);
        NodeView<D> replacement = out.cast<NodeView<D>>();
        if (replacement.graph_in != graph || replacement.alive != alive) {
          throw py::value_error("a callback returned a node it was not given or did not build");
        }
        return replacement.id;
      } catch (py::error_already_set& error) {
        failure->emplace(std::move(error));
        return post;
      } catch (py::builtin_exception& error) {  // value_error, type_error, cast_error
        error.set_error();
        failure->emplace();
        return post;
      }
    };
    callbacks.push_back({.pattern = *root, .rewrite = rewrite, .rewrite_once = spec[3].cast<bool>()});
  }
  return callbacks;
}

// A module of its own holding an expression an engine made (partition or rewrite of a node).
template <graphpat::Dialect D>
NodeView<D> expression_view(const NodeView<D>& input, graphpat::Graph<D> graph, NodeId root) {
  auto made = std::make_shared<Shared<D>>(Shared<D>{graphpat::Module<D>(std::move(graph)),
                                                    input.module ? input.module->origin : Origin<D>{},
                                                    std::nullopt});
  return view(made, root);
}

template <graphpat::Dialect D>
absl::StatusOr<std::string> dot_text(const graphpat::Module<D>& module, const graphpat::DotOptions& options) {
  if constexpr (kIsOnnx<D>) {
    return graphpat::onnx::to_dot(module, options);
  } else {
    return graphpat::relay::to_dot(module, options);
  }
}

// What both dialects' submodules have: Module, Node, and the engines.
template <graphpat::Dialect D>
void bind_dialect(py::module_& m) {
  using View = NodeView<D>;
  using Ptr = SharedPtr<D>;

  py::class_<Shared<D>, Ptr>(m, "Module")
      .def("function_names",
           [](const Shared<D>& shared) {
             std::vector<std::string> names;
             for (const auto& function : shared.module.functions()) names.emplace_back(shared.module.name(function));
             return names;
           })
      .def("node_count", [](const Shared<D>& shared) { return shared.module.graph.size(); })
      .def(
          "to_dot",
          [](const Shared<D>& shared, const std::string& function, bool cluster_partitioned_functions) {
            return value_or_raise(dot_text(
                shared.module,
                {.cluster_partitioned_functions = cluster_partitioned_functions, .function = function}));
          },
          py::arg("function") = "main", py::arg("cluster_partitioned_functions") = true);

  // Functions taking the shared module, so that views keep it alive.
  m.def("function", [](const Ptr& module, const std::string& name) -> py::object {
    std::optional<NodeId> found = module->module.find(name);
    if (!found) return py::none();
    return py::cast(view(module, *found));
  });

  py::class_<View>(m, "Node")
      .def_property_readonly("index", [](const View& v) { return v.id.index(); })
      .def_property_readonly("kind", [](const View& v) {
        return std::string(graphpat::node_kind_name(v.graph().kind(v.id)));
      })
      .def_property_readonly("op", [](const View& v) -> py::object {
        const auto& g = v.graph();
        graphpat::NodeKind kind = g.kind(v.id);
        if (kind == graphpat::NodeKind::kOp) return py::str(std::string(g.context().op_name(g.op(v.id))));
        if (kind == graphpat::NodeKind::kCall && g.kind(g.callee(v.id)) == graphpat::NodeKind::kOp)
          return py::str(std::string(g.context().op_name(g.called_op(v.id))));
        return py::none();
      })
      .def_property_readonly("name", [](const View& v) -> py::object {
        graphpat::NodeKind kind = v.graph().kind(v.id);
        if (kind != graphpat::NodeKind::kVar && kind != graphpat::NodeKind::kGlobalVar) return py::none();
        return py::str(std::string(v.graph().name(v.id)));
      })
      .def_property_readonly("type_text", [](const View& v) -> py::object {
        graphpat::TypeId type = v.graph().type(v.id);
        if (!type.valid()) return py::none();
        return py::str(graphpat::to_string(v.graph().context(), type));
      })
      .def_property_readonly("operands", [](const View& v) { return v.views(v.graph().operands(v.id)); })
      .def_property_readonly("args", [](const View& v) -> py::list {
        if (v.graph().kind(v.id) != graphpat::NodeKind::kCall) return py::list();
        return v.views(v.graph().args(v.id));
      })
      .def_property_readonly("users", [](const View& v) -> py::list {
        if (!v.module) {
          throw py::value_error("users are known for nodes of a module, not inside a callback");
        }
        return v.views(v.module->users_index().users(v.id));
      })
      .def_property_readonly("attrs_dict", [](const View& v) -> py::object {
        const auto& g = v.graph();
        graphpat::NodeKind kind = g.kind(v.id);
        if (kind != graphpat::NodeKind::kCall && kind != graphpat::NodeKind::kFunction) return py::none();
        graphpat::AttrValueId attrs = g.attrs(v.id);
        if (!attrs.valid()) return py::none();
        return attr_value(g.context().attrs, g.context().strings, attrs);
      })
      .def_property_readonly("dtype", [](const View& v) -> py::object {
        const auto& g = v.graph();
        if (g.kind(v.id) != graphpat::NodeKind::kConstant) return py::none();
        return py::str(std::string(g.context().strings.view(g.tensor(v.id).dtype)));
      })
      .def_property_readonly("shape", [](const View& v) -> py::object {
        const auto& g = v.graph();
        if (g.kind(v.id) != graphpat::NodeKind::kConstant) return py::none();
        return py::tuple(py::cast(g.tensor(v.id).shape));
      })
      .def_property_readonly("tensor", [](const View& v) -> py::object {
        const auto& g = v.graph();
        if (g.kind(v.id) != graphpat::NodeKind::kConstant) return py::none();
        const graphpat::Tensor& tensor = g.tensor(v.id);
        if (!tensor.has_data()) return py::none();
        std::string dtype(g.context().strings.view(tensor.dtype));
        std::optional<graphpat::DataType> type = graphpat::parse_dtype(dtype);
        std::optional<std::string> format = type ? buffer_format(*type) : std::nullopt;
        if (!format) throw py::value_error("a constant of dtype " + dtype + " has no buffer format");
        std::optional<std::uint64_t> size = graphpat::checked_tensor_bytes(tensor.shape, type->element_bytes());
        if (!size || *size != tensor.data->size) {
          throw py::value_error("a constant's bytes do not fill its shape; read them as the file has them");
        }
        std::vector<py::ssize_t> shape(tensor.shape.begin(), tensor.shape.end());
        return py::cast(TensorData{*tensor.data, *format, static_cast<py::ssize_t>(type->element_bytes()),
                                   std::move(shape)});
      })
      .def_property_readonly("body", [](const View& v) -> py::object {
        graphpat::NodeKind kind = v.graph().kind(v.id);
        if (kind != graphpat::NodeKind::kFunction && kind != graphpat::NodeKind::kLet) return py::none();
        return py::cast(v.at(v.graph().body(v.id)));
      })
      .def_property_readonly("module", [](const View& v) -> py::object {
        if (!v.module) return py::none();
        return py::cast(v.module);
      })
      .def("__eq__", [](const View& a, const View& b) { return a.graph_in == b.graph_in && a.id == b.id; })
      .def("__hash__", [](const View& v) { return std::hash<std::uint32_t>()(v.id.index()); });

  py::module_::import("builtins").attr("setattr")(m.attr("Node"), "_engine", m);
  py::module_::import("builtins").attr("setattr")(m.attr("Module"), "_engine", m);

  // TVM's tvm.ir.structural_equal: two functions or expressions, or two modules, equal as
  // graphs (variables paired by position; types compared only when asked).
  m.def(
      "structural_equal",
      [](const View& a, const View& b, bool compare_types) {
        return graphpat::structural_equal(a.graph(), a.id, b.graph(), b.id, {.compare_types = compare_types});
      },
      py::arg("lhs"), py::arg("rhs"), py::arg("compare_types") = false);
  m.def(
      "structural_equal",
      [](const Shared<D>& a, const Shared<D>& b, bool compare_types) {
        return graphpat::structural_equal(a.module, b.module, {.compare_types = compare_types});
      },
      py::arg("lhs"), py::arg("rhs"), py::arg("compare_types") = false);
  m.def(
      "match",
      [](const graphpat::Pattern& pattern, const View& node, bool relay_compat) {
        return static_cast<bool>(graphpat::match(pattern, node.graph(), node.id, {.relay_compat = relay_compat}));
      },
      py::arg("pattern"), py::arg("node"), py::arg("relay_compat") = false);
  m.def(
      "explain",
      [](const graphpat::Pattern& pattern, const View& node, bool relay_compat) {
        return graphpat::explain(pattern, node.graph(), node.id, {.relay_compat = relay_compat});
      },
      py::arg("pattern"), py::arg("node"), py::arg("relay_compat") = false);
  m.def(
      "partition",
      [](const graphpat::Pattern& pattern, const Ptr& module,
         std::vector<std::pair<std::string, std::string>> attrs, py::object check, bool relay_compat) {
        auto failure = std::make_shared<std::optional<py::error_already_set>>();
        graphpat::PartitionOptions<D> options{.attrs = std::move(attrs),
                                              .check = python_check(module, check, failure),
                                              .relay_compat = relay_compat};
        graphpat::PartitionResult<D> result = graphpat::partition(pattern, module->module, options);
        if (*failure) throw std::move(**failure);
        return py::make_tuple(derived(module, std::move(result.module)),
                              report_dict(result.report, module->module.graph));
      },
      py::arg("pattern"), py::arg("module"), py::arg("attrs"), py::arg("check"),
      py::arg("relay_compat") = false);
  // The same for an expression or function node (TVM's pattern.partition(mod["main"])); its
  // check sees nodes of the node's module.
  m.def(
      "partition",
      [](const graphpat::Pattern& pattern, const View& expr,
         std::vector<std::pair<std::string, std::string>> attrs, py::object check, bool relay_compat) {
        if (!expr.module) throw py::value_error("partition takes a node of a module, not a callback's node");
        auto failure = std::make_shared<std::optional<py::error_already_set>>();
        graphpat::PartitionOptions<D> options{.attrs = std::move(attrs),
                                              .check = python_check(expr.module, check, failure),
                                              .relay_compat = relay_compat};
        graphpat::PartitionedExpression<D> result = graphpat::partition(pattern, expr.graph(), expr.id, options);
        if (*failure) throw std::move(**failure);
        py::dict report = report_dict(result.report, expr.graph());
        return py::make_tuple(expression_view(expr, std::move(result.graph), result.root), report);
      },
      py::arg("pattern"), py::arg("expr"), py::arg("attrs"), py::arg("check"),
      py::arg("relay_compat") = false);
  // graph_match(context text, is_expr names, root, first_only, relay_compat): the matches of a
  // graph pattern (graphpat.dpl.PatternContext's text) among the nodes `root` reaches, each
  // as {name: node} for every named pattern that bound a node.
  m.def("graph_match", [](const std::string& text, const std::map<std::string, View>& exprs,
                          const View& root, bool first_only, bool relay_compat) {
    graphpat::ParsedGraphPattern parsed =
        value_or_raise(graphpat::parse_graph_pattern(text, pattern_options(exprs)));
    std::vector<graphpat::Match> found;
    graphpat::GraphMatcher<D> matcher = value_or_raise(graphpat::GraphMatcher<D>::make(
        parsed.context, root.graph(), {.match = {.relay_compat = relay_compat}}));
    if (first_only) {
      if (std::optional<graphpat::Match> first = matcher.first(root.id)) found.push_back(std::move(*first));
    } else {
      found = matcher.find_all(root.id);
    }
    py::list out;
    for (const graphpat::Match& match : found) {
      py::dict bound;
      for (const auto& [name, pattern] : parsed.names) {
        NodeId node = match.bound(pattern);
        if (node.valid()) bound[py::str(name)] = root.at(node);
      }
      out.append(bound);
    }
    return out;
  });
  // graph_partition(context text, is_expr names, module, attrs, check, relay_compat).
  m.def("graph_partition", [](const std::string& text, const std::map<std::string, View>& exprs,
                              const Ptr& module, std::vector<std::pair<std::string, std::string>> attrs,
                              py::object check, bool relay_compat) {
    graphpat::ParsedGraphPattern parsed =
        value_or_raise(graphpat::parse_graph_pattern(text, pattern_options(exprs)));
    auto failure = std::make_shared<std::optional<py::error_already_set>>();
    graphpat::PartitionOptions<D> options{.attrs = std::move(attrs),
                                          .check = python_check(module, check, failure),
                                          .relay_compat = relay_compat};
    absl::StatusOr<graphpat::PartitionResult<D>> result = graphpat::partition(
        parsed.context, module->module, options, {.match = {.relay_compat = relay_compat}});
    if (*failure) throw std::move(**failure);
    graphpat::PartitionResult<D> made = value_or_raise(std::move(result));
    return py::make_tuple(derived(module, std::move(made.module)),
                          report_dict(made.report, module->module.graph));
  });
  // merge_composite([(name, pattern, check or None)], module): TVM's MergeComposite.
  m.def(
      "merge_composite",
      [](const std::vector<std::tuple<std::string, graphpat::Pattern, py::object>>& entries,
         const Ptr& module, bool relay_compat) {
        auto failure = std::make_shared<std::optional<py::error_already_set>>();
        std::vector<graphpat::CompositePattern<D>> table;
        std::vector<std::string> names;
        for (const auto& [name, pattern, check] : entries) {
          table.push_back({.name = name, .pattern = pattern, .check = python_check(module, check, failure)});
          names.push_back(name);
        }
        graphpat::PartitionResult<D> result = graphpat::merge_composite(table, module->module, {.relay_compat = relay_compat});
        if (*failure) throw std::move(**failure);
        return py::make_tuple(derived(module, std::move(result.module)),
                              report_dict(result.report, module->module.graph, names));
      },
      py::arg("entries"), py::arg("module"), py::arg("relay_compat") = false);
  m.def(
      "eliminate_common_subexpr",
      [](const Ptr& module, bool relay_compat) {
        graphpat::CseResult<D> result = graphpat::eliminate_common_subexpr(module->module, {.relay_compat = relay_compat});
        py::dict report;
        report["merged"] = result.report.merged;
        report["merged_by"] = result.report.merged_by;
        return py::make_tuple(derived(module, std::move(result.module)), report);
      },
      py::arg("module"), py::arg("relay_compat") = false);
  // rewrite(specs, module or node, relay_compat): python_callbacks' specs; a callback's first
  // exception is raised again once the engine returns. A node (TVM's rewrite(cb, mod["main"]))
  // gives a node of a module of its own.
  m.def(
      "rewrite",
      [](const std::vector<py::tuple>& specs, const Ptr& module, bool relay_compat) {
        auto failure = std::make_shared<std::optional<py::error_already_set>>();
        std::vector<graphpat::RewriteCallback<D>> callbacks = python_callbacks<D>(specs, failure);
        graphpat::ModuleRewriteResult<D> result = graphpat::rewrite(callbacks, module->module, {.relay_compat = relay_compat});
        if (*failure) throw std::move(**failure);
        return derived(module, std::move(result.module));
      },
      py::arg("callbacks"), py::arg("module"), py::arg("relay_compat") = false);
  m.def(
      "rewrite",
      [](const std::vector<py::tuple>& specs, const View& expr, bool relay_compat) {
        auto failure = std::make_shared<std::optional<py::error_already_set>>();
        std::vector<graphpat::RewriteCallback<D>> callbacks = python_callbacks<D>(specs, failure);
        graphpat::RewriteResult<D> result = graphpat::rewrite(callbacks, expr.graph(), expr.id, {.relay_compat = relay_compat});
        if (*failure) throw std::move(**failure);
        return expression_view(expr, std::move(result.graph), result.root);
      },
      py::arg("callbacks"), py::arg("expr"), py::arg("relay_compat") = false);
}

void bind_relay(py::module_& m) {
  namespace relay = graphpat::relay;
  using Ptr = SharedPtr<relay::Dialect>;
  bind_dialect<relay::Dialect>(m);
  auto share = [](relay::Module module) {
    return std::make_shared<Shared<relay::Dialect>>(Shared<relay::Dialect>{std::move(module), {}, std::nullopt});
  };
  auto envelope_of = [](const std::string& name) {
    if (name == "astext") return relay::TextEnvelope::kAstext;
    if (name == "astext_no_meta") return relay::TextEnvelope::kAstextNoMeta;
    if (name == "str") return relay::TextEnvelope::kStr;
    throw py::value_error("envelope is 'astext', 'astext_no_meta' or 'str', not '" + name + "'");
  };
  py::class_<Shared<relay::Dialect>, Ptr>(m.attr("Module"))
      .def(
          "astext",
          [envelope_of](const Shared<relay::Dialect>& shared, const std::string& envelope) {
            return value_or_raise(relay::print_text(shared.module, envelope_of(envelope)));
          },
          py::arg("envelope") = "astext")
      .def("save_json", [](const Shared<relay::Dialect>& shared) {
        return value_or_raise(relay::save_json(shared.module));
      });
  py::class_<NodeView<relay::Dialect>>(m.attr("Node")).def("astext", [](const NodeView<relay::Dialect>& v) {
    return value_or_raise(relay::print_expression(v.graph(), v.id));
  });
  m.def("parse_text", [share](const std::string& text) {
    absl::StatusOr<relay::Module> module;
    {
      py::gil_scoped_release unlocked;
      module = relay::parse_text(text);
    }
    return share(value_or_raise(std::move(module)));
  });
  m.def("parse_expression", [share](const std::string& text) {
    absl::StatusOr<relay::ParsedExpression> parsed;
    {
      py::gil_scoped_release unlocked;
      parsed = relay::parse_expression(text);
    }
    relay::ParsedExpression value = value_or_raise(std::move(parsed));
    return view(share(std::move(value.module)), value.root);
  });
  m.def("load_json", [share](const std::string& json) {
    absl::StatusOr<relay::LoadedJson> loaded;
    {
      py::gil_scoped_release unlocked;
      loaded = relay::load_json(json);
    }
    return share(value_or_raise(std::move(loaded)).module);
  });
}

void bind_onnx(py::module_& m) {
  namespace onnx = graphpat::onnx;
  using Ptr = SharedPtr<onnx::Dialect>;
  bind_dialect<onnx::Dialect>(m);
  py::class_<Shared<onnx::Dialect>, Ptr>(m.attr("Module"))
      .def("save", [](const Shared<onnx::Dialect>& shared) {
        std::string bytes = value_or_raise(onnx::save(shared.module, shared.origin.provenance));
        return py::bytes(bytes);
      });
  m.def("load", [](const py::bytes& data) {
    std::string_view bytes = data;
    absl::StatusOr<onnx::LoadedOnnx> loaded;
    {
      py::gil_scoped_release unlocked;
      loaded = onnx::load(bytes);
    }
    onnx::LoadedOnnx value = value_or_raise(std::move(loaded));
    return std::make_shared<Shared<onnx::Dialect>>(
        Shared<onnx::Dialect>{std::move(value.module), {std::move(value.provenance)}, std::nullopt});
  });
}

}  // namespace

PYBIND11_MODULE(_graphpat, m) {
  m.doc() = "graphpat's C++ engine; use the graphpat package (graphpat.relay, graphpat.onnx, graphpat.dpl)";

  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const StatusError& error) {
      py::object made = py::module_::import("graphpat").attr("Error")(error.id, error.problem, error.message);
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(made.ptr())), made.ptr());
    }
  });

  py::class_<TensorData>(m, "TensorData", py::buffer_protocol())
      .def_buffer([](TensorData& data) {
        std::vector<py::ssize_t> strides(data.shape.size());
        py::ssize_t stride = data.item_size;
        for (std::size_t i = data.shape.size(); i-- > 0;) {
          strides[i] = stride;
          stride *= data.shape[i];
        }
        return py::buffer_info(const_cast<std::uint8_t*>(data.bytes.data.get()), data.item_size,
                               data.format, static_cast<py::ssize_t>(data.shape.size()), data.shape,
                               strides, /*readonly=*/true);
      });

  py::class_<graphpat::Pattern>(m, "Pattern");
  // parse_pattern(text, {name: node}): the nodes (of either dialect) that is_expr(name) names.
  m.def(
      "parse_pattern",
      [](const std::string& text, const py::dict& exprs) {
        graphpat::PatternParseOptions options;
        for (const auto& [name, node] : exprs) {
          std::string key = name.cast<std::string>();
          if (py::isinstance<NodeView<graphpat::relay::Dialect>>(node)) {
            const auto& expr = node.cast<const NodeView<graphpat::relay::Dialect>&>();
            options.names.emplace(key, graphpat::dsl::is_expr(expr.graph(), expr.id, key));
          } else {
            const auto& expr = node.cast<const NodeView<graphpat::onnx::Dialect>&>();
            options.names.emplace(key, graphpat::dsl::is_expr(expr.graph(), expr.id, key));
          }
        }
        return value_or_raise(graphpat::parse_pattern(text, options));
      },
      py::arg("text"), py::arg("exprs") = py::dict());

  py::module_ relay = m.def_submodule("relay", "Relay modules (Relay text, TVM JSON)");
  bind_relay(relay);
  py::module_ onnx = m.def_submodule("onnx", "ONNX modules (.onnx files)");
  bind_onnx(onnx);
}
