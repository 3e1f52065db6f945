// Early-return helpers for the JSON reader and writer, whose every step can fail on bad input:
//
//   GRAPHPAT_RELAY_JSON_ASSIGN(std::uint32_t body, ref(index, "body"));
//   GRAPHPAT_RELAY_JSON_CHECK(expect_array(body));
#pragma once

#include <absl/status/status.h>

#include <utility>

#define GRAPHPAT_RELAY_JSON_CONCAT_INNER(a, b) a##b
#define GRAPHPAT_RELAY_JSON_CONCAT(a, b) GRAPHPAT_RELAY_JSON_CONCAT_INNER(a, b)

/// `lhs = *expr` for an absl::StatusOr expression, returning its status when it failed.
#define GRAPHPAT_RELAY_JSON_ASSIGN(lhs, expr) \
  GRAPHPAT_RELAY_JSON_ASSIGN_IMPL(GRAPHPAT_RELAY_JSON_CONCAT(graphpat_status_or_, __LINE__), lhs, expr)
#define GRAPHPAT_RELAY_JSON_ASSIGN_IMPL(temporary, lhs, expr) \
  auto temporary = (expr);                                   \
  if (!temporary.ok()) return temporary.status();            \
  lhs = std::move(*temporary)

/// Returns the absl::Status of `expr` when it is an error.
#define GRAPHPAT_RELAY_JSON_CHECK(expr)                   \
  do {                                                    \
    if (absl::Status graphpat_status = (expr); !graphpat_status.ok()) return graphpat_status; \
  } while (false)
