// hcube._hcube: the library's plans on NumPy arrays (issue 23). Thin: every
// check and message is the library's; the Python package (python/hcube)
// shapes arrays and turns the JSON the library writes into dicts.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <string>

#include "hcube/core/error.hpp"
#include "hcube/emulator/fft.hpp"
#include "hcube/emulator/redistribute.hpp"
#include "hcube/host/aapc.hpp"
#include "hcube/host/fft_plan.hpp"
#include "hcube/host/schedule.hpp"
#include "hcube/plans.hpp"
#include "hcube/version.hpp"

namespace py = pybind11;

namespace hcube::python {
namespace {

// NumPy's name of each element type (the library calls f32 and f64 float and double).
py::dtype dtype_of(ElementType t) {
  switch (t) {
    case ElementType::u32: return py::dtype("uint32");
    case ElementType::i32: return py::dtype("int32");
    case ElementType::u64: return py::dtype("uint64");
    case ElementType::f32: return py::dtype("float32");
    case ElementType::f64: return py::dtype("float64");
    case ElementType::c64: return py::dtype("complex64");
    case ElementType::c128: break;
  }
  return py::dtype("complex128");
}
std::string numpy_name(ElementType t) { return py::str(dtype_of(t).attr("name")); }

// NumPy's dtype names are the library's element type names (uint32 ... complex128).
ElementType type_of(const py::array& a) {
  const std::string name = py::str(a.dtype().attr("name"));
  try {
    return parse_element_type(name);
  } catch (const Error& e) {
    throw py::type_error(e.what());
  }
}

void check_c_contiguous(const py::array& a) {
  if (!(a.flags() & py::array::c_style))
    throw py::value_error("the array must be C-contiguous (numpy.ascontiguousarray makes a copy that is)");
}

// The machine's words from a C-contiguous array of its type and 2^(n+m) elements.
void check_machine_array(const py::array& a, const Machine& m) {
  check_c_contiguous(a);
  const ElementType t = type_of(a);
  if (t != m.type())
    throw py::type_error("the array holds " + numpy_name(t) + " but the machine holds " + numpy_name(m.type()));
  const Geometry& g = m.geometry();
  const bool flat = a.ndim() == 1 && static_cast<std::uint64_t>(a.shape(0)) == g.total_words();
  const bool rows = a.ndim() == 2 && static_cast<std::uint64_t>(a.shape(0)) == g.nodes() &&
                    static_cast<std::uint64_t>(a.shape(1)) == g.words_per_node();
  if (!flat && !rows)
    throw py::value_error("the array must have shape (" + std::to_string(g.nodes()) + ", " +
                          std::to_string(g.words_per_node()) + ") or (" + std::to_string(g.total_words()) +
                          ",) for n = " + std::to_string(g.n) + ", m = " + std::to_string(g.m));
}


class PyMachine {
 public:
  PyMachine(long long n, long long m, const std::string& dtype, const std::string& backend) {
    if (n < 0 || m < 0 || n + m < 1 || n + m > static_cast<long long>(kMaxAddressBits))
      throw Error("n = " + std::to_string(n) + ", m = " + std::to_string(m) +
                  " out of range: allowed n, m >= 0 and 1 <= n + m <= " + std::to_string(kMaxAddressBits));
    machine_ = std::make_unique<Machine>(MachineOptions{static_cast<unsigned>(n), static_cast<unsigned>(m),
                                                        parse_element_type(dtype), parse_backend_choice(backend), -1});
  }

  void load(const py::array& a) {
    check_machine_array(a, *machine_);
    const void* p = a.data();
    const auto bytes = static_cast<std::uint64_t>(a.nbytes());
    py::gil_scoped_release free;
    machine_->load(p, bytes);
  }

  py::array read() const {
    const Geometry& g = machine_->geometry();
    py::array out(dtype_of(machine_->type()),
                  std::vector<py::ssize_t>{static_cast<py::ssize_t>(g.nodes()), static_cast<py::ssize_t>(g.words_per_node())});
    void* p = out.mutable_data();
    const auto bytes = static_cast<std::uint64_t>(out.nbytes());
    py::gil_scoped_release free;
    machine_->read(p, bytes);
    return out;
  }

  void aapc(const std::string& algorithm, const std::string& permutation, long long d) {
    const Geometry& g = machine_->geometry();
    AapcPlan::Options o;
    o.schedule.method = parse_aapc_method(algorithm);
    o.schedule.d = d < 0 ? static_cast<long long>(g.n) : d;
    o.schedule.n = g.n;
    o.schedule.m = g.m;
    o.permutation = parse_aapc_permutation(permutation);
    o.target = PlanTarget{machine_->type(), BackendChoice::automatic};
    execute(AapcPlan(o));
  }

  void permute(const std::string& perm, const std::string& algorithm, bool fused, const std::string& ports) {
    const Geometry& g = machine_->geometry();
    PermutePlan::Options o;
    o.perm = perm;
    o.n = g.n;
    o.m = g.m;
    o.algorithm = parse_sdp_algorithm(algorithm);
    o.fused = fused;
    o.cost.ports = parse_ports(ports);
    o.target = PlanTarget{machine_->type(), BackendChoice::automatic};
    execute(PermutePlan(o));
  }

  std::string counters_json() const { return machine_->counters().to_json().dump(); }
  long long n() const { return machine_->geometry().n; }
  long long m() const { return machine_->geometry().m; }
  std::string dtype() const { return numpy_name(machine_->type()); }
  std::string backend() const { return to_string(machine_->backend().kind()); }

 private:
  // A plan on the machine's own storage, the GIL released while it runs.
  void execute(Plan&& plan) {
    py::gil_scoped_release free;
    plan.execute(*machine_);
  }

  std::unique_ptr<Machine> machine_;
};

// X = DFT(x) of 2^q points on 2^n nodes: x natural order in, X natural order out.
py::array fft(const py::array& x, long long nodes_log2, const std::string& order, bool inverse,
              const std::string& backend) {
  check_c_contiguous(x);
  const ElementType t = type_of(x);
  if (t != ElementType::c64 && t != ElementType::c128)
    throw py::type_error("fft takes complex64 or complex128 points, not " + numpy_name(t));
  if (x.ndim() != 1) throw py::value_error("fft takes a one-dimensional array of 2^q points");
  const auto N = static_cast<std::uint64_t>(x.shape(0));
  if (N < 2 || (N & (N - 1)) != 0)
    throw py::value_error("fft takes 2^q points, q >= 1: got " + std::to_string(N));
  const long long q = 63 - __builtin_clzll(N);
  DistributedFftPlan::Options o;
  o.points_log2 = q;
  o.nodes_log2 = nodes_log2;
  o.fft.order = parse_fft_order(order);
  o.fft.inverse = inverse;
  o.target = PlanTarget{t, parse_backend_choice(backend)};
  DistributedFftPlan plan(o);
  const std::size_t wb = info(t).bytes;
  const std::uint64_t nodes = std::uint64_t{1} << plan.geometry().n, K = plan.geometry().words_per_node();
  std::vector<unsigned char> buf(N * wb);
  const auto* in = static_cast<const unsigned char*>(x.data());
  // Cyclic order: point k at node k mod 2^n, local address k >> n.
  for (std::uint64_t k = 0; k < N; ++k) std::memcpy(&buf[((k % nodes) * K + k / nodes) * wb], in + k * wb, wb);
  {
    py::gil_scoped_release free;
    plan.execute(buf.data(), buf.size());
  }
  py::array out(x.dtype(), std::vector<py::ssize_t>{static_cast<py::ssize_t>(N)});
  auto* o_ = static_cast<unsigned char*>(out.mutable_data());
  for (std::uint64_t k = 0; k < N; ++k) std::memcpy(o_ + k * wb, &buf[plan.result_address(k) * wb], wb);
  return out;
}

// The destinations' memories (rows of D words), as hcube redistribute -o writes them.
py::array redistribute(const py::array& a, long long P, long long Q, long long K, long long x,
                       const std::string& schedule, bool reverse, const std::string& backend) {
  check_c_contiguous(a);
  const ElementType t = type_of(a);
  if (a.ndim() != 1) throw py::value_error("redistribute takes a one-dimensional array: N elements in global order");
  const auto positive = [](long long v, const char* name) {
    if (v < 1) throw Error(std::string(name) + " = " + std::to_string(v) + " out of range: allowed 1 or more");
    return static_cast<std::uint64_t>(v);
  };
  Redistribution r{positive(P, "P"), positive(K, "K"), positive(Q, "Q"), positive(x, "x"),
                   static_cast<std::uint64_t>(a.shape(0)), reverse};
  RedistributePlan plan(RedistributePlan::Options{r, schedule, false, -1, PlanTarget{t, parse_backend_choice(backend)}});
  const RedistributionPlacement& pl = plan.placement();
  Machine mach(MachineOptions{pl.n, pl.m, t, parse_backend_choice(backend), -1});
  const std::size_t wb = info(t).bytes;
  const auto* in = static_cast<const unsigned char*>(a.data());
  const RedistElement element = [&](std::uint64_t g, unsigned char* out) { std::memcpy(out, in + g * wb, wb); };
  py::array out(a.dtype(), std::vector<py::ssize_t>{static_cast<py::ssize_t>(receivers(pl.r)),
                                                    static_cast<py::ssize_t>(pl.dest_words)});
  auto* rows = static_cast<unsigned char*>(out.mutable_data());
  {
    py::gil_scoped_release free;
    load_sources(mach, pl, element);
    plan.execute(mach);
    verify_redistribution(mach, pl, element);  // against the layout's closed form
    store_destinations(mach, pl, [&](std::uint64_t w, std::uint64_t words, const unsigned char* src) {
      std::memcpy(rows + w * wb, src, words * wb);
    });
  }
  return out;
}

std::string schedule_json(const std::string& algorithm, long long d, long long m, const std::string& lines) {
  AapcRequest r;
  r.method = parse_aapc_method(algorithm);
  r.d = d;
  r.m = m;
  r.lines = parse_line_drawing(lines);
  return to_json(build_aapc_schedule(r).schedule).dump();
}

}  // namespace
}  // namespace hcube::python

PYBIND11_MODULE(_hcube, mod) {
  using namespace hcube::python;
  mod.doc() = "hcube's library on NumPy arrays; use the package hcube";
  // The library's one-line errors: hcube.Error, a ValueError.
  py::register_exception<hcube::Error>(mod, "Error", PyExc_ValueError);
  mod.attr("__version__") = hcube::version();
  py::class_<PyMachine>(mod, "Machine")
      .def(py::init<long long, long long, const std::string&, const std::string&>(), py::arg("n"), py::arg("m"),
           py::arg("dtype"), py::arg("backend"))
      .def("load", &PyMachine::load)
      .def("read", &PyMachine::read)
      .def("aapc", &PyMachine::aapc, py::arg("algorithm"), py::arg("permutation"), py::arg("d"))
      .def("permute", &PyMachine::permute, py::arg("perm"), py::arg("algorithm"), py::arg("fused"), py::arg("ports"))
      .def("counters_json", &PyMachine::counters_json)
      .def_property_readonly("n", &PyMachine::n)
      .def_property_readonly("m", &PyMachine::m)
      .def_property_readonly("dtype", &PyMachine::dtype)
      .def_property_readonly("backend", &PyMachine::backend);
  mod.def("fft", &fft, py::arg("x"), py::arg("nodes_log2"), py::arg("order"), py::arg("inverse"), py::arg("backend"));
  mod.def("redistribute", &redistribute, py::arg("a"), py::arg("P"), py::arg("Q"), py::arg("K"), py::arg("x"),
          py::arg("schedule"), py::arg("reverse"), py::arg("backend"));
  mod.def("schedule_json", &schedule_json, py::arg("algorithm"), py::arg("d"), py::arg("m"), py::arg("lines"));
}
