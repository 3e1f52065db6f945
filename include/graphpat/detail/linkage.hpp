// How graphpat's entry functions are linked: header-only (the default), or from the optional
// compiled component `graphpat::compiled`, a static library that holds them once, so that a
// user's file compiles their declarations only (issue 24: 30 s -> a few seconds per file).
//
//   target_link_libraries(app PRIVATE graphpat::compiled)   # defines GRAPHPAT_COMPILED
//
// An entry header declares its functions with GRAPHPAT_ENTRY and puts their definitions, and the
// includes only they need, under `#if GRAPHPAT_ENTRY_DEFINITIONS`:
//   - header-only (no macro): GRAPHPAT_ENTRY is `inline` and the definitions are seen;
//   - GRAPHPAT_COMPILED (a user of graphpat::compiled): declarations only; the entry function
//     templates are declared `extern template` for the built-in Relay dialect by the entry
//     headers (partition.hpp, cse.hpp, pattern.hpp, rewrite.hpp), so they are not instantiated
//     again, and cse.hpp, partition.hpp and pattern.hpp include only the interface headers
//     (transform/cse_interface.hpp, transform/partition_interface.hpp, pattern/match.hpp): the
//     types and declarations, not the engines;
//   - GRAPHPAT_BUILDING_COMPILED (src/compiled.cpp, the library's one source): the definitions,
//     not inline, compiled once.
// PatternContext's members that work on Abseil's hash tables are declared the same way, their
// bodies after the class under the same guard: the compiler instantiates the templates an
// inline body uses in every file that sees it, called or not. They run only while a context is
// built, so they may live in the library, out of line; the context's tables, which the readers
// and passes call per node and must inline, take the other way, GRAPHPAT_INSTANTIATED_ON_CALL
// below.
// An entry header states the instantiations the library holds once, with GRAPHPAT_INSTANTIATION
// under `#if GRAPHPAT_INSTANTIATIONS`: `extern template` for a user, `template` in the library.
// A dialect of the user's own, or ONNX's, is instantiated in the user's files, as header-only:
// such a file includes the headers that define the engines (transform/partition.hpp,
// transform/merge_composite.hpp, transform/graph_partition.hpp, transform/cse.hpp,
// pattern/matcher.hpp, pattern/graph_matcher.hpp, pattern/explain.hpp), as does a file that
// keeps a Matcher or GraphMatcher across calls.
// Every file of a program that links graphpat::compiled must see GRAPHPAT_COMPILED (the target
// sets it), so that each entry function is defined once, in the library.
//
// GRAPHPAT_INSTANTIATED_ON_CALL, before a function defined in its class, makes it a template of
// one defaulted parameter, called as before (`pool.intern(text)`). A file instantiates the
// templates a non-template inline body calls (Abseil's hash tables above all) whenever it sees
// the body, called or not; a template's body waits for a call. Marked so are the functions that
// reach a hash table and that every file sees but few call: the members of the context's tables
// (StringPool, TypeTable, AttrTable, SpanTable, OpRegistry) and of NodeMemo that reach their
// tables, Context::op, NameCache, the dialects' register_ops, and CompiledPattern's and Match's
// look-ups by Pattern. A user's file against graphpat::compiled, which calls none of them, no
// longer instantiates them (its compile 18% shorter and 402 -> 344 MB, g++ 12 -O2), and they
// stay inline where the library's readers and passes call them (declared out of line instead,
// the library stopped inlining them: parse_text 114 -> 76 times TVM, print_text 72 -> 45,
// load_json 16.7 -> 10.5).
#pragma once

#define GRAPHPAT_INSTANTIATED_ON_CALL template <class = void>

#if defined(GRAPHPAT_BUILDING_COMPILED)
#define GRAPHPAT_ENTRY
#define GRAPHPAT_ENTRY_DEFINITIONS 1
#elif defined(GRAPHPAT_COMPILED)
#define GRAPHPAT_ENTRY
#define GRAPHPAT_ENTRY_DEFINITIONS 0
#else
#define GRAPHPAT_ENTRY inline
#define GRAPHPAT_ENTRY_DEFINITIONS 1
#endif

#if defined(GRAPHPAT_BUILDING_COMPILED)
#define GRAPHPAT_INSTANTIATION template
#define GRAPHPAT_INSTANTIATIONS 1
#elif defined(GRAPHPAT_COMPILED)
#define GRAPHPAT_INSTANTIATION extern template
#define GRAPHPAT_INSTANTIATIONS 1
#else
#define GRAPHPAT_INSTANTIATIONS 0
#endif
