// The `--vs-tvm` view of the harness: graphpat against TVM v0.14 on the real models that TVM was
// timed on (tests/data/corpus/tvm/results.json: TVM's own times, recorded through its Python API
// on this project's machine kind, median of 3), operation by operation, one pattern at a time for
// the pattern passes, as the ratio TVM time / graphpat time with issue 24's goals beside it.
//
//   graphpat_bench --vs-tvm                     # the table (about a minute)
//   graphpat_bench --vs-tvm --out vs_tvm.json   # and every figure as JSON
//
// Each graphpat time is the median of 7 samples; a sample is the CPU time of as many runs as
// fill 2 ms (at least 3), per run. The counts each run produces (matches, functions created) are
// checked against TVM's recorded ones, so both sides did the same work; a difference fails the run.
#pragma once

#include <string>
#include <vector>

namespace bench {

/// Prints the table for `models` (empty: every model with TVM figures) and writes its JSON to
/// `out` unless empty. Returns the process's exit status: 1 if a count differs from TVM's or a
/// pass failed.
int run_vs_tvm(const std::vector<std::string>& models, const std::string& out);

}  // namespace bench
