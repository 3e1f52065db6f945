// Early returns for code where every step can fail on bad input (the readers and parsers): the
// status of a failed absl::Status or absl::StatusOr step is returned as it is, unchanged.
//
//   #include "graphpat/detail/status_macros.hpp"  // after the header's other includes
//   ...
//   absl::StatusOr<NodeId> read_call(std::uint32_t index) {
//     GRAPHPAT_ASSIGN_OR_RETURN(std::string_view name, text(index, "op"));  // declares `name`
//     GRAPHPAT_ASSIGN_OR_RETURN(call.attrs, read_attrs(index));             // assigns a member
//     GRAPHPAT_RETURN_IF_ERROR(expect_array(index, "args"));
//     ...
//   }
//   ...
//   #include "graphpat/detail/status_macros_undef.hpp"  // the header's last line
//
// GRAPHPAT_ASSIGN_OR_RETURN(lhs, expr) evaluates the absl::StatusOr expression `expr` once; when
// it failed it returns the status, otherwise it runs `lhs = std::move(*result)`, so `lhs` is a
// declaration or anything assignable. It expands to several statements: use it where a statement
// list may stand, not as the body of an unbraced `if`. A type with a comma in `lhs` needs an alias
// (`expr` may hold commas). GRAPHPAT_RETURN_IF_ERROR(expr) returns the absl::Status `expr` when it
// is an error.
//
// The macros must not reach the code of graphpat's users, so this file has no include guard and
// every header that uses them brackets its own code: it includes this file after all its other
// includes and status_macros_undef.hpp as its last line. A header included by another has then
// undefined the macros before the includer defines them again, and outside graphpat's headers
// they are never defined. Including this file while they are defined (out of that order, or a
// user's macro of the same name) is an error.

#ifdef GRAPHPAT_ASSIGN_OR_RETURN
#error "GRAPHPAT_ASSIGN_OR_RETURN is already defined: see the include order above"
#endif

#include <absl/status/status.h>

#include <utility>

#define GRAPHPAT_STATUS_MACROS_CONCAT_INNER(a, b) a##b
#define GRAPHPAT_STATUS_MACROS_CONCAT(a, b) GRAPHPAT_STATUS_MACROS_CONCAT_INNER(a, b)

#define GRAPHPAT_ASSIGN_OR_RETURN(lhs, ...)                                                    \
  GRAPHPAT_ASSIGN_OR_RETURN_IMPL(GRAPHPAT_STATUS_MACROS_CONCAT(graphpat_status_or_, __LINE__), \
                                 lhs, __VA_ARGS__)
#define GRAPHPAT_ASSIGN_OR_RETURN_IMPL(result, lhs, ...) \
  auto result = (__VA_ARGS__);                           \
  if (!result.ok()) return std::move(result).status();   \
  lhs = std::move(*result)

#define GRAPHPAT_RETURN_IF_ERROR(...)                                          \
  do {                                                                         \
    if (absl::Status graphpat_status = (__VA_ARGS__); !graphpat_status.ok()) { \
      return graphpat_status;                                                  \
    }                                                                          \
  } while (false)
