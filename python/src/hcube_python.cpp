// hcube._hcube: the library's plans and machine on the caller's arrays, for
// the package python/hcube. Every check is the library's, so a bad input
// raises the command line's one-line message; the GIL is released while the
// machine runs.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <string>
#include <vector>

#include "hcube/cli/animate.hpp"
#include "hcube/hcube.hpp"
#include "hcube/emulator/json.hpp"
#include "hcube/host/schedule_json.hpp"
#include "hcube/host/io/output_file.hpp"
#include "hcube/synthesize.hpp"
#include "hcube/host/cycle.hpp"
#include "hcube/host/fft_plan.hpp"
#include "plan_makers.hpp"

namespace py = pybind11;
using hcube::ElementType;
using hcube_python::word_of_size;
using hcube_python::word_of_typestr;
using hcube_python::backend_choice;

namespace {

std::string descr_of(ElementType t) { return hcube::info(t).npy_descr; }

// An array handed in: host memory (a NumPy array) or device memory (an
// object with __cuda_array_interface__, such as a CuPy array), or either
// behind DLPack (__dlpack__: a PyTorch or JAX array).
struct ArrayRef {
  void* data = nullptr;
  std::uint64_t bytes = 0;
  ElementType type = ElementType::u32;
  std::vector<std::uint64_t> shape;
  bool device = false;
  int device_id = -1;  // DLPack's device id of a CUDA array; -1: not told
  hcube::CudaStream stream = nullptr;
  py::object keep;  // a DLPack capsule: its producer frees the tensor when it goes
};

// DLPack first: its stream argument makes the producer order its pending work
// before hcube's stream (PyTorch's __cuda_array_interface__ carries no stream).
bool is_dlpack_array(const py::handle& a) { return !py::isinstance<py::array>(a) && py::hasattr(a, "__dlpack__"); }

bool is_device_array(const py::handle& a) {
  return !py::isinstance<py::array>(a) && !is_dlpack_array(a) && py::hasattr(a, "__cuda_array_interface__");
}

// DLPack's ABI (dmlc/dlpack, the unversioned "dltensor" capsule every
// producer still gives a caller that asks for no version): declared here from
// the specification, since the header is not among this project's packages.
namespace dl {
struct Device {
  std::int32_t type;  // 1: CPU, 2: CUDA, 3: CUDA host (pinned), 13: CUDA managed
  std::int32_t id;
};
struct DataType {
  std::uint8_t code;  // 0: int, 1: uint, 2: float, 5: complex
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct Tensor {
  void* data;
  Device device;
  std::int32_t ndim;
  DataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; null: C order
  std::uint64_t byte_offset;
};
struct ManagedTensor {
  Tensor tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor*);
};
constexpr std::int32_t kCpu = 1, kCuda = 2, kCudaHost = 3, kCudaManaged = 13;
}  // namespace dl

// The word of a DLPack dtype: int, uint, float, bfloat, complex or bool, by its size.
ElementType dlpack_type(const dl::DataType& t, const std::string& what) {
  const bool known = t.code <= 2 || t.code == 4 || t.code == 5 || t.code == 6;
  if (t.lanes != 1 || !known || t.bits % 8 != 0)
    throw py::type_error(what + ": DLPack dtype (code " + std::to_string(t.code) + ", " + std::to_string(t.bits) +
                         " bits, " + std::to_string(t.lanes) +
                         " lanes) unsupported: allowed one lane of int, uint, float, bfloat, complex or bool");
  return word_of_size(t.bits / 8, "(DLPack code " + std::to_string(t.code) + ", " + std::to_string(t.bits) + " bits)",
                      what);
}

// The tensor behind __dlpack__, used in place: CPU memory as a host array,
// CUDA memory as a device array on the legacy default stream (the producer
// orders its work before it, as DLPack's stream argument asks).
ArrayRef dlpack_array(const py::handle& a, const std::string& what) {
  py::tuple where = a.attr("__dlpack_device__")();
  const auto device_type = where[0].cast<std::int32_t>();
  const bool cuda = device_type == dl::kCuda || device_type == dl::kCudaManaged;
  if (!cuda && device_type != dl::kCpu && device_type != dl::kCudaHost)
    throw py::value_error(what + ": a DLPack array on device type " + std::to_string(device_type) +
                          ": allowed the CPU (1), CUDA (2), pinned host (3) and managed (13) memory");
  ArrayRef r;
  r.keep = cuda ? a.attr("__dlpack__")(py::arg("stream") = 1) : a.attr("__dlpack__")();
  if (!PyCapsule_IsValid(r.keep.ptr(), "dltensor"))
    throw py::type_error(what + ": __dlpack__ returned no \"dltensor\" capsule");
  const auto* managed = static_cast<const dl::ManagedTensor*>(PyCapsule_GetPointer(r.keep.ptr(), "dltensor"));
  const dl::Tensor& t = managed->tensor;
  r.type = dlpack_type(t.dtype, what);
  const std::size_t wb = hcube::info(r.type).bytes;
  std::uint64_t expect = 1;  // C order: strides absent or those of a C-contiguous array
  for (std::int32_t k = 0; k < t.ndim; ++k) r.shape.push_back(static_cast<std::uint64_t>(t.shape[k]));
  for (std::int32_t k = t.ndim; t.strides != nullptr && k-- > 0;) {
    if (r.shape[k] > 1 && static_cast<std::uint64_t>(t.strides[k]) != expect)
      hcube::fail_not_c_order(what, cuda ? "a strided device array" : "a non-C-contiguous array (column-major or strided)");
    expect *= r.shape[k];
  }
  r.data = static_cast<char*>(t.data) + t.byte_offset;
  r.bytes = wb;
  for (const std::uint64_t d : r.shape) r.bytes *= d;
  r.device = cuda;
  if (cuda) r.device_id = t.device.id;
  if (cuda) r.stream = reinterpret_cast<hcube::CudaStream>(std::uintptr_t{1});
  return r;
}

ArrayRef device_array(const py::handle& a, const std::string& what) {
  const py::dict cai = a.attr("__cuda_array_interface__");
  ArrayRef r;
  r.device = true;
  r.type = word_of_typestr(py::str(cai["typestr"]), what);
  const std::size_t wb = hcube::info(r.type).bytes;
  for (const py::handle d : py::tuple(cai["shape"])) r.shape.push_back(d.cast<std::uint64_t>());
  // C order: strides absent (None) or exactly those of a C-contiguous array.
  if (cai.contains("strides") && !cai["strides"].is_none()) {
    const py::tuple strides(cai["strides"]);
    std::uint64_t expect = wb;
    for (std::size_t k = r.shape.size(); k-- > 0;) {
      if (r.shape[k] > 1 && strides[k].cast<std::uint64_t>() != expect)
        hcube::fail_not_c_order(what, "a strided device array");
      expect *= r.shape[k];
    }
  }
  const py::tuple data(cai["data"]);
  if (data[1].cast<bool>()) throw py::value_error(what + ": the device array is read-only");
  r.data = reinterpret_cast<void*>(data[0].cast<std::uintptr_t>());
  r.bytes = wb;
  for (std::uint64_t d : r.shape) r.bytes *= d;
  // The producer's stream (1 and 2: CUDA's legacy and per-thread default streams, valid as handles).
  if (cai.contains("stream") && !cai["stream"].is_none())
    r.stream = reinterpret_cast<hcube::CudaStream>(cai["stream"].cast<std::uintptr_t>());
  return r;
}

ArrayRef host_array(const py::handle& h, const std::string& what, bool writable) {
  if (!py::isinstance<py::array>(h))
    throw py::type_error(what + ": expected a NumPy array (or, on the CUDA backend, an object with "
                                "__cuda_array_interface__), got " +
                         std::string(py::str(py::type::of(h).attr("__name__"))));
  const py::array a = py::reinterpret_borrow<py::array>(h);
  ArrayRef r;
  if (a.dtype().attr("hasobject").cast<bool>())
    throw py::type_error(what + ": dtype " + std::string(py::str(a.dtype())) +
                         " holds Python objects: allowed fixed-size dtypes of 1, 2, 4, 8 or 16 bytes");
  r.type = word_of_size(static_cast<std::uint64_t>(a.itemsize()), py::str(a.dtype().attr("str")), what);
  if (!(a.flags() & py::array::c_style))
    hcube::fail_not_c_order(what, "a non-C-contiguous array (column-major or strided)");
  if (writable && !a.writeable()) throw py::value_error(what + ": the array is read-only");
  for (py::ssize_t k = 0; k < a.ndim(); ++k) r.shape.push_back(static_cast<std::uint64_t>(a.shape(k)));
  r.data = const_cast<void*>(a.data());
  r.bytes = static_cast<std::uint64_t>(a.nbytes());
  return r;
}

ArrayRef array_ref(const py::handle& a, const std::string& what, bool writable = true) {
  if (is_dlpack_array(a)) return dlpack_array(a, what);
  return is_device_array(a) ? device_array(a, what) : host_array(a, what, writable);
}

// The array fits a machine of n, m and `type`: the command line's check of an input file.
ArrayRef machine_array(const py::handle& a, unsigned n, unsigned m, ElementType type, bool writable = true) {
  ArrayRef r = array_ref(a, "array", writable);
  hcube::check_machine_shape(type, r.shape, "array", n, m, type);  // the shape: a ValueError
  try {
    hcube::check_machine_shape(r.type, r.shape, "array", n, m, type);  // then the dtype: a TypeError
  } catch (const hcube::Error& e) {
    throw py::type_error(e.what());
  }
  return r;
}

py::array new_array(ElementType t, const std::vector<py::ssize_t>& shape) {
  return py::array(py::dtype(descr_of(t)), shape);
}

// A plan of the library, executed in place on the caller's array.
class PyPlan {
 public:
  explicit PyPlan(std::unique_ptr<hcube::Plan> plan) : plan_(std::move(plan)) {}

  // Checks an array as execute would, before the caller copies it.
  void check(const py::handle& a) const {
    const hcube::Geometry& g = plan_->geometry();
    machine_array(a, g.n, g.m, plan_->type(), false);
  }

  std::string execute(const py::handle& a) {
    const hcube::Geometry& g = plan_->geometry();
    const ArrayRef r = machine_array(a, g.n, g.m, plan_->type());
    check_device(r, *plan_);
    hcube::Counters c;
    {
      py::gil_scoped_release release;
      // One execution at a time: a plan's scratch, staging copy and stream are its own (taken
      // without the GIL, so that a thread waiting here never holds it).
      const std::lock_guard<std::mutex> one_at_a_time(*busy_);
      // A device array's run is enqueued on its stream; the counters' time waits for it, so
      // the function returns with the array's result in place, as NumPy's callers expect.
      if (r.device) plan_->execute_device(r.data, r.bytes, r.stream);
      c = r.device ? plan_->last_counters() : plan_->execute(r.data, r.bytes);
    }
    return hcube::to_json(c).dump();
  }

  hcube::Plan& plan() { return *plan_; }

  // A CUDA array on another device than the plan's is refused before anything runs.
  static void check_device(const ArrayRef& r, const hcube::Plan& plan) {
    if (!r.device || r.device_id < 0) return;
    if (plan.cuda_device() < 0)
      throw py::value_error("a CUDA array (device " + std::to_string(r.device_id) + ") given to a plan on the " +
                            hcube::to_string(plan.backend_kind()) + " backend: use backend=\"cuda\" or a host array");
    if (r.device_id != plan.cuda_device())
      throw py::value_error("the array lives on CUDA device " + std::to_string(r.device_id) +
                            ": this plan runs on device " + std::to_string(plan.cuda_device()));
  }

 private:
  std::unique_ptr<hcube::Plan> plan_;
  std::unique_ptr<std::mutex> busy_ = std::make_unique<std::mutex>();  // movable, as the plan is
};

PyPlan aapc_plan(const std::string& algorithm, long long d, long long n, long long m, const std::string& permutation,
                 const std::string& descr, const std::string& backend) {
  return PyPlan(hcube_python::make_aapc_plan(algorithm, d, n, m, permutation, descr, backend));
}

PyPlan permute_plan(const std::string& perm, long long n, long long m, const std::string& algorithm, bool fused,
                    const std::string& ports, const std::string& effort, const std::string& descr,
                    const std::string& backend) {
  return PyPlan(hcube_python::make_permute_plan(perm, n, m, algorithm, fused, ports, effort, descr, backend));
}

// The machine of hcube.Machine: its own storage, loaded and read by copies.
// Its steps run without the GIL, one at a time (lock()): a Machine is not
// safe to use from two threads at once.
class PyMachine {
 public:
  PyMachine(long long n, long long m, const std::string& descr, const std::string& backend)
      : machine_(hcube::MachineOptions{n, m, word_of_typestr(descr, "dtype"), backend_choice(backend)}) {}

  unsigned n() const { return machine_.geometry().n; }
  unsigned m() const { return machine_.geometry().m; }
  std::string dtype() const { return descr_of(machine_.type()); }
  std::string backend() const { return hcube::to_string(machine_.backend().kind()); }
  std::string counters() const {
    py::gil_scoped_release release;
    const std::lock_guard<std::mutex> lock(mutex_);
    return hcube::to_json(machine_.counters()).dump();
  }
  void reset_counters() {
    py::gil_scoped_release release;
    const std::lock_guard<std::mutex> lock(mutex_);
    machine_.reset_counters();
  }

  void load(const py::handle& a) {
    const ArrayRef r = machine_array(a, n(), m(), machine_.type(), false);
    if (r.device)
      throw py::type_error("Machine.load takes a NumPy array; for device arrays use hcube.permute or hcube.aapc");
    py::gil_scoped_release release;
    const std::lock_guard<std::mutex> lock(mutex_);
    machine_.load(r.data, r.bytes);
  }

  py::array read() const {
    py::array out = new_array(machine_.type(), {static_cast<py::ssize_t>(machine_.geometry().nodes()),
                                                static_cast<py::ssize_t>(machine_.geometry().words_per_node())});
    void* dst = out.mutable_data();
    const std::uint64_t bytes = machine_.bytes();
    {
      py::gil_scoped_release release;
      const std::lock_guard<std::mutex> lock(mutex_);
      machine_.read(dst, bytes);
    }
    return out;
  }

  void run(PyPlan& plan) {
    py::gil_scoped_release release;
    const std::lock_guard<std::mutex> lock(mutex_);
    plan.plan().execute(machine_);
  }

  void aapc(const std::string& algorithm, long long d, const std::string& permutation) {
    PyPlan p = aapc_plan(algorithm, d, n(), m(), permutation, dtype(), backend());
    run(p);
  }

  void permute(const std::string& perm, const std::string& algorithm, bool fused, const std::string& ports,
               const std::string& effort) {
    PyPlan p = permute_plan(perm, n(), m(), algorithm, fused, ports, effort, dtype(), backend());
    run(p);
  }

  void cycle(const std::string& exchanges, const std::string& port_model, unsigned channel_width) {
    const hcube::PortRules rules{hcube::parse_port_model(port_model), channel_width};
    const hcube::Cycle c = hcube::parse_cycle(exchanges);
    hcube::check_cycle(machine_.geometry(), c, rules);
    py::gil_scoped_release release;
    const std::lock_guard<std::mutex> lock(mutex_);
    machine_.run_cycle(c, rules);
  }

  void align(const std::string& xor_proc, const std::string& xor_mem, const std::string& mem_perm,
             const std::string& gray) {
    const hcube::AffineMap map = hcube::alignment_map(machine_.geometry(), xor_proc, xor_mem, mem_perm, gray);
    py::gil_scoped_release release;
    const std::lock_guard<std::mutex> lock(mutex_);
    machine_.align(map);
  }

 private:
  hcube::Machine machine_;
  mutable std::mutex mutex_;
};

// n and m from an array's shape (the flat form needs one of them): the library's one-line messages.
std::pair<long long, long long> machine_dims(const std::vector<std::uint64_t>& shape, std::optional<long long> n,
                                             std::optional<long long> m) {
  hcube::machine_dims_from_shape(shape, "array", n, m);
  // A flat array with n (or m) outside 0..q leaves the other unset: say so here, not as a bad argument later.
  if (!n || !m) {
    const long long q = __builtin_ctzll(shape.at(0));
    throw hcube::Error("array has shape (" + std::to_string(shape.at(0)) + ",): " +
                       (n ? "n = " + std::to_string(*n) : "m = " + std::to_string(*m)) + " out of range: allowed 0.." +
                       std::to_string(q) + " for its 2^" + std::to_string(q) + " words");
  }
  // Both given: they must fit the shape (values out of range are the plan's to refuse, in its words).
  if (*n >= 0 && *m >= 0 && *n < 64 && *m < 64)
    hcube::check_machine_shape(ElementType::u32, shape, "array", static_cast<unsigned>(*n), static_cast<unsigned>(*m),
                               ElementType::u32);
  return {*n, *m};
}

// n and m from an array's shape, and the .npy descriptor of its word: the array is looked
// at once (a DLPack array hands out one capsule, a CUDA one waits on its stream once).
std::tuple<long long, long long, std::string> array_info(const py::handle& a, std::optional<long long> n,
                                                         std::optional<long long> m) {
  const ArrayRef r = array_ref(a, "array", false);
  const auto [nn, mm] = machine_dims(r.shape, n, m);
  return {nn, mm, descr_of(r.type)};
}

template <typename T>
py::array fft_of(const ArrayRef& r, unsigned nodes_log2, hcube::FftOrder order, hcube::BackendChoice backend) {
  const T* in = static_cast<const T*>(r.data);
  std::vector<T> x(in, in + r.bytes / sizeof(T));
  std::vector<T> y;
  {
    py::gil_scoped_release release;
    y = hcube::hcube_fft(x, nodes_log2, order, backend);
  }
  py::array out = new_array(r.type, {static_cast<py::ssize_t>(y.size())});
  std::memcpy(out.mutable_data(), y.data(), y.size() * sizeof(T));
  return out;
}

py::array fft(const py::handle& a, long long nodes_log2, const std::string& order, const std::string& backend) {
  ArrayRef r = host_array(a, "array", false);
  // The FFT does arithmetic on the points, so here the dtype itself counts, not its size.
  const std::string descr = py::str(py::reinterpret_borrow<py::array>(a).dtype().attr("str"));
  if (descr != "<c8" && descr != "<c16")
    throw py::type_error("array holds " + descr + ": hcube fft needs complex64 (<c8) or complex128 (<c16) points");
  r.type = descr == "<c8" ? ElementType::c64 : ElementType::c128;
  if (r.shape.size() != 1)
    throw py::value_error("array has " + std::to_string(r.shape.size()) +
                          " dimensions: hcube fft reads a flat array of 2^P points in index order");
  const std::uint64_t count = r.shape[0];
  if (count < 2 || (count & (count - 1)) != 0)
    throw py::value_error("array holds " + std::to_string(count) + " points: not a power of two (2 or more)");
  hcube::check_fft_sizes(__builtin_ctzll(count), nodes_log2);
  const auto nodes = static_cast<unsigned>(nodes_log2);
  const hcube::FftOrder o = hcube::parse_fft_order(order);
  return r.type == ElementType::c128 ? fft_of<std::complex<double>>(r, nodes, o, backend_choice(backend))
                                     : fft_of<std::complex<float>>(r, nodes, o, backend_choice(backend));
}

// The block-cyclic redistribution of a flat array: the destinations' rows, (Q, N/Q) as hcube redistribute writes.
// y > 0: cyclic(x) on P to cyclic(y) on Q, K unused (0).
py::tuple redistribute(const py::handle& a, long long P, long long Q, long long K, long long x,
                       const std::string& schedule, bool overlap, bool reverse, const std::string& backend,
                       long long y) {
  const ArrayRef r = host_array(a, "array", false);
  if (r.shape.size() != 1)
    throw py::value_error("array has " + std::to_string(r.shape.size()) +
                          " dimensions: the array must be one-dimensional, N elements in global order");
  for (const auto& [v, name] : {std::pair{P, "P"}, {Q, "Q"}, {y > 0 ? 1 : K, "K"}, {x, "x"}})
    if (v < 1)
      throw py::value_error(std::string(name) + " = " + std::to_string(v) + " out of range: allowed 1 or more");
  const hcube::Redistribution problem{static_cast<std::uint64_t>(P),
                                      y > 0 ? 0 : static_cast<std::uint64_t>(K),
                                      static_cast<std::uint64_t>(Q),
                                      static_cast<std::uint64_t>(x),
                                      r.shape[0],
                                      reverse,
                                      static_cast<std::uint64_t>(std::max(y, 0LL))};
  hcube::RedistributePlan plan(
      hcube::RedistributePlan::Options{problem, schedule, overlap, std::nullopt, {r.type, backend_choice(backend)}});
  const hcube::RedistributionPlacement& pl = plan.placement();
  const std::size_t wb = hcube::info(r.type).bytes;
  // The receivers' rows: Q of them, or P when the problem runs backwards.
  py::array out = new_array(r.type, {static_cast<py::ssize_t>(hcube::receivers(pl.r)),
                                     static_cast<py::ssize_t>(pl.dest_words)});
  auto* dst = static_cast<unsigned char*>(out.mutable_data());
  const auto* src = static_cast<const unsigned char*>(r.data);
  hcube::Counters c;
  {
    py::gil_scoped_release release;
    hcube::Machine mach(pl.machine(r.type, backend_choice(backend)));
    const hcube::RedistElement element = [&](std::uint64_t g, unsigned char* e) { std::memcpy(e, src + g * wb, wb); };
    hcube::load_sources(mach, pl, element);
    c = plan.execute(mach);
    hcube::verify_redistribution(mach, pl, element);  // checked as the command line checks it
    std::uint64_t at = 0;
    hcube::store_destinations(mach, pl, [&](std::uint64_t, std::uint64_t words, const unsigned char* run) {
      std::memcpy(dst + at * wb, run, words * wb);
      at += words;
    });
  }
  return py::make_tuple(out, hcube::to_json(c).dump());
}

std::string schedule(const std::string& algorithm, long long d, std::optional<long long> n, std::optional<long long> m, long long channel_width,
                     bool blocked, const std::string& lines, const std::string& pair_order) {
  hcube::AapcRequest req;
  req.method = hcube::parse_aapc_method(algorithm);
  req.d = d;
  req.n = n;
  req.m = m;
  req.channel_width = channel_width;
  req.blocked = blocked;
  req.lines = hcube::parse_line_drawing(lines);
  req.pairs = hcube::parse_pair_order(pair_order);
  return hcube::to_json(hcube::build_aapc_schedule(req).schedule).dump();
}

py::dict animate(const std::vector<std::string>& args) {
  hcube::cli::Animation a;
  {
    py::gil_scoped_release release;
    a = hcube::cli::animate(args);
  }
  py::dict d;
  d["command"] = a.command;
  d["html"] = a.html;
  d["steps"] = a.steps;
  d["routing_cycles"] = a.routing_cycles;
  d["nodes"] = a.nodes;
  d["verified"] = a.verified;
  d["help"] = a.help;
  // Each run drawn (two with algorithm="1,4"): its algorithm, steps, routing cycles, element-hops.
  py::list machines;
  for (const auto& m : a.machines) {
    py::dict one;
    one["algorithm"] = m.algorithm;
    one["steps"] = m.steps;
    one["routing_cycles"] = m.routing_cycles;
    one["element_hops"] = m.element_hops;
    machines.append(one);
  }
  d["machines"] = machines;
  return d;
}

}  // namespace

PYBIND11_MODULE(_hcube, mod) {
  mod.doc() = "hcube's library on NumPy (and CUDA) arrays; use the package hcube";
  hcube_python::register_errors();
  using py::arg;
  mod.def("version", [] { return std::string(hcube::version()); });
  mod.def("cuda_built", &hcube::cuda_backend_built);
  mod.def("array_info", &array_info, arg("a"), arg("n"), arg("m"));
  mod.def("machine_dims", &machine_dims, arg("shape"), arg("n"), arg("m"));
  mod.def(
      "check_shape",
      [](const std::vector<std::uint64_t>& shape, unsigned n, unsigned m) {
        hcube::check_machine_shape(ElementType::u32, shape, "array", n, m, ElementType::u32);
      },
      arg("shape"), arg("n"), arg("m"));

  py::class_<PyPlan>(mod, "Plan")
      .def("check", &PyPlan::check, arg("a"))
      .def("execute", &PyPlan::execute, arg("a"));
  mod.def("aapc_plan", &aapc_plan, arg("algorithm"), arg("d"), arg("n"), arg("m"), arg("permutation"),
          arg("dtype"), arg("backend"));
  mod.def("permute_plan", &permute_plan, arg("perm"), arg("n"), arg("m"), arg("algorithm"), arg("fused"),
          arg("ports"), arg("effort"), arg("dtype"), arg("backend"));

  py::class_<PyMachine>(mod, "Machine")
      .def(py::init<long long, long long, const std::string&, const std::string&>(), arg("n"), arg("m"),
           arg("dtype"), arg("backend"))
      .def_property_readonly("n", &PyMachine::n)
      .def_property_readonly("m", &PyMachine::m)
      .def_property_readonly("dtype", &PyMachine::dtype)
      .def_property_readonly("backend", &PyMachine::backend)
      .def("counters", &PyMachine::counters)
      .def("reset_counters", &PyMachine::reset_counters)
      .def("load", &PyMachine::load, arg("a"))
      .def("read", &PyMachine::read)
      .def("aapc", &PyMachine::aapc, arg("algorithm"), arg("d"), arg("permutation"))
      .def("permute", &PyMachine::permute, arg("perm"), arg("algorithm"), arg("fused"), arg("ports"), arg("effort"))
      .def("cycle", &PyMachine::cycle, arg("exchanges"), arg("port_model"), arg("channel_width"))
      .def("align", &PyMachine::align, arg("xor_proc"), arg("xor_mem"), arg("mem_perm"), arg("gray"));

  mod.def("check_fft_sizes", &hcube::check_fft_sizes, arg("points_log2"), arg("nodes_log2"));
  mod.def("fft", &fft, arg("x"), arg("nodes_log2"), arg("order"), arg("backend"));
  mod.def("redistribute", &redistribute, arg("a"), arg("P"), arg("Q"), arg("K"), arg("x"), arg("schedule"),
          arg("overlap"), arg("reverse"), arg("backend"), arg("y"));
  mod.def("schedule", &schedule, arg("algorithm"), arg("d"), arg("n"), arg("m"), arg("channel_width"),
          arg("blocked"), arg("lines"), arg("pair_order"));
  mod.def("animate", &animate, arg("args"));
  mod.def(
      "tune",
      [](bool quick, long long log2_bytes, double budget_seconds, const std::string& output) {
        const std::string path = output.empty() ? hcube::wisdom_path() : output;
        hcube::TuneResult r;
        {
          py::gil_scoped_release release;
          r = hcube::run_tune(hcube::TuneRequest{quick, log2_bytes, budget_seconds});
          hcube::write_wisdom(r.wisdom, path);
        }
        nlohmann::json j = hcube::to_json(r);
        j["wisdom_path"] = path;
        return j.dump();
      },
      arg("quick"), arg("log2_bytes"), arg("budget_seconds"), arg("output"));
  mod.def("synthesis_available", &hcube::synthesis_available);
  mod.def(
      "synthesize",
      [](const std::string& pattern, const std::string& dims, std::optional<long long> axes, std::optional<long long> m,
         std::optional<long long> max_cycles, double time_limit, const std::string& port_model,
         const std::string& output, const std::string& perm, const std::string& topology) {
        hcube::SynthesisRequest r;
        r.topology = topology;
        r.pattern = pattern;
        r.dims = dims;
        r.perm = perm;
        r.axes = axes.value_or(hcube::kUnsetSize);
        r.m = m.value_or(hcube::kUnsetSize);
        r.max_cycles = max_cycles.value_or(hcube::kUnsetSize);
        r.time_limit = time_limit;
        r.port_model = port_model;
        hcube::check_output(output, "--output");
        nlohmann::json j;
        {
          py::gil_scoped_release release;
          const hcube::SynthesisResult res = hcube::synthesize(r);
          hcube::save_synthesis(output, res);
          j = hcube::to_json(res);
        }
        j["output"] = output;
        return j.dump();
      },
      arg("pattern"), arg("dims"), arg("axes"), arg("m"), arg("max_cycles"), arg("time_limit"), arg("port_model"),
      arg("output"), arg("perm") = "", arg("topology") = "");
}
