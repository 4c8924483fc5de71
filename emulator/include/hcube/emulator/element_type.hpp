// The element types a machine holds. Data motion never looks inside a word,
// so the kernels move 4-, 8- or 16-byte words; the type matters for I/O
// (NumPy dtypes), labels and printing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hcube {
namespace kernels {
enum class LabelCode : std::uint8_t;  // kernels/labels.hpp
}

enum class ElementType { u32, i32, u64, f32, f64, c64, c128 };

struct ElementInfo {
  ElementType type;
  const char* name;        // CLI name: uint32, int32, uint64, float, double, complex64, complex128
  const char* npy_descr;   // little-endian NumPy descr, e.g. "<u4"
  std::size_t bytes;       // word size
  unsigned label_bits;     // global addresses below 2^label_bits are stored exactly
};

const ElementInfo& info(ElementType t);
const std::vector<ElementInfo>& all_element_types();
// Accepts the CLI names and the usual aliases (u32, f32, complex<float>, ...);
// throws hcube::Error listing the allowed names.
ElementType parse_element_type(const std::string& name);
std::string element_type_names();  // "uint32, int32, ..." for help and errors

// How the kernels write type t's labels (kernels/labels.hpp).
kernels::LabelCode label_code(ElementType t);
// Writes the label `value` (a global address) as one element of type t.
void write_label(ElementType t, std::uint64_t value, void* dst);
// Reads an element back as an unsigned label; throws if it is not one.
std::uint64_t read_label(ElementType t, const void* src);
// Formats one element for tables and traces.
std::string format_element(ElementType t, const void* src);
// One element as JSON: element_json in hcube/emulator/json.hpp.

}  // namespace hcube
