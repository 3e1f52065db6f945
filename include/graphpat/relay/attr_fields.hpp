// How a Relay attribute struct field is stored, decided by its C++ type in TVM: the five plain
// kinds live inline in a JSON node (`"groups": "1"`) and are canonicalised to one attribute
// value form whatever file they come from; everything else (IntImm, Array, String, ...) is an
// object reference whose value form follows the object. The Relay text reader, the JSON reader
// and both writers share this rule, so a model read from text and from JSON is the same graph.
//
//   const graphpat::AttrSchemaField& field = schema.fields[0];
//   switch (graphpat::relay::field_storage(context.strings.view(field.cpp_type))) {
//     case graphpat::relay::FieldStorage::kDouble: ...  // a Float of 64 bits, printed `1e-05f`
//   }
#pragma once

#include <string_view>

namespace graphpat::relay {

enum class FieldStorage {
  kInt,        // `int`, `int32_t`: inline decimal; an Int of 32 bits; printed plain
  kBool,       // `bool`: inline "1"/"0"; a Bool; printed True/False
  kDouble,     // `double`: inline %.17g; a Float of 64 bits; printed %g with an `f` suffix
  kStdString,  // `std::string`: inline raw text; a String; printed quoted
  kDataType,   // `DataType`: inline dtype text; a DataType value; printed quoted
  kObject,     // anything else: a node reference; the value takes the form of the object
               // (IntImm: Int of its width, FloatImm: Float, String: String, null: Null,
               // Array: Array, any other object: an Object value)
};

/// The storage of a field whose TVM C++ type is `cpp_type` (from the op registry's schemas).
constexpr FieldStorage field_storage(std::string_view cpp_type) {
  if (cpp_type == "int" || cpp_type == "int32_t") return FieldStorage::kInt;
  if (cpp_type == "bool") return FieldStorage::kBool;
  if (cpp_type == "double") return FieldStorage::kDouble;
  if (cpp_type == "std::string") return FieldStorage::kStdString;
  if (cpp_type == "DataType") return FieldStorage::kDataType;
  return FieldStorage::kObject;
}

}  // namespace graphpat::relay
