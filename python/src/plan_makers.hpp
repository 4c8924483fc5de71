// What both extension modules (hcube._hcube, and hcube._hcube_mpi where MPI
// is built) need alike: a dtype's machine word, the library's plans made from
// the Python options, and the library's errors as Python's exceptions. Each
// module makes its own plans: a plan never crosses from one module to the other.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <string>

#include "hcube/hcube.hpp"

namespace hcube_python {

namespace py = pybind11;

// The machine moves bits, never looks inside a word: an array's element type is
// the word of its size (uint32, uint64 or the 16-byte complex128), whatever its dtype.
inline hcube::ElementType word_of_size(std::uint64_t bytes, const std::string& dtype, const std::string& what) {
  switch (bytes) {
    case 4: return hcube::ElementType::u32;
    case 8: return hcube::ElementType::u64;
    case 16: return hcube::ElementType::c128;
    default: break;
  }
  throw py::type_error(what + ": dtype " + dtype + " of " + std::to_string(bytes) +
                       " bytes: the machine moves words of 4, 8 or 16 bytes (a NumPy array of 1 or 2 bytes "
                       "is widened to 4 by hcube; an array in device memory is not)");
}

// The word of an array-interface typestr ("<f4", "|b1", "<U4"): its kind and size.
inline hcube::ElementType word_of_typestr(const std::string& typestr, const std::string& what) {
  if (typestr.size() < 3 || typestr[1] == 'O')
    throw py::type_error(what + ": dtype '" + typestr + "' unsupported: allowed fixed-size dtypes of 1, 2, 4, 8 or 16 bytes");
  std::uint64_t size = 0;
  try {
    size = std::stoull(typestr.substr(2));
  } catch (const std::exception&) {
    throw py::type_error(what + ": dtype '" + typestr + "' unsupported: allowed fixed-size dtypes of 1, 2, 4, 8 or 16 bytes");
  }
  return word_of_size(typestr[1] == 'U' ? 4 * size : size, typestr, what);  // U: UCS-4 characters
}

inline hcube::BackendChoice backend_choice(const std::string& s) { return hcube::parse_backend_choice(s); }

inline std::unique_ptr<hcube::Plan> make_aapc_plan(const std::string& algorithm, long long d, long long n, long long m,
                                                   const std::string& permutation, const std::string& descr,
                                                   const std::string& backend) {
  hcube::AapcPlan::Options o;
  o.schedule.method = hcube::parse_aapc_method(algorithm);
  o.schedule.d = d;
  o.schedule.n = n;
  o.schedule.m = m;
  o.permutation = hcube::parse_aapc_permutation(permutation);
  o.target = {word_of_typestr(descr, "dtype"), backend_choice(backend)};
  return std::make_unique<hcube::AapcPlan>(o);
}

inline std::unique_ptr<hcube::Plan> make_permute_plan(const std::string& perm, long long n, long long m,
                                                      const std::string& algorithm, bool fused,
                                                      const std::string& ports, const std::string& effort,
                                                      const std::string& descr, const std::string& backend) {
  hcube::PermutePlan::Options o;
  o.perm = perm;
  o.n = n;
  o.m = m;
  o.algorithm = hcube::parse_sdp_algorithm(algorithm);
  o.fused = fused;
  o.cost.ports = hcube::parse_ports(ports);
  o.cost.effort = hcube::parse_sdp_effort(effort);  // the n-port algorithms' dealing search, as hcube permute --effort
  o.target = {word_of_typestr(descr, "dtype"), backend_choice(backend)};
  return std::make_unique<hcube::PermutePlan>(o);
}

// The library's one-line errors as ValueError (a wrong dtype is a TypeError, raised above), and
// a buffer the backend cannot allocate as MemoryError, as NumPy raises it.
inline void register_errors() {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const hcube::OutOfMemory& e) {
      PyErr_SetString(PyExc_MemoryError, e.what());
    } catch (const hcube::Error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
}

}  // namespace hcube_python
