// The early-return macros of include/graphpat/detail/status_macros.hpp: a failed step's status is
// returned unchanged, a declaration or an existing variable receives the value, each expression
// is evaluated once; and no public header leaves a macro of the set defined in its includer's
// code (checked by the preprocessor: this file does not compile when one does).
#include <graphpat/graphpat.hpp>

#if defined(GRAPHPAT_ASSIGN_OR_RETURN) || defined(GRAPHPAT_ASSIGN_OR_RETURN_IMPL) || \
    defined(GRAPHPAT_RETURN_IF_ERROR) || defined(GRAPHPAT_STATUS_MACROS_CONCAT) ||   \
    defined(GRAPHPAT_STATUS_MACROS_CONCAT_INNER)
#error "a graphpat header leaves a macro of detail/status_macros.hpp defined"
#endif

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <utility>

#include "graphpat/detail/status_macros.hpp"

namespace {

int calls = 0;

absl::StatusOr<std::string> name_of(int id) {
  ++calls;
  if (id < 0) return absl::InvalidArgumentError("negative id " + std::to_string(id));
  return "n" + std::to_string(id);
}

absl::Status check_even(int n) {
  ++calls;
  if (n % 2 != 0) return absl::OutOfRangeError(std::to_string(n) + " is odd");
  return absl::OkStatus();
}

/// Both names joined when both ids are valid and their sum is even.
absl::StatusOr<std::string> joined(int first, int second) {
  GRAPHPAT_ASSIGN_OR_RETURN(std::string left, name_of(first));
  std::string right = "unset";
  GRAPHPAT_ASSIGN_OR_RETURN(right, name_of(second));
  GRAPHPAT_RETURN_IF_ERROR(check_even(first + second));
  return left + "+" + right;
}

/// The macros in a function returning absl::Status, with a move-only value and an expression
/// with commas outside parentheses.
absl::Status fill(std::unique_ptr<int>& out, int value) {
  GRAPHPAT_ASSIGN_OR_RETURN(
      out, value < 0 ? absl::StatusOr<std::unique_ptr<int>>(absl::NotFoundError("no value"))
                     : absl::StatusOr<std::unique_ptr<int>>(std::make_unique<int>(value)));
  GRAPHPAT_ASSIGN_OR_RETURN(auto pair, absl::StatusOr<std::pair<int, int>>(std::pair(value, 1)));
  *out += pair.second;
  return absl::OkStatus();
}

}  // namespace

#include "graphpat/detail/status_macros_undef.hpp"

#if defined(GRAPHPAT_ASSIGN_OR_RETURN) || defined(GRAPHPAT_ASSIGN_OR_RETURN_IMPL) || \
    defined(GRAPHPAT_RETURN_IF_ERROR) || defined(GRAPHPAT_STATUS_MACROS_CONCAT) ||   \
    defined(GRAPHPAT_STATUS_MACROS_CONCAT_INNER)
#error "detail/status_macros_undef.hpp leaves a macro of detail/status_macros.hpp defined"
#endif

TEST_CASE("status macros: values assigned, the first failure returned as it is",
          "[status_macros]") {
  calls = 0;
  CHECK(joined(2, 4) == absl::StatusOr<std::string>("n2+n4"));
  CHECK(calls == 3);  // name_of twice, check_even once: each expression evaluated once

  calls = 0;
  CHECK(joined(-1, 4).status() == absl::InvalidArgumentError("negative id -1"));
  CHECK(calls == 1);  // nothing after the failed step runs

  calls = 0;
  CHECK(joined(2, -3).status() == absl::InvalidArgumentError("negative id -3"));
  CHECK(calls == 2);

  calls = 0;
  CHECK(joined(1, 2).status() == absl::OutOfRangeError("3 is odd"));
  CHECK(calls == 3);
}

TEST_CASE("status macros: in a function returning absl::Status, with a move-only value",
          "[status_macros]") {
  std::unique_ptr<int> out;
  CHECK(fill(out, 41).ok());
  REQUIRE(out != nullptr);
  CHECK(*out == 42);

  std::unique_ptr<int> untouched = std::make_unique<int>(7);
  CHECK(fill(untouched, -1) == absl::NotFoundError("no value"));
  REQUIRE(untouched != nullptr);
  CHECK(*untouched == 7);
}
