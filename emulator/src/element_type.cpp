#include "hcube/emulator/element_type.hpp"
#include "hcube/emulator/json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <complex>
#include <cstring>

#include "hcube/core/error.hpp"
#include "hcube/host/parse.hpp"
#include "hcube/kernels/labels.hpp"

namespace hcube {
namespace {

// label_bits: integers up to 2^bits are stored exactly (float: 24-bit mantissa).
const std::vector<ElementInfo> kTypes = {
    {ElementType::u32, "uint32", "<u4", 4, 32},      {ElementType::i32, "int32", "<i4", 4, 31},
    {ElementType::u64, "uint64", "<u8", 8, 64},      {ElementType::f32, "float", "<f4", 4, 24},
    {ElementType::f64, "double", "<f8", 8, 53},      {ElementType::c64, "complex64", "<c8", 8, 24},
    {ElementType::c128, "complex128", "<c16", 16, 53},
};

template <class T>
T load(const void* src) {
  T v;
  std::memcpy(&v, src, sizeof(T));
  return v;
}

template <class T>
void put(T v, void* dst) {
  std::memcpy(dst, &v, sizeof(T));
}

}  // namespace

const ElementInfo& info(ElementType t) { return kTypes[static_cast<std::size_t>(t)]; }

const std::vector<ElementInfo>& all_element_types() { return kTypes; }

std::string element_type_names() {
  std::string s;
  for (const ElementInfo& e : kTypes) s += (s.empty() ? "" : ", ") + std::string(e.name);
  return s;
}

ElementType parse_element_type(const std::string& name) {
  std::string n = name;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
  static const std::pair<const char*, ElementType> aliases[] = {
      {"u32", ElementType::u32},          {"int", ElementType::i32},
      {"i32", ElementType::i32},          {"u64", ElementType::u64},
      {"f32", ElementType::f32},          {"float32", ElementType::f32},
      {"f64", ElementType::f64},          {"float64", ElementType::f64},
      {"c64", ElementType::c64},          {"complex<float>", ElementType::c64},
      {"c128", ElementType::c128},        {"complex<double>", ElementType::c128},
      {"cfloat", ElementType::c64},       {"cdouble", ElementType::c128},
  };
  for (const ElementInfo& e : kTypes)
    if (n == e.name) return e.type;
  for (const auto& [alias, t] : aliases)
    if (n == alias) return t;
  throw Error(fmt::format("element type '{}' unknown: allowed {}", printable_input(name), element_type_names()));
}

kernels::LabelCode label_code(ElementType t) {
  static_assert(static_cast<int>(kernels::LabelCode::c128) == static_cast<int>(ElementType::c128) &&
                    static_cast<int>(kernels::LabelCode::f32) == static_cast<int>(ElementType::f32),
                "kernels::LabelCode lists the element types in their order");
  return static_cast<kernels::LabelCode>(t);
}

// The kernels' encoding (kernels/labels.hpp), so that labels written here and
// on a backend are the same words.
void write_label(ElementType t, std::uint64_t v, void* dst) {
  kernels::dispatch_word(info(t).bytes, [&](auto w) { put(kernels::encode_label<decltype(w)>(label_code(t), v), dst); });
}

std::uint64_t read_label(ElementType t, const void* src) {
  const auto whole = [&](double x) {
    if (!(x >= 0) || x != static_cast<double>(static_cast<std::uint64_t>(x)))
      throw Error(fmt::format("element {} is not an address label", x));
    return static_cast<std::uint64_t>(x);
  };
  switch (t) {
    case ElementType::u32: return load<std::uint32_t>(src);
    case ElementType::i32: return whole(load<std::int32_t>(src));
    case ElementType::u64: return load<std::uint64_t>(src);
    case ElementType::f32: return whole(load<float>(src));
    case ElementType::f64: return whole(load<double>(src));
    case ElementType::c64: return whole(load<std::complex<float>>(src).real());
    case ElementType::c128: return whole(load<std::complex<double>>(src).real());
  }
  return 0;
}

std::string format_element(ElementType t, const void* src) {
  switch (t) {
    case ElementType::u32: return fmt::format("{}", load<std::uint32_t>(src));
    case ElementType::i32: return fmt::format("{}", load<std::int32_t>(src));
    case ElementType::u64: return fmt::format("{}", load<std::uint64_t>(src));
    case ElementType::f32: return fmt::format("{}", load<float>(src));
    case ElementType::f64: return fmt::format("{}", load<double>(src));
    case ElementType::c64: {
      const auto c = load<std::complex<float>>(src);
      return fmt::format("({}{:+}j)", c.real(), c.imag());
    }
    case ElementType::c128: {
      const auto c = load<std::complex<double>>(src);
      return fmt::format("({}{:+}j)", c.real(), c.imag());
    }
  }
  return "?";
}

nlohmann::json element_json(ElementType t, const void* src) {
  switch (t) {
    case ElementType::u32: return load<std::uint32_t>(src);
    case ElementType::i32: return load<std::int32_t>(src);
    case ElementType::u64: return load<std::uint64_t>(src);
    case ElementType::f32: return load<float>(src);
    case ElementType::f64: return load<double>(src);
    case ElementType::c64: {
      const auto c = load<std::complex<float>>(src);
      return {c.real(), c.imag()};
    }
    case ElementType::c128: {
      const auto c = load<std::complex<double>>(src);
      return {c.real(), c.imag()};
    }
  }
  return nullptr;
}

}  // namespace hcube
