// hcube._hcube_mpi: the library's plans run across the ranks of an MPI
// communicator (hcube::mpi::execute_across), for the package's hcube.mpi. A
// module of its own, built only where MPI is found, so that hcube._hcube loads
// on a machine without an MPI library.
#include <mpi.h>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "hcube/emulator/json.hpp"
#include "hcube/mpi/plans.hpp"
#include "plan_makers.hpp"

namespace py = pybind11;

namespace {

// A plan of the library made in this module, run on one rank's share of its array.
class AcrossPlan {
 public:
  explicit AcrossPlan(std::unique_ptr<hcube::Plan> plan) : plan_(std::move(plan)) {}

  // comm: the communicator's Fortran handle (mpi4py's Comm.py2f()), which
  // MPI_Comm_f2c turns back into the handle of the MPI library this module links.
  std::string execute(long long comm, py::array words) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) throw py::value_error("comm: MPI is not initialized (import mpi4py.MPI first)");
    if (!words.writeable() || !(words.flags() & py::array::c_style))
      throw py::value_error("share: expected a writable C-ordered array of words");
    const MPI_Comm c = MPI_Comm_f2c(static_cast<MPI_Fint>(comm));
    void* data = words.mutable_data();
    const auto bytes = static_cast<std::uint64_t>(words.nbytes());
    hcube::Counters counters;
    {
      // Other Python threads run while the ranks exchange; this plan runs one call at a time.
      py::gil_scoped_release release;
      const std::lock_guard<std::mutex> one_at_a_time(*busy_);
      counters = hcube::mpi::execute_across(*plan_, c, data, bytes);
    }
    return hcube::to_json(counters).dump();
  }

 private:
  std::unique_ptr<hcube::Plan> plan_;
  std::unique_ptr<std::mutex> busy_ = std::make_unique<std::mutex>();
};

}  // namespace

PYBIND11_MODULE(_hcube_mpi, mod) {
  mod.doc() = "hcube's plans across MPI ranks; use hcube.mpi";
  hcube_python::register_errors();
  using py::arg;
  py::class_<AcrossPlan>(mod, "AcrossPlan").def("execute", &AcrossPlan::execute, arg("comm"), arg("words"));
  mod.def(
      "aapc_plan",
      [](const std::string& algorithm, long long d, long long n, long long m, const std::string& permutation,
         const std::string& dtype, const std::string& backend) {
        return AcrossPlan(hcube_python::make_aapc_plan(algorithm, d, n, m, permutation, dtype, backend));
      },
      arg("algorithm"), arg("d"), arg("n"), arg("m"), arg("permutation"), arg("dtype"), arg("backend"));
  mod.def(
      "permute_plan",
      [](const std::string& perm, long long n, long long m, const std::string& algorithm, bool fused,
         const std::string& ports, const std::string& effort, const std::string& dtype, const std::string& backend) {
        return AcrossPlan(
            hcube_python::make_permute_plan(perm, n, m, algorithm, fused, ports, effort, dtype, backend));
      },
      arg("perm"), arg("n"), arg("m"), arg("algorithm"), arg("fused"), arg("ports"), arg("effort"), arg("dtype"),
      arg("backend"));
  mod.def("library_version", [] {
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(text, &length);
    return std::string(text, static_cast<std::size_t>(length));
  });
}
