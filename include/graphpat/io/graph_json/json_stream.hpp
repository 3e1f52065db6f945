// The JSON parser under the graph JSON reader: nlohmann/json's SAX parser driving a builder of
// GraphJson values that hands every value to the reader as it completes, so the reader can
// consume a node and drop it (memory holds one node's JSON, not the file's). Nothing here
// throws: a syntax error, a number no 64-bit value holds (`1e400`, an integer past 2^64), a key
// given twice in one object, and nesting past the limit each stop the parse with a located
// status. Objects are built by appending (a key is checked against the object's earlier keys
// through a hash set once the object is large), so the parse is linear in the text.
//
//   absl::StatusOr<GraphJson> root = graphpat::detail::parse_json_stream(
//       text, 262, 256, [](int depth, JsonEvent event, GraphJson& value) -> absl::StatusOr<bool> {
//         return true;  // keep every value; false drops it, an error stops the parse
//       });
#pragma once

#include <absl/container/flat_hash_set.h>
#include <absl/functional/function_ref.h>
#include <absl/status/statusor.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/io/graph_json/attr_values.hpp"
#include "graphpat/ir/errors.hpp"
#include "graphpat/ir/limits.hpp"

namespace graphpat::detail {

/// What a callback of parse_json_stream is told about: a container opening or closing, a key,
/// or a scalar value. Depth counts the enclosing containers (the root object's keys and
/// members are at depth 1), as nlohmann's parser callbacks count it.
enum class JsonEvent { kObjectStart, kObjectEnd, kArrayStart, kArrayEnd, kKey, kValue };

/// Called for every event with the value it concerns (the key as a string for kKey, the
/// complete container for kObjectEnd and kArrayEnd): true keeps the value in its parent, false
/// drops it, an error stops the parse and is what parse_json_stream returns.
using JsonEventCallback = absl::FunctionRef<absl::StatusOr<bool>(int, JsonEvent, GraphJson&)>;

class JsonStreamBuilder : public nlohmann::json_sax<GraphJson> {
 public:
  JsonStreamBuilder(std::string_view text, std::uint32_t max_containers,
                    std::uint32_t reported_depth, JsonEventCallback callback)
      : text_(text),
        max_containers_(max_containers),
        reported_depth_(reported_depth),
        callback_(callback) {}

  absl::Status status;
  GraphJson root;

  bool null() override { return scalar(GraphJson(nullptr)); }
  bool boolean(bool value) override { return scalar(GraphJson(value)); }
  bool number_integer(number_integer_t value) override { return scalar(GraphJson(value)); }
  bool number_unsigned(number_unsigned_t value) override { return scalar(GraphJson(value)); }
  bool number_float(number_float_t value, const string_t& text) override {
    // nlohmann reads an integer too large for 64 bits as a float; its text has no '.' or 'e'.
    if (text.find_first_of(".eE") == std::string::npos) {
      return stop(
          graph_json_error("bad_number", current_path(),
                           fmt::format("the integer {} does not fit in 64 bits", shortened(text))));
    }
    return scalar(GraphJson(value));
  }
  bool string(string_t& value) override { return scalar(GraphJson(std::move(value))); }
  bool binary(binary_t&) override {
    return stop(graph_json_error("bad_json", current_path(), "binary values are not JSON"));
  }

  bool start_object(std::size_t) override {
    return open(GraphJson::object(), JsonEvent::kObjectStart);
  }
  bool start_array(std::size_t) override {
    return open(GraphJson::array(), JsonEvent::kArrayStart);
  }
  bool end_object() override { return close(JsonEvent::kObjectEnd); }
  bool end_array() override { return close(JsonEvent::kArrayEnd); }

  bool key(string_t& name) override {
    Frame& frame = frames_.back();
    if (frame.has_key(name)) {
      return stop(graph_json_error("duplicate_key", current_path(&name), "the key appears twice"));
    }
    frame.add_key(name);
    frame.key = name;
    frame.keyed = true;
    GraphJson event_value(name);
    auto keep = callback_(depth(), JsonEvent::kKey, event_value);
    if (!keep.ok()) return stop(keep.status());
    frame.key_kept = *keep;
    return true;
  }

  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& error) override {
    if (error.id == 406) {  // out_of_range.406: a float past the range of a double
      std::string_view what = error.what();
      std::size_t quote = what.find('\'');
      std::string_view number =
          quote == std::string_view::npos ? what : what.substr(quote + 1, what.size() - quote - 2);
      return stop(graph_json_error(
          "bad_number", current_path(),
          fmt::format("the number {} is out of the range of a 64-bit float", shortened(number))));
    }
    status = syntax_error(position, error.what());
    return false;
  }

  /// A `graph_json.bad_json` error at line:column of the byte before `position` (nlohmann's
  /// count of bytes read).
  absl::Status syntax_error(std::size_t position, std::string_view what) const {
    std::size_t byte = std::min<std::size_t>(position == 0 ? 0 : position - 1, text_.size());
    std::size_t line =
        1 + static_cast<std::size_t>(std::count(text_.begin(), text_.begin() + byte, '\n'));
    std::size_t line_start = text_.rfind('\n', byte == 0 ? 0 : byte - 1);
    std::size_t column =
        line_start == std::string_view::npos || byte == 0 ? byte + 1 : byte - line_start;
    // nlohmann's text: "[json.exception.parse_error.101] parse error at line 1, column 5: ...";
    // it quotes the bytes it read last, which make_error escapes.
    std::size_t colon = what.find(": ", what.find("parse error"));
    if (colon != std::string_view::npos) what = what.substr(colon + 2);
    return make_error(absl::StatusCode::kInvalidArgument, "graph_json.bad_json",
                      fmt::format("{}:{}: {}", line, column, what));
  }

 private:
  struct Frame {
    GraphJson value;
    bool kept = true;                     // false inside a dropped container: nothing is stored
    std::string key;                      // an object's current key
    bool keyed = false;                   // whether it has one yet
    bool key_kept = true;                 // what the callback said of that key
    std::size_t count = 0;                // members or elements read so far
    std::vector<std::string> small_keys;  // an object's keys while it has few,
    absl::flat_hash_set<std::string> many_keys;  // then a set of them

    [[nodiscard]] bool has_key(const std::string& name) const {
      if (!many_keys.empty()) return many_keys.contains(name);
      return std::find(small_keys.begin(), small_keys.end(), name) != small_keys.end();
    }
    void add_key(const std::string& name) {
      constexpr std::size_t kFewKeys = 8;
      if (many_keys.empty() && small_keys.size() < kFewKeys) {
        small_keys.push_back(name);
        return;
      }
      if (many_keys.empty()) {
        many_keys.insert(small_keys.begin(), small_keys.end());
        small_keys.clear();
      }
      many_keys.insert(name);
    }
  };

  [[nodiscard]] int depth() const { return static_cast<int>(frames_.size()); }

  // A value completed at the current place: offered to the callback, then stored in its
  // parent unless dropped (or the parent is).
  bool place(GraphJson value, JsonEvent event, int event_depth) {
    if (!frames_.empty()) {
      Frame& parent = frames_.back();
      ++parent.count;
      if (!parent.kept || !parent.key_kept) return true;  // as nlohmann: no callback either
    }
    auto keep = callback_(event_depth, event, value);
    if (!keep.ok()) return stop(keep.status());
    if (!*keep) return true;
    if (frames_.empty()) {
      root = std::move(value);
      return true;
    }
    Frame& parent = frames_.back();
    if (parent.value.is_array()) {
      parent.value.get_ref<GraphJson::array_t&>().push_back(std::move(value));
    } else {
      // Appended without ordered_map's search for an existing key: key() refused duplicates.
      auto& members = static_cast<GraphJson::object_t::Container&>(
          parent.value.get_ref<GraphJson::object_t&>());
      members.emplace_back(parent.key, std::move(value));
    }
    return true;
  }

  bool scalar(GraphJson value) { return place(std::move(value), JsonEvent::kValue, depth()); }

  bool open(GraphJson value, JsonEvent event) {
    if (frames_.size() >= static_cast<std::size_t>(max_containers_)) {
      return stop(graph_json_error("too_deep", current_path(), too_deep_problem(reported_depth_)));
    }
    GraphJson event_value;
    auto keep = callback_(depth(), event, event_value);
    if (!keep.ok()) return stop(keep.status());
    bool parent_kept = frames_.empty() || (frames_.back().kept && frames_.back().key_kept);
    Frame& frame = frames_.emplace_back();
    frame.value = std::move(value);
    frame.kept = *keep && parent_kept;
    return true;
  }

  bool close(JsonEvent event) {
    GraphJson value = std::move(frames_.back().value);
    bool kept = frames_.back().kept;
    frames_.pop_back();
    if (kept) return place(std::move(value), event, depth());
    // Still counted in its parent (for the places of later elements), never stored.
    if (!frames_.empty()) ++frames_.back().count;
    return true;
  }

  // The JSON Pointer of the value being read (each open container's current key or index),
  // or, with `new_key`, of that key of the innermost object.
  [[nodiscard]] std::string current_path(const std::string* new_key = nullptr) const {
    std::vector<JsonPath> steps;
    steps.reserve(frames_.size() + 2);
    steps.emplace_back();
    for (std::size_t i = 0; i < frames_.size(); ++i) {
      const Frame& frame = frames_[i];
      if (new_key != nullptr && i + 1 == frames_.size()) {
        steps.push_back(steps.back() / std::string_view(*new_key));
      } else if (frame.value.is_array()) {
        steps.push_back(steps.back() / frame.count);
      } else if (frame.keyed) {
        steps.push_back(steps.back() / std::string_view(frame.key));
      }
    }
    return steps.back().str();
  }

  static std::string shortened(std::string_view number) {
    constexpr std::size_t kShown = 24;
    if (number.size() <= kShown) return std::string(number);
    return fmt::format("{}... ({} digits)", number.substr(0, kShown), number.size());
  }

  bool stop(absl::Status error) {
    status = std::move(error);
    return false;
  }
  std::string_view text_;
  std::uint32_t max_containers_;
  std::uint32_t reported_depth_;  // the caller's max_depth, which the message names
  JsonEventCallback callback_;
  std::vector<Frame> frames_;
};

/// Parses `text`, offering every value to `callback` as it completes. More than
/// `max_containers` nested containers are refused as deeper than `max_depth` (the caller's
/// limit, which allows for the containers its format always has around a value). Returns the
/// root as kept by the callback.
inline absl::StatusOr<GraphJson> parse_json_stream(std::string_view text,
                                                   std::uint32_t max_containers,
                                                   std::uint32_t max_depth,
                                                   JsonEventCallback callback) {
  JsonStreamBuilder builder(text, max_containers, max_depth, callback);
  bool ok = GraphJson::sax_parse(text.begin(), text.end(), &builder);
  if (!builder.status.ok()) return builder.status;
  if (!ok) return graph_json_error("bad_json", "/", "the parser stopped");
  if (std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return builder.syntax_error(nul + 1, kJsonNulByteProblem);
  }
  return std::move(builder.root);
}

}  // namespace graphpat::detail
