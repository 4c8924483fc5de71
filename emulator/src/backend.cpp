#include "hcube/emulator/backend.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "hcube/core/error.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {

std::string to_string(BackendKind k) { return k == BackendKind::cpu ? "cpu" : "cuda"; }

BackendChoice parse_backend_choice(const std::string& s) {
  if (s == "auto") return BackendChoice::automatic;
  if (s == "cpu") return BackendChoice::cpu;
  if (s == "cuda") return BackendChoice::cuda;
  throw Error(fmt::format("backend '{}' unknown: allowed auto, cpu, cuda", printable_input(s)));
}

double Backend::timed(const std::function<void()>& run) {
  const std::unique_ptr<StreamTimer> timer = start_timer();
  if (!timer) throw Error("nothing can be timed while the backend's stream is capturing into a CUDA graph");
  run();
  timer->stop();
  return timer->seconds();
}

std::string to_string(LaunchMode mode) { return mode == LaunchMode::per_cycle ? "per-cycle" : "persistent"; }

const char* launch_mode_names() { return "per-cycle, persistent"; }

LaunchMode parse_launch_mode(const std::string& s) {
  if (s == "per-cycle") return LaunchMode::per_cycle;
  if (s == "persistent") return LaunchMode::persistent;
  throw Error(fmt::format("BenchRequest::launch '{}' unknown: allowed {}", printable_input(s), launch_mode_names()));
}

BlockTable BlockTable::explicit_entries(std::vector<std::uint64_t> from, std::uint64_t nodes) {
  BlockTable t;
  t.nodes = nodes;
  t.period = nodes == 0 ? 1 : std::max<std::uint64_t>(from.size() / nodes, 1);
  t.words = std::move(from);
  return t;
}

BlockTable BlockTable::periodic(std::uint64_t nodes, std::uint64_t period, bool has_step, bool has_valid) {
  BlockTable t;
  t.nodes = nodes;
  t.period = std::max<std::uint64_t>(period, 1);
  t.has_step = has_step;
  t.has_valid = has_valid;
  t.words.assign((has_step ? 2 : 1) * nodes * t.period + (has_valid ? nodes : 0), 0);
  return t;
}

kernels::BlockTableView BlockTable::view(const std::uint64_t* at) const {
  kernels::BlockTableView v;
  v.period = period;
  v.base = at;
  v.step = has_step ? at + nodes * period : nullptr;
  v.valid = has_valid ? at + (has_step ? 2 : 1) * nodes * period : nullptr;
  return v;
}

void Backend::gather_words(const Buffer& storage, const std::uint64_t* index, std::uint64_t count,
                           std::size_t word_bytes, void* host) {
  auto* out = static_cast<unsigned char*>(host);
  for (std::uint64_t i = 0; i < count; ++i)
    read_storage(storage, index[i] * word_bytes, out + i * word_bytes, word_bytes);
}

void Backend::scatter_words(Buffer& storage, const std::uint64_t* index, std::uint64_t count,
                            std::size_t word_bytes, const void* host) {
  const auto* in = static_cast<const unsigned char*>(host);
  for (std::uint64_t i = 0; i < count; ++i)
    write_storage(in + i * word_bytes, storage, index[i] * word_bytes, word_bytes);
}

std::unique_ptr<Backend> make_backend(BackendChoice choice) {
  if (choice == BackendChoice::cpu) return make_cpu_backend();
  std::string why;
  const bool have_gpu = cuda_device_count(&why) > 0;
  if (choice == BackendChoice::cuda && !have_gpu)
    throw Error(fmt::format("backend cuda requested but unavailable: {}; use PlanTarget::backend cpu or auto", why));
  return have_gpu ? make_cuda_backend() : make_cpu_backend();
}

}  // namespace hcube
