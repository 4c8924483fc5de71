// The CUDA backend: kernels run on device memory, one launch per primitive.
#include <cuda_runtime.h>
#include <cufft.h>
#include <fmt/format.h>
#include <thrust/system/cuda/execution_policy.h>

#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../backend_impl.hpp"
#include "hcube/host/xor_cosets.hpp"
#include "hcube/backends/cuda/align_xor.cuh"
#include "hcube/backends/cuda/exchange.cuh"
#include "hcube/backends/cuda/launch.cuh"
#include "hcube/backends/cuda/permute.cuh"
#include "hcube/backends/cuda/tuning.cuh"
#include "hcube/kernels/thrust_labels.hpp"

namespace hcube {
namespace {

using kernels::cuda::check;

int g_local_rank = -1;  // set_cuda_local_rank's; -1: one process, the thread's current device

using namespace kernels::cuda::tuning;

struct DeviceFree {
  void operator()(void* p) const {
    if (p != nullptr) cudaFree(p);
  }
};

// Allocation and plan making are "potentially unsafe" calls that a thread
// capturing in cudaStreamCaptureModeGlobal may not make: a caller capturing
// its stream into a graph while a plan executes. This scope lets them run (as
// CUDA's documentation advises libraries to do) and puts the caller's mode back.
class RelaxedCapture {
 public:
  RelaxedCapture() { cudaThreadExchangeStreamCaptureMode(&mode_); }
  ~RelaxedCapture() { cudaThreadExchangeStreamCaptureMode(&mode_); }
  RelaxedCapture(const RelaxedCapture&) = delete;
  RelaxedCapture& operator=(const RelaxedCapture&) = delete;

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
};

bool stream_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  check(cudaStreamIsCapturing(stream, &status), "cudaStreamIsCapturing");
  return status == cudaStreamCaptureStatusActive;
}

// A span of the stream between two events (timing events: the run is on the device's clock).
class EventTimer final : public StreamTimer {
 public:
  explicit EventTimer(cudaStream_t stream) : stream_(stream) {
    check(cudaEventCreate(&start_), "cudaEventCreate");
    const cudaError_t made = cudaEventCreate(&stop_);
    if (made != cudaSuccess) cudaEventDestroy(start_);
    check(made, "cudaEventCreate");
    check(cudaEventRecord(start_, stream_), "cudaEventRecord");
  }
  ~EventTimer() override {  // an event still pending is released once the stream passes it
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void stop() override {
    check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
    stopped_ = true;
  }
  double seconds() override {
    if (!stopped_) throw Error("internal: a stream timer read before it was stopped");
    float ms = 0;
    check(cudaEventSynchronize(stop_), "kernel execution");
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms / 1e3;
  }

 private:
  cudaStream_t stream_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  bool stopped_ = false;
};

// The memory bandwidth the maker states for the cards we know (bytes/s),
// else twice the memory clock times the bus width (DDR), or 0.
double stated_bandwidth(const std::string& name, int device) {
  struct Known {
    const char* name_part;
    double bytes_per_second;
  };
  static const Known known[] = {
      {"H200", 4.8e12},          {"H100 NVL", 3.9e12},     {"H100 PCIe", 2.0e12}, {"H100", 3.35e12},  // H100 SXM5
      {"A100 80GB PCIe", 1.935e12}, {"A100-SXM4-80GB", 2.039e12}, {"A100", 1.555e12},
      {"L40S", 0.864e12},        {"V100", 0.9e12},
  };
  for (const Known& k : known)
    if (name.find(k.name_part) != std::string::npos) return k.bytes_per_second;
  int clock_khz = 0, bus_bits = 0;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return 2.0 * clock_khz * 1e3 * bus_bits / 8;
}

// Pinned host blocks that parameter uploads are copied from. A block is
// reused once the upload that read it has run (its event), so the caller's
// array is free on return and the host may run ahead of the stream by up to
// kMaxInFlight uploads without waiting.
class PinnedUploads {
 public:
  PinnedUploads() = default;
  PinnedUploads(const PinnedUploads&) = delete;
  PinnedUploads& operator=(const PinnedUploads&) = delete;
  ~PinnedUploads() {
    for (Block& b : in_flight_) release(b);
    for (Block& b : free_) release(b);
    for (Block& b : captured_) release(b);
  }

  // dev[0, bytes) = host[0, bytes), enqueued on `stream`. While the stream is
  // capturing, the copy is a node of the caller's graph that reads its block at
  // every replay: the block is the graph's for the uploads' life, never reused.
  void upload(void* dev, const void* host, std::size_t bytes, cudaStream_t stream, bool capturing) {
    if (capturing) {
      Block b;
      {
        const RelaxedCapture relaxed;
        check(cudaMallocHost(&b.data, std::max(bytes, kMinBlockBytes)), "pinned parameter buffer allocation");
      }
      b.bytes = bytes;
      captured_.push_back(b);
      std::memcpy(b.data, host, bytes);
      check(cudaMemcpyAsync(dev, b.data, bytes, cudaMemcpyHostToDevice, stream), "parameter upload");
      return;
    }
    Block b = take(bytes);
    std::memcpy(b.data, host, bytes);
    cudaError_t err = cudaMemcpyAsync(dev, b.data, bytes, cudaMemcpyHostToDevice, stream);
    if (err == cudaSuccess) err = cudaEventRecord(b.event, stream);
    if (err != cudaSuccess) {
      cudaStreamSynchronize(stream);  // the copy may have been enqueued: let it finish before the block is reused
      free_.push_back(b);
      check(err, "parameter upload");
    }
    in_flight_.push_back(b);
  }

 private:
  static constexpr std::size_t kMaxInFlight = 64;
  static constexpr std::size_t kMinBlockBytes = 4096;

  struct Block {
    void* data = nullptr;
    std::size_t bytes = 0;
    cudaEvent_t event = nullptr;
  };

  static bool finished(const Block& b) {
    const cudaError_t err = cudaEventQuery(b.event);
    if (err == cudaErrorNotReady) {
      cudaGetLastError();  // not a failure: keep it from the next launch's error check
      return false;
    }
    check(err, "cudaEventQuery");
    return true;
  }

  static void release(Block& b) {
    if (b.event != nullptr) {
      cudaEventSynchronize(b.event);  // no pinned block is freed under a copy
      cudaEventDestroy(b.event);
    }
    if (b.data != nullptr) cudaFreeHost(b.data);
  }

  Block take(std::size_t bytes) {
    // One stream at a time (a new stream waits for the old), so uploads finish in order.
    while (!in_flight_.empty() && finished(in_flight_.front())) {
      free_.push_back(in_flight_.front());
      in_flight_.pop_front();
    }
    if (in_flight_.size() >= kMaxInFlight) {
      check(cudaEventSynchronize(in_flight_.front().event), "cudaEventSynchronize");
      free_.push_back(in_flight_.front());
      in_flight_.pop_front();
    }
    for (std::size_t i = 0; i < free_.size(); ++i)
      if (free_[i].bytes >= bytes) {
        const Block b = free_[i];
        free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
        return b;
      }
    Block b;
    if (!free_.empty()) {  // too small: grow the last one
      b = free_.back();
      free_.pop_back();
      check(cudaFreeHost(b.data), "cudaFreeHost");
      b.data = nullptr;
      b.bytes = 0;
    } else {
      check(cudaEventCreateWithFlags(&b.event, cudaEventDisableTiming), "cudaEventCreate");
    }
    const std::size_t size = std::max(bytes, kMinBlockBytes);
    cudaError_t err = cudaSuccess;
    {
      const RelaxedCapture relaxed;
      err = cudaMallocHost(&b.data, size);
    }
    if (err != cudaSuccess) {
      b.data = nullptr;
      release(b);
      check(err, "pinned parameter buffer allocation");
    }
    b.bytes = size;
    return b;
  }

  std::deque<Block> in_flight_;  // oldest first
  std::vector<Block> free_;
  std::vector<Block> captured_;  // read by nodes of a caller's graph
};

class CudaPolicy {
 public:
  static constexpr BackendKind kind = BackendKind::cuda;

  CudaPolicy() {
    // A rank takes its own device (set_cuda_local_rank); one process, the thread's current one.
    if (g_local_rank >= 0) {
      const int count = cuda_device_count();
      if (count > 0) device_ = g_local_rank % count;
      check(cudaSetDevice(device_), "cudaSetDevice");
    } else {
      check(cudaGetDevice(&device_), "cudaGetDevice");
    }
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties");
    name_ = fmt::format("{} (device {}, {:.1f} GiB)", prop.name, device_,
                        static_cast<double>(prop.totalGlobalMem) / (1u << 30));
    spec_bandwidth_ = stated_bandwidth(prop.name, device_);
    sms_ = prop.multiProcessorCount;
    int cooperative = 0;
    check(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device_), "cudaDeviceGetAttribute");
    cooperative_ = cooperative != 0;
  }

  CudaPolicy(const CudaPolicy&) = delete;
  CudaPolicy& operator=(const CudaPolicy&) = delete;
  ~CudaPolicy() {
    // Enqueued work may still read the backend's buffers, plans and work area:
    // wait for the stream (not the device) before they go, on the backend's device.
    struct OnDevice {
      CudaPolicy& p;
      int previous = p.enter_device_noexcept();
      ~OnDevice() { p.leave_device(previous); }
    } on_device{*this};
    cudaStreamSynchronize(user_stream_);
    for (const CachedGraph& g : graphs_) cudaGraphExecDestroy(g.exec);
    for (const auto& kv : fft_plans_) cufftDestroy(kv.second);
    if (switch_event_ != nullptr) cudaEventDestroy(switch_event_);
    if (capture_ != nullptr) cudaStreamDestroy(capture_);
  }

  void set_stream(CudaStream next) {
    const bool next_capturing = next != nullptr && stream_capturing(next);
    if (next == user_stream_ && next_capturing == capturing_) return;
    // The backend's parameter slots, staging buffer and cuFFT work area may still
    // be in use on the old stream: the new one starts after that work. A capture
    // cannot wait for work outside it, nor outside work for a capture: the caller
    // orders those (the graph runs when it is launched, not now).
    if (!next_capturing && !capturing_ && next != user_stream_) {
      if (switch_event_ == nullptr)
        check(cudaEventCreateWithFlags(&switch_event_, cudaEventDisableTiming), "cudaEventCreate");
      check(cudaEventRecord(switch_event_, user_stream_), "cudaEventRecord on the old stream");
      check(cudaStreamWaitEvent(next, switch_event_, 0), "cudaStreamWaitEvent on the new stream");
    }
    user_stream_ = stream_ = next;
    capturing_ = next_capturing;
    if (capturing_) captured_ = true;
  }
  CudaStream stream() const { return user_stream_; }
  bool capturing() const { return capturing_; }

  void reset_stream() noexcept {
    // Ordered as set_stream orders it while the device is sound; after a fault, dropped.
    try {
      set_stream(nullptr);
    } catch (...) {
      cudaGetLastError();
      user_stream_ = stream_ = nullptr;
      capturing_ = false;
    }
  }

  int cuda_device() const { return device_; }
  int enter_device() {
    int previous = -1;
    check(cudaGetDevice(&previous), "cudaGetDevice");
    if (previous == device_) return -1;
    check(cudaSetDevice(device_), "cudaSetDevice");
    return previous;
  }
  int enter_device_noexcept() noexcept {
    try {
      return enter_device();
    } catch (...) {
      cudaGetLastError();
      return -1;
    }
  }
  void leave_device(int previous) noexcept {
    if (previous >= 0 && cudaSetDevice(previous) != cudaSuccess) cudaGetLastError();
  }

  void check_device_buffer(const void* p, std::uint64_t bytes, const std::string& what) const {
    cudaPointerAttributes a{};
    cudaError_t err = cudaSuccess;
    {
      const RelaxedCapture relaxed;  // a caller's buffer checked while its stream captures (global mode)
      err = cudaPointerGetAttributes(&a, p);
    }
    if (err != cudaSuccess) {
      cudaGetLastError();
      throw Error(fmt::format("{} at {} is not CUDA memory ({})", what, p, cudaGetErrorString(err)));
    }
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
      throw Error(fmt::format("{} at {} is {} memory: allowed CUDA device or managed memory", what, p,
                              a.type == cudaMemoryTypeHost ? "pinned host" : "unregistered host"));
    if (a.type == cudaMemoryTypeDevice && a.device != device_)
      throw Error(fmt::format("{} of {} bytes lives on CUDA device {}: this plan's backend runs on device {}", what,
                              bytes, a.device, device_));
  }

  std::string device_name() const { return name_; }

  std::uint64_t available_bytes() const {
    std::size_t free_bytes = 0, total = 0;
    cudaError_t err = cudaSuccess;
    {
      const RelaxedCapture relaxed;  // asked before a plan's first allocation, which may come inside a capture
      err = cudaMemGetInfo(&free_bytes, &total);
    }
    check(err, "cudaMemGetInfo");
    return free_bytes;
  }

  Buffer allocate(std::uint64_t bytes, bool = false) {  // device memory: no huge-page advice to give
    void* p = nullptr;
    cudaError_t err = cudaSuccess;
    {
      const RelaxedCapture relaxed;
      err = cudaMalloc(&p, std::max<std::uint64_t>(bytes, 1));
    }
    if (err != cudaSuccess) {
      cudaGetLastError();  // clear the sticky allocation error
      throw OutOfMemory(fmt::format("cuda backend: allocation of {} bytes failed: {}", bytes, cudaGetErrorString(err)));
    }
    return Buffer(p, bytes, DeviceFree{});
  }

  // Page-locked host memory (cudaHostAlloc): the copies between it and the
  // device run as DMA, asynchronously on the stream.
  Buffer allocate_pinned(std::uint64_t bytes) {
    void* p = nullptr;
    cudaError_t err = cudaSuccess;
    {
      const RelaxedCapture relaxed;
      err = cudaHostAlloc(&p, std::max<std::uint64_t>(bytes, 1), cudaHostAllocDefault);
    }
    if (err != cudaSuccess) {
      cudaGetLastError();
      throw OutOfMemory(
          fmt::format("cuda backend: pinned host allocation of {} bytes failed: {}", bytes, cudaGetErrorString(err)));
    }
    return Buffer(p, bytes, [](void* q) { cudaFreeHost(q); });
  }

  template <class Body>
  void launch(std::uint64_t count, const Body& body) {
    kernels::cuda::launch(count, body, stream_);
  }
  template <class W>
  void launch_tiles(const kernels::BitPermuteTileBody<W>& body) {
    kernels::cuda::launch_permute_tiles(body, stream_);
  }
  BitPermutationTiling plan_tiles(const std::vector<unsigned>& to, std::size_t wb, const void*) const {
    return plan_bit_permutation_tiling(to, max_tile_bits_for(wb, kSharedTileBytes));
  }
  // Coset by coset through shared memory where the map is a pure xor (backends/cuda/align_xor.cuh).
  template <class W>
  void launch_align_xor(const kernels::AlignXorBody<W>& body, const AffineTables& host_map) {
    kernels::cuda::launch_align_xor(body, plan_xor_cosets(host_map, body.layout), stream_);
  }
  // Consecutive threads take consecutive nodes of a tile, 16 bytes each where they can.
  template <class W>
  void launch_exchanges(const kernels::ExchangeBody<W>& body, std::uint64_t count) {
    kernels::cuda::launch_exchanges(body, count, stream_);
  }
  // A batch of cycles. Per cycle: a launch each, captured as one CUDA graph,
  // which is kept and replayed when the same batch comes again. Persistent:
  // one cooperative launch walks the batch (kernels/exchange_cycles.hpp).
  template <class W>
  std::uint64_t launch_exchange_cycles(const kernels::ExchangeBody<W>& body, const std::vector<std::size_t>& ends,
                                       LaunchMode mode) {
    if (mode == LaunchMode::persistent) {
      launch_persistent(body, ends);
      return 1;
    }
    const auto capture = [&] {
      for (std::size_t c = 0; c < ends.size(); ++c) {
        const std::size_t first = c == 0 ? 0 : ends[c - 1];
        if (ends[c] == first) continue;
        kernels::ExchangeBody<W> cycle = body;
        cycle.exchanges += first;
        launch_exchanges(cycle, ends[c] - first);
      }
    };
    if (ends.size() < 2) {
      capture();  // one launch: straight onto the stream
    } else {
      replay_or_capture(GraphKey{sizeof(W), body.layout, body.mem, body.exchanges, body.offset_tables,
                                 body.offset_bytes, ends},
                        capture);
    }
    return ends.size();
  }
  std::size_t cycles_per_batch(LaunchMode mode) const {
    return mode == LaunchMode::persistent ? std::numeric_limits<std::size_t>::max() : kGraphCycles;
  }
  LaunchStats launch_stats() const { return launch_stats_; }

  template <class W>
  void fill_labels(W* mem, std::uint64_t words, const kernels::LabelOf<W>& of) {
    kernels::tabulate_labels(thrust::cuda::par_nosync.on(stream_), mem, words, of);
    check(cudaGetLastError(), "label kernel");
  }
  template <class W>
  kernels::LabelTally tally_labels(const W* mem, std::uint64_t words, const kernels::LabelOf<W>& of) {
    return kernels::tally_labels(thrust::cuda::par.on(stream_), mem, words, of);
  }
  // A block router step: a thread a word of the longest message, as RouterBody.
  template <class W>
  void launch_block_router(const kernels::BlockRouterBody<W>& body, std::uint64_t messages) {
    launch(messages * body.longest, body);
  }

  const void* stage(int slot, const void* host, std::size_t bytes) {
    Slot& s = slots_[slot];
    if (bytes == 0) return nullptr;
    if (s.bytes < bytes) {
      Buffer grown = allocate(bytes);
      retire(std::move(s.buffer));
      s.buffer = std::move(grown);
      s.bytes = bytes;
    }
    // Enqueued on the stream, so after the launches that read the slot before.
    uploads_.upload(s.buffer.data(), host, bytes, stream_, capturing_);
    return s.buffer.data();
  }

  std::uint64_t max_chunk_bytes() const { return kStagingBytes; }

  const void* readable(const void* host, std::uint64_t bytes) {
    void* dev = staging(bytes);
    copy_from_host(dev, host, bytes);
    return dev;
  }
  void* writable(void*, std::uint64_t bytes) { return staging(bytes); }
  void publish(void* host, const void* written, std::uint64_t bytes) { copy_to_host(host, written, bytes); }
  // Raw copies with (possibly pageable) host memory the caller owns: on the
  // stream, after its work, and finished on return (a stream wait, not a device one).
  void copy_to_host(void* host, const void* storage, std::uint64_t bytes) {
    refuse_waits_in_capture("a copy to host memory");
    check(cudaMemcpyAsync(host, storage, bytes, cudaMemcpyDeviceToHost, stream_), "copy-out");
    check(cudaStreamSynchronize(stream_), "copy-out");
  }
  void copy_from_host(void* storage, const void* host, std::uint64_t bytes) {
    refuse_waits_in_capture("a copy from host memory");
    check(cudaMemcpyAsync(storage, host, bytes, cudaMemcpyHostToDevice, stream_), "copy-in");
    check(cudaStreamSynchronize(stream_), "copy-in");
  }

  // What a captured batch depends on: the word size, the layout, the
  // pointers its launches take and each cycle's end (which fix the launches'
  // sizes). The data behind the pointers (the exchanges, uploaded before each
  // batch) may change: the graph reads it when it runs.
  struct GraphKey {
    std::size_t word_bytes;
    Layout layout;
    const void* mem;
    const void* exchanges;
    const void* tables;
    unsigned offset_bytes;
    std::vector<std::size_t> ends;

    bool same_launches(const GraphKey& o) const {
      return word_bytes == o.word_bytes && layout.geo.n == o.layout.geo.n && layout.geo.m == o.layout.geo.m &&
             layout.t == o.layout.t && offset_bytes == o.offset_bytes && ends == o.ends;
    }
    bool operator==(const GraphKey& o) const {
      return same_launches(o) && mem == o.mem && exchanges == o.exchanges && tables == o.tables;
    }
  };
  struct CachedGraph {
    GraphKey key;
    cudaGraphExec_t exec;
  };
  // A schedule's batches (8 at d = 14) with room for a few schedules.
  static constexpr std::size_t kMaxGraphs = 64;
  static constexpr std::size_t kGraphCycles = 1024;

  // The batch as a CUDA graph on the backend's stream: the cached one as it
  // is, or updated in place (cudaGraphExecUpdate) when only pointers differ,
  // or captured and instantiated. Capture records without running (and the
  // legacy default stream cannot be captured), so it needs no synchronization,
  // and the host captures the next batch while the last one runs.
  template <class F>
  void replay_or_capture(GraphKey key, F&& launch_all) {
    if (capturing_) {  // the caller's capture records the launches: no graph of ours inside it
      launch_all();
      return;
    }
    for (std::size_t i = 0; i < graphs_.size(); ++i)
      if (graphs_[i].key == key) {
        ++launch_stats_.graphs_replayed;
        launch_graph(i);
        return;
      }
    cudaGraph_t graph = capture_graph(launch_all);
    for (std::size_t i = 0; i < graphs_.size(); ++i) {
      if (!graphs_[i].key.same_launches(key)) continue;
      cudaGraphExecUpdateResultInfo info{};
      if (cudaGraphExecUpdate(graphs_[i].exec, graph, &info) == cudaSuccess) {
        cudaGraphDestroy(graph);
        graphs_[i].key = std::move(key);
        ++launch_stats_.graphs_updated;
        launch_graph(i);
        return;
      }
      cudaGetLastError();  // the topology differs: instantiate anew
    }
    cudaGraphExec_t exec = nullptr;
    const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    check(made, "graph instantiation");
    if (graphs_.size() == kMaxGraphs) {
      cudaGraphExecDestroy(graphs_.front().exec);  // one still running is freed when it completes
      graphs_.erase(graphs_.begin());
    }
    graphs_.push_back(CachedGraph{std::move(key), exec});
    ++launch_stats_.graphs_instantiated;
    launch_graph(graphs_.size() - 1);
  }

  // After the work already on the stream, as a launch there would be.
  void launch_graph(std::size_t i) { check(cudaGraphLaunch(graphs_[i].exec, user_stream_), "graph launch"); }

  template <class F>
  cudaGraph_t capture_graph(F&& launch_all) {
    if (capture_ == nullptr) check(cudaStreamCreateWithFlags(&capture_, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaStreamBeginCapture(capture_, cudaStreamCaptureModeThreadLocal), "graph capture");
    stream_ = capture_;
    cudaGraph_t graph = nullptr;
    try {
      launch_all();
    } catch (...) {
      stream_ = user_stream_;
      cudaStreamEndCapture(capture_, &graph);  // an invalidated capture's error: not the next launch's
      cudaGetLastError();
      if (graph != nullptr) cudaGraphDestroy(graph);
      throw;
    }
    stream_ = user_stream_;
    check(cudaStreamEndCapture(capture_, &graph), "graph capture");
    return graph;
  }

  // The batch's ends in slot 2, then one cooperative launch.
  template <class W>
  void launch_persistent(const kernels::ExchangeBody<W>& body, const std::vector<std::size_t>& ends) {
    if (!cooperative_)
      throw Error(fmt::format("--launch persistent needs cooperative launches, which {} does not support: use "
                              "--launch per-cycle",
                              name_));
    static_assert(sizeof(std::size_t) == sizeof(std::uint64_t), "the cycle ends go to the device as 64-bit words");
    std::uint64_t most = 0;
    for (std::size_t c = 0; c < ends.size(); ++c) most = std::max<std::uint64_t>(most, ends[c] - (c ? ends[c - 1] : 0));
    const auto* dev_ends = static_cast<const std::uint64_t*>(stage(2, ends.data(), ends.size() * sizeof(std::size_t)));
    kernels::cuda::launch_exchange_cycles_persistent(body, dev_ends, ends.size(), most, sms_, stream_);
    ++launch_stats_.persistent_launches;
  }

  // The stream when one is set: other work on the device is none of ours.
  void synchronize() {
    refuse_waits_in_capture("waiting for the device");
    if (user_stream_ != nullptr)
      check(cudaStreamSynchronize(user_stream_), "kernel execution");
    else
      check(cudaDeviceSynchronize(), "kernel execution");
    retired_.clear();  // nothing enqueued can read them now
  }

  // Events on the stream; none while capturing: the graph's launches, not this call, run the work.
  std::unique_ptr<StreamTimer> start_timer() {
    if (capturing_) return nullptr;
    return std::make_unique<EventTimer>(user_stream_);
  }
  // A copy kernel, 16-byte words, consecutive threads on consecutive words.
  void copy(const kernels::CopyBody& body, std::uint64_t words) { kernels::cuda::launch(words, body, stream_); }
  double spec_bytes_per_second() const { return spec_bandwidth_; }

  static constexpr const char* dft_library = "cuFFT";

  // cuFFT's batched plans: `count` contiguous rows of 2^log2_length points, in
  // place, on the backend's stream, through plans kept for the backend's life.
  void batched_dft(void* rows, std::uint64_t count, unsigned log2_length, std::size_t word_bytes, bool inverse) {
    if (log2_length > 30)
      throw Error(fmt::format("cuFFT transforms of 2^{} points: allowed up to 2^30 (cuFFT takes an int length)",
                              log2_length));
    const int direction = inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
    // The batch is an int: whole chunks of rows.
    const std::uint64_t chunk = std::min<std::uint64_t>(count, std::uint64_t{1} << (30 - std::min(30u, log2_length)));
    for (std::uint64_t first = 0; first < count; first += chunk) {
      const int batch = static_cast<int>(std::min(chunk, count - first));
      const std::uint64_t offset = first << log2_length;
      const cufftHandle plan = fft_plan(word_bytes, log2_length, batch);
      // The stream may have changed since the plan was made; the work area may have grown.
      cufftResult r = cufftSetStream(plan, stream_);
      if (r == CUFFT_SUCCESS && fft_work_) r = cufftSetWorkArea(plan, fft_work_.data());
      if (r == CUFFT_SUCCESS) {
        if (word_bytes == 16) {
          auto* p = static_cast<cufftDoubleComplex*>(rows) + offset;
          r = cufftExecZ2Z(plan, p, p, direction);
        } else {
          auto* p = static_cast<cufftComplex*>(rows) + offset;
          r = cufftExecC2C(plan, p, p, direction);
        }
      }
      if (r != CUFFT_SUCCESS)
        throw Error(fmt::format("cuFFT failed on {} transforms of {} points (error {})", batch,
                                std::uint64_t{1} << log2_length, static_cast<int>(r)));
    }
  }
  std::uint64_t dft_plans_made() const { return fft_plans_made_; }

 private:
  struct Slot {
    Buffer buffer;
    std::size_t bytes = 0;
  };

  // A cuFFT plan per (precision, length, batch), made once. No direction: a
  // cuFFT plan serves both, which cufftExec takes. The plans share one work
  // area, grown to the largest they need, rather than one each: they run one
  // at a time on the stream.
  cufftHandle fft_plan(std::size_t word_bytes, unsigned log2_length, int batch) {
    const auto key = std::make_tuple(word_bytes, log2_length, batch);
    const auto found = fft_plans_.find(key);
    if (found != fft_plans_.end()) return found->second;
    const RelaxedCapture relaxed;  // a plan made inside a caller's capture
    int n = 1 << log2_length;
    cufftHandle plan = 0;
    if (cufftCreate(&plan) != CUFFT_SUCCESS) throw Error("cuFFT could not create a plan handle (cufftCreate)");
    std::size_t work_bytes = 0;
    cufftResult r = cufftSetAutoAllocation(plan, 0);
    if (r == CUFFT_SUCCESS)
      r = cufftMakePlanMany(plan, 1, &n, nullptr, 1, n, nullptr, 1, n, word_bytes == 16 ? CUFFT_Z2Z : CUFFT_C2C, batch,
                            &work_bytes);
    if (r != CUFFT_SUCCESS) {
      cufftDestroy(plan);
      throw Error(fmt::format("cuFFT could not plan {} {} transforms of {} points (error {})", batch,
                              word_bytes == 16 ? "complex128" : "complex64", n, static_cast<int>(r)));
    }
    if (work_bytes > fft_work_bytes_) {
      try {
        Buffer grown = allocate(work_bytes);
        retire(std::move(fft_work_));
        fft_work_ = std::move(grown);
        fft_work_bytes_ = work_bytes;
      } catch (...) {
        cufftDestroy(plan);
        throw;
      }
    }
    fft_plans_.emplace(key, plan);
    ++fft_plans_made_;
    return plan;
  }

  // A buffer replaced while enqueued work may still read it: kept until the
  // stream is synchronized (or the backend dies), so no free waits on the device.
  // Once a caller's graph has captured the backend's work, its nodes may read
  // any buffer replaced since, at any replay: those are kept for the backend's life.
  void retire(Buffer&& b) {
    if (b) (captured_ ? kept_for_graphs_ : retired_).push_back(std::move(b));
  }

  void refuse_waits_in_capture(const char* what) const {
    if (capturing_)
      throw Error(fmt::format("{} while the stream is capturing into a CUDA graph: this execution waits for the "
                              "device, which a capture cannot (a plan that runs on a larger machine or through host "
                              "memory is not capturable)",
                              what));
  }

  void* staging(std::uint64_t bytes) {
    if (staging_bytes_ < bytes) {
      Buffer grown = allocate(bytes);
      retire(std::move(staging_));
      staging_ = std::move(grown);
      staging_bytes_ = bytes;
    }
    return staging_.data();
  }

  int device_ = 0;
  std::string name_;
  cudaStream_t user_stream_ = nullptr;  // set_stream's; nullptr: the legacy default stream
  cudaStream_t stream_ = nullptr;       // where launches go: user_stream_, or capture_ while capturing
  cudaStream_t capture_ = nullptr;      // made on first use, kept for the backend's life
  cudaEvent_t switch_event_ = nullptr;  // orders a new stream after the old one
  bool capturing_ = false;              // user_stream_ is capturing into a caller's graph
  bool captured_ = false;               // some caller's graph holds work of this backend
  double spec_bandwidth_ = 0;
  int sms_ = 1;
  bool cooperative_ = false;
  std::vector<CachedGraph> graphs_;  // oldest first
  LaunchStats launch_stats_;
  // Buffers before the plans and uploads that use them, so they are freed last.
  std::vector<Buffer> retired_;
  std::vector<Buffer> kept_for_graphs_;
  Slot slots_[3];  // the parameters of a launch: exchanges or tables, offset tables, a batch's cycle ends
  Buffer staging_;
  std::uint64_t staging_bytes_ = 0;
  Buffer fft_work_;
  std::size_t fft_work_bytes_ = 0;
  std::map<std::tuple<std::size_t, unsigned, int>, cufftHandle> fft_plans_;
  std::uint64_t fft_plans_made_ = 0;
  PinnedUploads uploads_;
};

}  // namespace

bool cuda_backend_built() { return true; }

int cuda_device_count(std::string* why) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    if (why != nullptr)
      *why = err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice
                 ? fmt::format("no usable CUDA device or driver on this machine ({})", cudaGetErrorString(err))
                 : fmt::format("CUDA unavailable: {}", cudaGetErrorString(err));
    return 0;
  }
  if (count == 0 && why != nullptr) *why = "no CUDA device found";
  return count;
}

void set_cuda_local_rank(int local_rank) { g_local_rank = local_rank; }

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<BackendImpl<CudaPolicy>>(); }

}  // namespace hcube
