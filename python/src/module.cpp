// graphpat._graphpat, the extension module behind the Python package python/graphpat/ (issue 26):
// Relay modules read and written (text, TVM JSON), a read-only node view, patterns read from
// TVM's Python spelling (which graphpat.dpl writes), match, partition and rewrite. An error
// status is raised as graphpat.Error (its id and place, python/graphpat/__init__.py); the GIL is
// released while an engine runs and taken again for a Python `check` or rewrite callback.
// Used through the package:
//   import graphpat.relay, graphpat.dpl
//   mod = graphpat.relay.parse(text)
//   out, report = graphpat.dpl.is_op("nn.relu")(graphpat.dpl.wildcard()).partition(mod)
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "graphpat/graphpat.hpp"

namespace py = pybind11;

namespace {

using ModulePtr = std::shared_ptr<const graphpat::relay::Module>;

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
    "a node of a rewrite callback is used after the callback returned; keep what it says "
    "(op, attrs, astext()), not the node";

// A node of a module, kept alive by the module it belongs to; or, inside a rewrite callback
// (module null), a node of the graph being rewritten, valid while the callback runs.
struct NodeView {
  ModulePtr module;
  const graphpat::relay::Graph* graph_in;
  graphpat::NodeId id;
  // Inside a rewrite callback: false once the callback has returned (the graph changes after).
  std::shared_ptr<const bool> alive;

  const graphpat::relay::Graph& graph() const {
    if (alive && !*alive) throw py::value_error(kStaleNode);
    return *graph_in;
  }
  NodeView at(graphpat::NodeId other) const { return {module, graph_in, other, alive}; }
  py::list views(std::span<const graphpat::NodeId> ids) const {
    py::list out;
    for (graphpat::NodeId node : ids) out.append(at(node));
    return out;
  }
};

NodeView view(const ModulePtr& module, graphpat::NodeId id) {
  return {module, &module->graph, id, nullptr};
}

// An attribute value as a Python value: None, bool, int, float, str (strings and dtypes), list,
// dict (maps; an object's fields). Nesting is bounded by the readers' InputLimits.
py::object attr_value(const graphpat::AttrTable& table, const graphpat::StringPool& strings,
                      graphpat::AttrValueId id) {
  switch (table.kind(id)) {
    case graphpat::AttrKind::kNull: return py::none();
    case graphpat::AttrKind::kBool: return py::bool_(table.as_bool(id));
    case graphpat::AttrKind::kInt: return py::int_(table.as_int(id));
    case graphpat::AttrKind::kFloat: return py::float_(table.as_float(id));
    case graphpat::AttrKind::kString:
    case graphpat::AttrKind::kDataType: return py::str(std::string(table.text(id)));
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

ModulePtr share(graphpat::relay::Module module) {
  return std::make_shared<const graphpat::relay::Module>(std::move(module));
}

graphpat::relay::TextEnvelope envelope_of(const std::string& name) {
  if (name == "astext") return graphpat::relay::TextEnvelope::kAstext;
  if (name == "astext_no_meta") return graphpat::relay::TextEnvelope::kAstextNoMeta;
  if (name == "str") return graphpat::relay::TextEnvelope::kStr;
  throw py::value_error("envelope is 'astext', 'astext_no_meta' or 'str', not '" + name + "'");
}

// The expressions a pattern's text names with is_expr(name) (graphpat.dpl's ExprPattern).
graphpat::PatternParseOptions pattern_options(const std::map<std::string, NodeView>& exprs) {
  graphpat::PatternParseOptions options;
  for (const auto& [name, node] : exprs) {
    options.names.emplace(name, graphpat::dsl::is_expr(node.graph(), node.id, name));
  }
  return options;
}

py::dict report_dict(const graphpat::PartitionReport& report) {
  py::dict out;
  out["accepted"] = report.accepted;
  out["rejected"] = report.rejected.size();
  out["not_outlined"] = report.not_outlined;
  out["duplicated"] = report.duplicated.size();
  return out;
}

}  // namespace

PYBIND11_MODULE(_graphpat, m) {
  m.doc() = "graphpat's C++ engine; use the graphpat package (graphpat.relay, graphpat.dpl)";

  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const StatusError& error) {
      py::object made = py::module_::import("graphpat").attr("Error")(error.id, error.problem,
                                                                        error.message);
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(made.ptr())), made.ptr());
    }
  });

  py::class_<graphpat::relay::Module, std::shared_ptr<graphpat::relay::Module>>(m, "Module")
      .def("astext",
           [](const graphpat::relay::Module& module, const std::string& envelope) {
             return value_or_raise(graphpat::relay::print_text(module, envelope_of(envelope)));
           },
           py::arg("envelope") = "astext")
      .def("save_json",
           [](const graphpat::relay::Module& module) {
             return value_or_raise(graphpat::relay::save_json(module));
           })
      .def("function_names",
           [](const graphpat::relay::Module& module) {
             std::vector<std::string> names;
             for (const auto& function : module.functions()) names.emplace_back(module.name(function));
             return names;
           })
      .def("node_count", [](const graphpat::relay::Module& module) { return module.graph.size(); });

  // Functions taking the shared module, so that views keep it alive.
  m.def("function", [](const ModulePtr& module, const std::string& name) -> py::object {
    std::optional<graphpat::NodeId> found = module->find(name);
    if (!found) return py::none();
    return py::cast(view(module, *found));
  });

  py::class_<NodeView>(m, "Node")
      .def_property_readonly("index", [](const NodeView& v) { return v.id.index(); })
      .def_property_readonly("kind", [](const NodeView& v) {
        return std::string(graphpat::node_kind_name(v.graph().kind(v.id)));
      })
      .def_property_readonly("op", [](const NodeView& v) -> py::object {
        const auto& g = v.graph();
        graphpat::NodeKind kind = g.kind(v.id);
        if (kind == graphpat::NodeKind::kOp) return py::str(std::string(g.context().op_name(g.op(v.id))));
        if (kind == graphpat::NodeKind::kCall && g.kind(g.callee(v.id)) == graphpat::NodeKind::kOp)
          return py::str(std::string(g.context().op_name(g.called_op(v.id))));
        return py::none();
      })
      .def_property_readonly("name", [](const NodeView& v) -> py::object {
        graphpat::NodeKind kind = v.graph().kind(v.id);
        if (kind != graphpat::NodeKind::kVar && kind != graphpat::NodeKind::kGlobalVar) return py::none();
        return py::str(std::string(v.graph().name(v.id)));
      })
      .def_property_readonly("type_text", [](const NodeView& v) -> py::object {
        graphpat::TypeId type = v.graph().type(v.id);
        if (!type.valid()) return py::none();
        return py::str(graphpat::to_string(v.graph().context(), type));
      })
      .def_property_readonly("operands", [](const NodeView& v) { return v.views(v.graph().operands(v.id)); })
      .def_property_readonly("args", [](const NodeView& v) -> py::list {
        if (v.graph().kind(v.id) != graphpat::NodeKind::kCall) return py::list();
        return v.views(v.graph().args(v.id));
      })
      .def_property_readonly("attrs_dict", [](const NodeView& v) -> py::object {
        const auto& g = v.graph();
        graphpat::NodeKind kind = g.kind(v.id);
        if (kind != graphpat::NodeKind::kCall && kind != graphpat::NodeKind::kFunction) return py::none();
        graphpat::AttrValueId attrs = g.attrs(v.id);
        if (!attrs.valid()) return py::none();
        return attr_value(g.context().attrs, g.context().strings, attrs);
      })
      .def_property_readonly("body", [](const NodeView& v) -> py::object {
        graphpat::NodeKind kind = v.graph().kind(v.id);
        if (kind != graphpat::NodeKind::kFunction && kind != graphpat::NodeKind::kLet) return py::none();
        return py::cast(v.at(v.graph().body(v.id)));
      })
      .def_property_readonly("module", [](const NodeView& v) -> py::object {
        if (!v.module) return py::none();
        return py::cast(v.module);
      })
      .def("astext", [](const NodeView& v) {
        return value_or_raise(graphpat::relay::print_expression(v.graph(), v.id));
      })
      .def("__eq__", [](const NodeView& a, const NodeView& b) {
        return a.graph_in == b.graph_in && a.id == b.id;
      })
      .def("__hash__", [](const NodeView& v) { return std::hash<std::uint32_t>()(v.id.index()); });

  m.def("parse_text", [](const std::string& text) {
    absl::StatusOr<graphpat::relay::Module> module;
    {
      py::gil_scoped_release unlocked;
      module = graphpat::relay::parse_text(text);
    }
    return share(value_or_raise(std::move(module)));
  });
  m.def("parse_expression", [](const std::string& text) {
    absl::StatusOr<graphpat::relay::ParsedExpression> parsed;
    {
      py::gil_scoped_release unlocked;
      parsed = graphpat::relay::parse_expression(text);
    }
    graphpat::relay::ParsedExpression value = value_or_raise(std::move(parsed));
    return view(share(std::move(value.module)), value.root);
  });
  m.def("load_json", [](const std::string& json) {
    absl::StatusOr<graphpat::relay::LoadedJson> loaded;
    {
      py::gil_scoped_release unlocked;
      loaded = graphpat::relay::load_json(json);
    }
    return share(value_or_raise(std::move(loaded)).module);
  });

  py::class_<graphpat::Pattern>(m, "Pattern");
  m.def("parse_pattern", [](const std::string& text, const std::map<std::string, NodeView>& exprs) {
    return value_or_raise(graphpat::parse_pattern(text, pattern_options(exprs)));
  }, py::arg("text"), py::arg("exprs") = std::map<std::string, NodeView>());
  m.def(
      "match",
      [](const graphpat::Pattern& pattern, const NodeView& node, bool relay_compat) {
        py::gil_scoped_release unlocked;
        return static_cast<bool>(
            graphpat::match(pattern, node.graph(), node.id, {.relay_compat = relay_compat}));
      },
      py::arg("pattern"), py::arg("node"), py::arg("relay_compat") = false);
  m.def(
      "partition",
      [](const graphpat::Pattern& pattern, const ModulePtr& module,
         std::vector<std::pair<std::string, std::string>> attrs, py::object check,
         bool relay_compat) {
        graphpat::PartitionOptions<graphpat::relay::Dialect> options{.attrs = std::move(attrs),
                                                                     .relay_compat = relay_compat};
        // `check` sees the input module (check(pre), as Relay's); an exception it raises makes
        // the remaining checks fail and is raised again once the engine returns.
        auto failure = std::make_shared<std::optional<py::error_already_set>>();
        if (!check.is_none()) {
          options.check = [module, check, failure](const graphpat::relay::Graph&, graphpat::NodeId id) {
            py::gil_scoped_acquire locked;
            if (*failure) return false;
            try {
              return py::cast<bool>(check(view(module, id)));
            } catch (py::error_already_set& error) {
              failure->emplace(std::move(error));
              return false;
            }
          };
        }
        graphpat::PartitionResult<graphpat::relay::Dialect> result;
        {
          py::gil_scoped_release unlocked;
          result = graphpat::partition(pattern, *module, options);
        }
        if (*failure) throw std::move(**failure);
        return py::make_tuple(share(std::move(result.module)), report_dict(result.report));
      },
      py::arg("pattern"), py::arg("module"), py::arg("attrs"), py::arg("check"),
      py::arg("relay_compat") = false);

  // rewrite([(pattern text, root name, fn, rewrite_once, is_expr names)], module): each pattern text is
  // read with parse_graph_pattern for its named patterns; fn(pre, post, bound, make_call) gets
  // views of the graph being rewritten, `bound` mapping each name to the post nodes it bound,
  // and returns the replacement (a view of that graph). The first exception a callback raises
  // leaves every later application unchanged and is raised again once the engine returns.
  m.def(
      "rewrite",
      [](const std::vector<py::tuple>& specs, const ModulePtr& module, bool relay_compat) {
        using graphpat::NodeId;
        using Rewriter = graphpat::Rewriter<graphpat::relay::Dialect>;
        auto failure = std::make_shared<std::optional<py::error_already_set>>();
        std::vector<graphpat::RewriteCallback<graphpat::relay::Dialect>> callbacks;
        for (const py::tuple& spec : specs) {
          graphpat::ParsedGraphPattern parsed =
              value_or_raise(graphpat::parse_graph_pattern(
              spec[0].cast<std::string>(), pattern_options(spec[4].cast<std::map<std::string, NodeView>>())));
          std::optional<graphpat::Pattern> root = parsed.find(spec[1].cast<std::string>());
          if (!root) throw py::value_error("the pattern's root is not named in its text");
          py::object fn = spec[2];
          auto names = std::make_shared<std::vector<std::pair<std::string, graphpat::Pattern>>>(
              parsed.names);
          callbacks.push_back(
              {.pattern = *root,
               .rewrite =
                   [fn, names, failure](NodeId pre, NodeId post,
                                        const graphpat::RewriteBindings& bound, Rewriter& rewriter) {
                     py::gil_scoped_acquire locked;
                     if (*failure) return post;
                     const graphpat::relay::Graph* graph = &rewriter.graph();
                     // The views and the call builder given to Python die with this call.
                     auto alive = std::make_shared<bool>(true);
                     struct Expire {
                       std::shared_ptr<bool> flag;
                       ~Expire() { *flag = false; }
                     } expire{alive};
                     try {
                       py::dict bindings;
                       for (const auto& [name, pattern] : *names) {
                         py::list nodes;
                         for (NodeId node : bound.all(pattern)) nodes.append(NodeView{nullptr, graph, node, alive});
                         if (!nodes.empty()) bindings[py::str(name)] = nodes;
                       }
                       py::cpp_function make_call([&rewriter, graph, alive](const std::string& op,
                                                                            const std::vector<NodeView>& args) {
                         if (!*alive) throw py::value_error(kStaleNode);
                         std::vector<NodeId> ids;
                         for (const NodeView& arg : args) {
                           if (arg.graph_in != graph || arg.alive != alive) {
                             throw py::value_error("an argument is not a node of this callback's graph");
                           }
                           ids.push_back(arg.id);
                         }
                         NodeId made = value_or_raise(rewriter.call(op, std::span<const NodeId>(ids), {}));
                         return NodeView{nullptr, graph, made, alive};
                       });
                       py::object out = fn(NodeView{nullptr, graph, pre, alive}, NodeView{nullptr, graph, post, alive},
                                           bindings, make_call);
                       NodeView replacement = out.cast<NodeView>();
                       if (replacement.graph_in != graph || replacement.alive != alive) {
                         throw py::value_error("a callback returned a node it was not given or did not build");
                       }
                       return replacement.id;
                     } catch (py::error_already_set& error) {
                       failure->emplace(std::move(error));
                       return post;
                     } catch (py::builtin_exception& error) {  // value_error, cast_error
                       error.set_error();
                       failure->emplace();
                       return post;
                     }
                   },
               .rewrite_once = spec[3].cast<bool>()});
        }
        graphpat::ModuleRewriteResult<graphpat::relay::Dialect> result;
        {
          py::gil_scoped_release unlocked;
          result = graphpat::rewrite(callbacks, *module, {.relay_compat = relay_compat});
        }
        if (*failure) throw std::move(**failure);
        return share(std::move(result.module));
      },
      py::arg("callbacks"), py::arg("module"), py::arg("relay_compat") = false);
}
