// A backend owns device memory and launches the kernels of kernels/ on it.
// The machine (machine.hpp) talks to this interface only; backends/cpu and
// backends/cuda implement it with the same kernel bodies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hcube/emulator/element_type.hpp"
#include "hcube/host/affine_map.hpp"
#include "hcube/host/cycle.hpp"
#include "hcube/host/layout.hpp"
#include "hcube/host/reference.hpp"
#include "hcube/host/router_step.hpp"
#include "hcube/kernels/labels.hpp"
#include "hcube/kernels/local_gather.hpp"

// cuda_runtime.h's cudaStream_t is `struct CUstream_st*`: the same type,
// declared here so that the header needs no CUDA headers.
struct CUstream_st;

namespace hcube {

// The one stream type of the API: a cudaStream_t (nullptr: the legacy default stream).
using CudaStream = CUstream_st*;

enum class BackendKind { cpu, cuda };
enum class BackendChoice { automatic, cpu, cuda };

std::string to_string(BackendKind k);
BackendChoice parse_backend_choice(const std::string& s);  // auto | cpu | cuda

// How a batch of routing cycles is launched (--launch): per-cycle, one kernel
// launch a cycle (the machine model's; on CUDA the batch's launches are one
// CUDA graph, instantiated once and replayed), or persistent, one launch a
// batch whose threads wait at a grid-wide barrier between cycles
// (kernels/exchange_cycles.hpp). The result is the same bit for bit.
enum class LaunchMode { per_cycle, persistent };
std::string to_string(LaunchMode mode);               // "per-cycle" | "persistent"
LaunchMode parse_launch_mode(const std::string& s);   // throws naming the allowed ones
const char* launch_mode_names();                      // "per-cycle, persistent"

// A span of a backend's stream: stop() marks its end where the work enqueued
// so far ends; seconds() waits until the stream has passed that mark (not for
// the device) and returns the time between start and stop.
class StreamTimer {
 public:
  virtual ~StreamTimer() = default;
  virtual void stop() = 0;
  virtual double seconds() = 0;
};

// What a backend did to launch batches of cycles, since it was made.
struct LaunchStats {
  std::uint64_t graphs_instantiated = 0;  // CUDA graphs made (captured and instantiated)
  std::uint64_t graphs_updated = 0;       // cached graphs given new parameters (cudaGraphExecUpdate)
  std::uint64_t graphs_replayed = 0;      // cached graphs launched as they were
  std::uint64_t persistent_launches = 0;  // cooperative launches of a batch of cycles
};

// Memory on a backend, freed by the backend that made it.
class Buffer {
 public:
  Buffer() = default;
  Buffer(void* data, std::uint64_t bytes, std::function<void(void*)> release)
      : data_(data, std::move(release)), bytes_(bytes) {}
  void* data() const { return data_.get(); }
  std::uint64_t bytes() const { return bytes_; }
  explicit operator bool() const { return data_ != nullptr; }

 private:
  std::unique_ptr<void, std::function<void(void*)>> data_{nullptr, [](void*) {}};
  std::uint64_t bytes_ = 0;
};

// A block table as the host holds it (kernels::BlockTableView): its arrays in
// one vector, staged as one upload: base (nodes x period), then step (the
// same, when has_step), then valid (a count a node, when has_valid).
struct BlockTable {
  std::uint64_t nodes = 0, period = 1;
  bool has_step = false, has_valid = false;
  std::vector<std::uint64_t> words;

  // An explicit table: node k's entry f is from[k * blocks + f].
  static BlockTable explicit_entries(std::vector<std::uint64_t> from, std::uint64_t nodes);
  // A periodic one, every entry 0 to start with.
  static BlockTable periodic(std::uint64_t nodes, std::uint64_t period, bool has_step, bool has_valid);
  std::uint64_t& base(std::uint64_t k, std::uint64_t p) { return words[k * period + p]; }
  std::uint64_t& step(std::uint64_t k, std::uint64_t p) { return words[(nodes + k) * period + p]; }
  std::uint64_t& valid(std::uint64_t k) { return words[(has_step ? 2 : 1) * nodes * period + k]; }
  // The view of the same arrays at `at` (words staged where the kernels read them).
  kernels::BlockTableView view(const std::uint64_t* at) const;
  std::uint64_t entry(std::uint64_t k, std::uint64_t f) const { return view(words.data()).at(k, f); }
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  virtual std::string device_name() const = 0;
  // Bytes that may still be allocated; checked before every allocation.
  virtual std::uint64_t available_bytes() const = 0;
  // Throws hcube::OutOfMemory naming the size when the memory is not there.
  // `sparse`: most of the buffer is never touched (a machine's padding), so
  // host memory is not put on huge pages, which would make every touched
  // stretch resident 2 MiB at a time.
  virtual Buffer allocate(std::uint64_t bytes, bool sparse = false) = 0;

  // Copy-in and copy-out between host memory in the user's order and storage.
  virtual void to_storage(const void* user, Buffer& storage, const Layout& layout, std::size_t word_bytes) = 0;
  virtual void to_user(const Buffer& storage, void* user, const Layout& layout, std::size_t word_bytes) = 0;
  // Raw copies of bytes [first, first + bytes) of storage, in storage order: a
  // caller that walks the data chunk by chunk needs no second copy of it.
  virtual void read_storage(const Buffer& storage, std::uint64_t first, void* host, std::uint64_t bytes) = 0;
  virtual void write_storage(const void* host, Buffer& storage, std::uint64_t first, std::uint64_t bytes) = 0;
  // The words at storage indices index[0 .. count) (each in range: the caller
  // checks) packed into host memory: a check reads the words a reference
  // formula names a chunk at a time, with no host copy of the whole storage.
  // The default copies word by word; the built-in backends gather in one launch.
  virtual void gather_words(const Buffer& storage, const std::uint64_t* index, std::uint64_t count,
                            std::size_t word_bytes, void* host);
  // The reverse: the packed words put at distinct storage indices index[0 ..
  // count) (the words a distributed machine received from another rank).
  virtual void scatter_words(Buffer& storage, const std::uint64_t* index, std::uint64_t count,
                             std::size_t word_bytes, const void* host);
  // The same with the packed words in this backend's own memory: `packed`, a
  // buffer from allocate() (device memory on CUDA), from word `at` on. A
  // distributed machine hands such a buffer to a CUDA-aware MPI. One launch;
  // the words are in place when the call returns.
  virtual void gather_words_into(const Buffer& storage, const std::uint64_t* index, std::uint64_t count,
                                 std::size_t word_bytes, Buffer& packed, std::uint64_t at) = 0;
  virtual void scatter_words_from(Buffer& storage, const std::uint64_t* index, std::uint64_t count,
                                  std::size_t word_bytes, const Buffer& packed, std::uint64_t at) = 0;
  // The words of `count` exchanges along node dimensions above the storage's
  // own (a distributed machine's exchanges with another rank) packed into
  // `packed` from word `at` on, exchange by exchange, node by node
  // (kernels/gather_words.hpp, ExchangeWords), or with `to_packed` false
  // put back from it. One launch; the words are in place when the call returns.
  virtual void exchange_words(Buffer& storage, const Layout& layout, std::size_t word_bytes, const Exchange* exchanges,
                              std::size_t count, bool upper, const std::vector<std::uint64_t>& offset_tables,
                              unsigned offset_bytes, Buffer& packed, std::uint64_t at, bool to_packed) = 0;
  // Host memory for words a distributed machine sends through the host:
  // page-locked on CUDA (cudaHostAlloc), so that the copies between it and
  // the device run as DMA at the bus's speed (cudaMemcpyAsync); plain host
  // memory on the CPU (allocate()).
  virtual Buffer allocate_pinned(std::uint64_t bytes) = 0;

  // One launch each.
  // offset_tables: byte tables of the cycle's offset maps (empty when no exchange uses one).
  virtual void exchange(Buffer& storage, const Layout& layout, std::size_t word_bytes, const Exchange* exchanges,
                        std::size_t count, const std::vector<std::uint64_t>& offset_tables = {},
                        unsigned offset_bytes = 0) = 0;
  // Several routing cycles in order: cycle c is exchanges [ends[c-1], ends[c])
  // (from 0 for c = 0). The exchanges are staged once. Per cycle, one launch
  // each: the CUDA backend captures them in one CUDA graph, kept and replayed
  // when the same batch comes again (only new pointers: the graph is updated),
  // so a schedule of small cycles pays one submission instead of a copy and a
  // launch a cycle. Persistent: one cooperative launch for the batch on CUDA;
  // the CPU backend runs its batch the same way in both modes (its cycles cost
  // no launch to save). Returns the launches made.
  virtual std::uint64_t exchange_cycles(Buffer& storage, const Layout& layout, std::size_t word_bytes,
                                        const Exchange* exchanges, const std::vector<std::size_t>& ends,
                                        const std::vector<std::uint64_t>& offset_tables = {},
                                        unsigned offset_bytes = 0, LaunchMode launch = LaunchMode::per_cycle) = 0;
  // The most cycles one exchange_cycles call should take: a CUDA graph's worth
  // on the GPU per cycle, a whole schedule in one persistent launch; a whole
  // schedule on the CPU, which may reorganise its storage for a batch
  // (backends/cpu/exchange.hpp) and gains from long ones.
  virtual std::size_t cycles_per_batch(LaunchMode launch = LaunchMode::per_cycle) const = 0;
  virtual LaunchStats launch_stats() const = 0;

  // Address labels on the backend, with no host copy of the data: word s of
  // storage (s < words) set to the label label(s) of `type` (write_label's
  // encoding), or counted where it is not that label, bit for bit (a NaN or
  // any other word fails), with the first such s. One pass each (Thrust on
  // CUDA, kernels/thrust_labels.hpp; the OpenMP launcher on the CPU).
  virtual void fill_labels(Buffer& storage, std::uint64_t words, ElementType type,
                           const AffineAddressMap& label) = 0;
  virtual kernels::LabelTally tally_labels(const Buffer& storage, std::uint64_t words, ElementType type,
                                           const AffineAddressMap& label) = 0;
  // An involutive map, in place, on the local addresses [lo, hi) (which the map keeps).
  virtual void align_in_place(Buffer& storage, const Layout& layout, std::size_t word_bytes, const AffineTables& map,
                              std::uint64_t lo, std::uint64_t hi) = 0;
  virtual void align_copy(const Buffer& src, Buffer& dst, const Layout& layout, std::size_t word_bytes,
                          const AffineTables& map) = 0;
  // One pass of a local block permutation over the region (kernels/local_gather.hpp):
  // copy, gather into or scatter into a dense buffer by `table`, or store the
  // dense buffer back. Other words are untouched. One launch.
  virtual void local_pass(const Buffer& src, Buffer& dst, const Layout& layout, std::size_t word_bytes,
                          const BlockTable* table, const kernels::BlockRegion& region, kernels::LocalPass pass) = 0;
  // dst[pi(s)] = src[s] for the permutation pi of the storage index bits that
  // sends bit i to to[i] (checked by the caller), tile by tile in tiles the
  // backend sizes for its memory: the fused permutation. One launch.
  virtual void permute_bits(const Buffer& src, Buffer& dst, std::size_t word_bytes,
                            const std::vector<unsigned>& to) = 0;
  virtual void route(Buffer& storage, const Layout& layout, std::size_t word_bytes, const RouterStep& step) = 0;
  // A router step of block messages (kernels/block_router.hpp), checked by the caller. One launch.
  virtual void route_blocks(Buffer& storage, const Layout& layout, std::size_t word_bytes,
                            const BlockRouteStep& step) = 0;
  // One radix-2 decimation-in-frequency butterfly stage (kernels/fft.hpp) on
  // complex words (word_bytes 8: complex64, 16: complex128): the words at
  // local addresses differing in bit mem_bit are pairs, `index` gives each
  // word's logical index, index_bit the bit in which a pair's indices differ.
  virtual void fft_stage(Buffer& storage, const Layout& layout, std::size_t word_bytes, const AffineTables& index,
                         unsigned mem_bit, unsigned index_bit, bool inverse) = 0;

  // The DIF stages on index bits lo+h-1 .. lo at once (kernels/fft.hpp): the
  // groups of 2^h words gathered into rows of `scratch` (as large as
  // storage), transformed by the backend's DFT library (FFTW on the CPU,
  // cuFFT on CUDA), and scattered back with their twiddles. group_bits: the
  // local address bits that hold those index bits. Three launches.
  virtual void fft_block(Buffer& storage, Buffer& scratch, const Layout& layout, std::size_t word_bytes,
                         const AffineTables& index, std::uint64_t group_bits, unsigned lo, unsigned h,
                         bool inverse) = 0;
  // fft_block followed by an alignment (`align`: its tables, a bijection of
  // every node's memory), fused: each word written with its twiddle straight
  // to the place in `scratch` the alignment sends it, which then holds the
  // result (Machine swaps the buffers). False, with nothing touched, where the
  // backend does not fuse the two (CUDA, rows longer than a CPU chunk).
  virtual bool fft_block_aligned(Buffer& storage, Buffer& scratch, const Layout& layout, std::size_t word_bytes,
                                 const AffineTables& index, std::uint64_t group_bits, unsigned lo, unsigned h,
                                 bool inverse, const AffineTables& align) = 0;
  // The library that fft_block's DFT runs on: "FFTW" or "cuFFT".
  virtual std::string dft_library() const = 0;
  // DFT library plans this backend has made so far. Plans are made once per
  // shape and kept until the backend dies, so a repeated fft_block adds none.
  virtual std::uint64_t dft_plans_made() const = 0;

  // The CUDA stream that every launch, copy, graph and cuFFT call of this
  // backend goes to; nullptr: the legacy default stream. With a stream set
  // nothing synchronizes the whole device: synchronize() waits for that
  // stream only. Work already enqueued by the backend is ordered before work
  // on the new stream, unless the new stream is capturing into a CUDA graph
  // (then the caller orders it: a capture cannot wait for uncaptured work).
  // The stream must stay valid while the backend uses it. The CPU backend
  // runs synchronously and ignores it (stream() stays nullptr).
  virtual void set_stream(CudaStream stream) = 0;
  virtual CudaStream stream() const = 0;
  // Whether that stream is capturing (cudaStreamBeginCapture): the backend's
  // work is recorded into the caller's graph, not run, so nothing may wait for
  // it (synchronize() throws), and what the graph reads is kept for the backend's life.
  virtual bool capturing() const { return false; }
  // Back to the legacy default stream, from a destructor or a catch block: it
  // never throws. After a device fault (a sticky error) nothing more can be
  // ordered, so the stream is dropped unordered and the fault reported once,
  // by whatever call met it first.
  virtual void reset_stream() noexcept {}

  // The CUDA device this backend's memory and work live on; -1 for the CPU.
  virtual int cuda_device() const { return -1; }
  // Makes the backend's device the calling thread's current CUDA device, and
  // returns the one it replaces (-1: nothing changed); leave_device puts that
  // back. A caller's thread may have another device current (its framework's).
  virtual int enter_device() { return -1; }
  virtual void leave_device(int /*previous*/) noexcept {}
  // Throws hcube::Error naming `what` unless [p, p + bytes) can be a buffer of
  // this backend's device: CUDA device or managed memory on cuda_device().
  virtual void check_device_buffer(const void* /*p*/, std::uint64_t /*bytes*/, const std::string& /*what*/) const {}

  // Waits for the backend's work: its stream when one is set, else the device.
  virtual void synchronize() = 0;

  // A timer on the backend's own clock, started now: CUDA events recorded on
  // its stream, the steady clock on the CPU. Null while capturing (nothing runs).
  virtual std::unique_ptr<StreamTimer> start_timer() = 0;
  // Measurement (hcube bench): the seconds `run` takes on that clock, waited for.
  double timed(const std::function<void()>& run);
  // The backend's copy roofline (a copy kernel on the GPU, memcpy on the CPU):
  // each call of the returned timer copies `bytes` within the backend's memory
  // and returns its seconds. The buffers live as long as the timer, so a caller
  // can alternate copies with the runs it compares them with.
  virtual std::function<double()> copy_timer(std::uint64_t bytes) = 0;
  // The memory bandwidth the device's maker states, bytes a second (0: unknown).
  virtual double spec_bytes_per_second() const = 0;
};

// The CUDA side, defined by backends/cuda (or by a stand-in when not built).
bool cuda_backend_built();
// Number of CUDA devices; 0 with the reason in *why when none can be used.
int cuda_device_count(std::string* why = nullptr);
std::unique_ptr<Backend> make_cuda_backend();
// The place of this process among the ranks on its node: the CUDA backends
// made from now on take device `local_rank` mod the number of devices, so
// that the ranks on one node each take their own GPU. Only a CUDA backend
// touches CUDA: a CPU run never creates a context, even on a GPU node.
void set_cuda_local_rank(int local_rank);
// chunk_bytes: copy-in/out granularity; the CPU needs none, tests use a small
// one to run the chunked path the CUDA backend takes.
std::unique_ptr<Backend> make_cpu_backend(std::uint64_t chunk_bytes = ~std::uint64_t{0});

// auto: CUDA when a device is present, else the CPU. Throws hcube::Error for
// cuda without a device.
std::unique_ptr<Backend> make_backend(BackendChoice choice);

}  // namespace hcube
