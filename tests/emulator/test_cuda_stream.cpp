// The CUDA backend on a stream of the caller's (Backend::set_stream): routing
// cycles, an AAPC (its cycles one CUDA graph), copies and cuFFT all enqueued
// on that stream, with results bit for bit those of the CPU backend; work
// enqueued behind a stream the caller holds back stays there, and enqueueing
// it waits for nothing on the device. Plans on device memory: execute_device
// only enqueues, times by events, and can be captured into the caller's graph. Skips, saying why, without a GPU (fails
// instead under HCUBE_REQUIRE_CUDA=1, require.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "hcube/emulator/fft.hpp"
#include "hcube/emulator/machine.hpp"
#include "hcube/emulator/schedule_run.hpp"
#include "hcube/host/aapc.hpp"
#include "hcube/host/aapc_permutation.hpp"
#include "hcube/host/cycle.hpp"
#include "hcube/plans.hpp"
#include "require.hpp"

#if HCUBE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace hcube {
namespace {

// A legal all-port cycle: node bit k exchanges the words at local address
// (first + k) mod K, so no two exchanges touch one word.
Cycle spread_cycle(const Geometry& g, std::uint64_t first) {
  Cycle c;
  for (std::uint32_t k = 0; k < g.n; ++k) c.push_back(direct_exchange(k, (first + k) & low_mask(g.m)));
  EXPECT_FALSE(find_violation(g, c, PortRules{})) << "test cycle from address " << first;
  return c;
}

// The CPU backend runs synchronously: it keeps no stream and ignores one.
TEST(CpuBackendStream, IgnoresTheStream) {
  const Geometry geo{4, 3};
  const Layout layout{geo, 1};
  const std::uint64_t bytes = geo.total_words() * 4;
  std::vector<std::uint32_t> labels(geo.total_words());
  for (std::uint32_t g = 0; g < labels.size(); ++g) labels[g] = g;
  const Cycle c = spread_cycle(geo, 5);
  std::vector<std::vector<std::uint32_t>> out;
  for (bool with_stream : {false, true}) {
    auto cpu = make_cpu_backend();
    int not_a_stream = 0;
    if (with_stream) cpu->set_stream(reinterpret_cast<CudaStream>(&not_a_stream));
    EXPECT_EQ(cpu->stream(), nullptr);
    Buffer storage = cpu->allocate(bytes);
    cpu->write_storage(labels.data(), storage, 0, bytes);
    cpu->exchange(storage, layout, 4, c.data(), c.size());
    cpu->synchronize();
    out.emplace_back(labels.size());
    cpu->read_storage(storage, 0, out.back().data(), bytes);
  }
  EXPECT_NE(out[0], labels);
  EXPECT_EQ(out[0], out[1]);
}

#if HCUBE_HAVE_CUDA

void cuda_ok(cudaError_t err, const char* what) {
  ASSERT_EQ(err, cudaSuccess) << what << ": " << cudaGetErrorString(err);
}

// A non-blocking stream of the test's own: it does not wait for the legacy
// default stream, so work that went there by mistake is not ordered with it.
class UserStream {
 public:
  UserStream() { cuda_ok(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }
  ~UserStream() {
    cudaStreamSynchronize(s_);
    cudaStreamDestroy(s_);
  }
  UserStream(const UserStream&) = delete;
  UserStream& operator=(const UserStream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class CudaStream : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (cuda_device_count(&why) == 0)
      HCUBE_SKIP_UNLESS_REQUIRED("HCUBE_REQUIRE_CUDA", "CUDA stream tests skipped: " << why);
  }
};

TEST_F(CudaStream, CyclesAnAapcAndAnFftOnTheCallersStreamMatchTheCpu) {
  UserStream stream;  // outlives the machines that use it
  for (ElementType type : {ElementType::u32, ElementType::c64, ElementType::c128}) {
    SCOPED_TRACE(info(type).name);
    const unsigned n = 6, m = 5, d = 4;
    Machine gpu(MachineOptions{n, m, type, BackendChoice::cuda, -1});
    Machine cpu(MachineOptions{n, m, type, BackendChoice::cpu, -1});
    gpu.backend().set_stream(stream.get());
    EXPECT_EQ(gpu.backend().stream(), stream.get());
    EXPECT_EQ(cpu.backend().stream(), nullptr);
    gpu.load_labels();
    cpu.load_labels();

    for (std::uint64_t first : {0u, 3u, 7u}) {
      const Cycle c = spread_cycle(gpu.geometry(), first);
      gpu.run_cycle(c);
      cpu.run_cycle(c);
    }
    EXPECT_EQ(gpu.read(), cpu.read()) << "after three routing cycles";

    const Schedule s = make_aapc_schedule(AapcOptions{AapcAlgorithm::alg4, d, n, m, LineDrawing::diagonal});
    const PermutationPlan plan = plan_aapc_permutation(AapcPermutation::transpose, gpu.geometry(), d);
    run_schedule(gpu, s, plan.f, plan.g);
    run_schedule(cpu, s, plan.f, plan.g);
    EXPECT_EQ(gpu.read(), cpu.read()) << "after an AAPC of " << s.cycles() << " cycles";

    // Back on the legacy default stream: ordered after the work on the caller's.
    gpu.backend().set_stream(nullptr);
    EXPECT_EQ(gpu.backend().stream(), nullptr);
    gpu.run_cycle(spread_cycle(gpu.geometry(), 1));
    cpu.run_cycle(spread_cycle(cpu.geometry(), 1));
    EXPECT_EQ(gpu.read(), cpu.read()) << "after a cycle on the default stream";
  }

  // cuFFT on the caller's stream: the same transform as FFTW's, to rounding.
  std::vector<std::complex<double>> x(std::size_t{1} << 12);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double t = static_cast<double>(i);
    x[i] = {std::sin(0.37 * t), std::cos(1.1 * t)};
  }
  Machine fft(MachineOptions{4, 8, ElementType::c128, BackendChoice::cuda, -1});
  fft.backend().set_stream(stream.get());
  load_cyclic(fft, x);
  distributed_fft(fft);
  EXPECT_LT(max_relative_error(read_result(fft, FftOrder::natural), fftw_dft(x)), 1e-12);
  EXPECT_GE(fft.backend().dft_plans_made(), 1u);
}

// Holds a stream back until opened (or 10 s have passed) from a host function
// enqueued on it: what is enqueued behind it cannot run before the test says so.
struct Gate {
  std::atomic<bool> open{false};
  std::atomic<bool> timed_out{false};
};
void CUDART_CB hold(void* p) {
  auto* gate = static_cast<Gate*>(p);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!gate->open.load()) {
    if (std::chrono::steady_clock::now() > until) {
      gate->timed_out = true;
      return;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

TEST_F(CudaStream, WorkWaitsBehindTheCallersStreamAndNothingSynchronizesTheDevice) {
  Gate gate;  // before the stream, whose destructor waits for the host function that reads it
  UserStream stream;
  const Geometry geo{5, 4};
  const Layout layout{geo, 2};
  const std::size_t wb = 4;
  const std::uint64_t bytes = geo.total_words() * wb;
  std::vector<std::uint32_t> labels(geo.total_words());
  for (std::uint32_t g = 0; g < labels.size(); ++g) labels[g] = g;
  // One cycle alone, then three as one batch (one CUDA graph on CUDA).
  const Cycle one = spread_cycle(geo, 2);
  Cycle three;
  std::vector<std::size_t> ends;
  for (std::uint64_t first : {0u, 5u, 9u}) {
    for (const Exchange& e : spread_cycle(geo, first)) three.push_back(e);
    ends.push_back(three.size());
  }
  const auto run = [&](Backend& b, Buffer& storage) {
    b.exchange(storage, layout, wb, one.data(), one.size());
    b.exchange_cycles(storage, layout, wb, three.data(), ends);
  };

  auto cpu = make_cpu_backend();
  Buffer on_cpu = cpu->allocate(bytes);
  cpu->write_storage(labels.data(), on_cpu, 0, bytes);
  std::vector<std::uint32_t> after_one(labels.size()), after_two(labels.size());
  run(*cpu, on_cpu);
  cpu->read_storage(on_cpu, 0, after_one.data(), bytes);
  run(*cpu, on_cpu);
  cpu->read_storage(on_cpu, 0, after_two.data(), bytes);
  ASSERT_NE(after_one, labels);
  ASSERT_NE(after_two, after_one);

  auto gpu = make_cuda_backend();
  gpu->set_stream(stream.get());
  Buffer on_gpu = gpu->allocate(bytes);
  gpu->write_storage(labels.data(), on_gpu, 0, bytes);
  // A first run sizes the backend's parameter and pinned buffers: allocation
  // (cudaMalloc, cudaMallocHost) is not promised to leave the device alone.
  run(*gpu, on_gpu);
  gpu->synchronize();
  std::vector<std::uint32_t> got(labels.size());
  gpu->read_storage(on_gpu, 0, got.data(), bytes);
  EXPECT_EQ(got, after_one);

  cuda_ok(cudaLaunchHostFunc(stream.get(), hold, &gate), "cudaLaunchHostFunc");
  const auto start = std::chrono::steady_clock::now();
  run(*gpu, on_gpu);
  const double enqueue_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Had anything waited for the device (or the stream), it would have waited for the gate.
  EXPECT_FALSE(gate.timed_out.load()) << "enqueueing waited " << enqueue_seconds << " s for the held stream";
  EXPECT_LT(enqueue_seconds, 5.0);
  EXPECT_EQ(cudaStreamQuery(stream.get()), cudaErrorNotReady);
  cudaGetLastError();  // "not ready" is no failure
  // A plain copy on the legacy default stream, which does not wait for the
  // non-blocking stream: the data has not moved, so nothing ran anywhere else.
  std::vector<std::uint32_t> meanwhile(labels.size());
  cuda_ok(cudaMemcpy(meanwhile.data(), on_gpu.data(), bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  EXPECT_EQ(meanwhile, after_one) << "the exchanges ran before the caller's stream let them";

  gate.open = true;
  gpu->synchronize();
  EXPECT_EQ(cudaStreamQuery(stream.get()), cudaSuccess);
  gpu->read_storage(on_gpu, 0, got.data(), bytes);
  EXPECT_EQ(got, after_two);
}

// The plans' results on the CPU, computed by the same plans on host memory.
template <class P, class O>
std::vector<std::uint32_t> on_the_cpu(O options, const std::vector<std::uint32_t>& in) {
  options.target = {ElementType::u32, BackendChoice::cpu};
  P plan(options);
  std::vector<std::uint32_t> out = in;
  plan.execute(out.data(), out.size() * 4);
  return out;
}

std::vector<std::uint32_t> distinct_words(std::uint64_t count) {
  std::vector<std::uint32_t> v(count);
  for (std::uint64_t g = 0; g < count; ++g) v[g] = static_cast<std::uint32_t>(g * 2654435761u) ^ 0x5a5a5a5au;
  return v;
}

AapcPlan::Options aapc_options(long long d) {
  AapcPlan::Options o;
  o.schedule.d = d;
  o.target = {ElementType::u32, BackendChoice::cuda};
  return o;
}

// As cufftExec*: execute_device returns with the plan's launches enqueued behind
// a held stream, and last_counters() then waits for their end event, no more.
TEST_F(CudaStream, PlanExecuteDeviceOnlyEnqueuesAndIsTimedByEvents) {
  Gate gate;
  UserStream stream;
  AapcPlan plan(aapc_options(6));
  const std::vector<std::uint32_t> in = distinct_words(plan.data_bytes() / 4);
  const std::vector<std::uint32_t> want = on_the_cpu<AapcPlan>(aapc_options(6), in);
  auto b = make_cuda_backend();
  Buffer dev = b->allocate(plan.data_bytes());
  b->write_storage(in.data(), dev, 0, plan.data_bytes());
  // A first execution sizes the plan's buffers (allocation may wait for the device).
  plan.execute_device(dev.data(), plan.data_bytes(), stream.get());
  plan.last_counters();
  b->write_storage(in.data(), dev, 0, plan.data_bytes());

  cuda_ok(cudaLaunchHostFunc(stream.get(), hold, &gate), "cudaLaunchHostFunc");
  const auto start = std::chrono::steady_clock::now();
  const Counters enqueued = plan.execute_device(dev.data(), plan.data_bytes(), stream.get());
  const double enqueue_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(gate.timed_out.load()) << "execute_device waited " << enqueue_seconds << " s for the held stream";
  EXPECT_EQ(cudaStreamQuery(stream.get()), cudaErrorNotReady);
  cudaGetLastError();
  EXPECT_EQ(enqueued.routing_cycles, plan.stats().cycles);
  for (const PhaseTime& p : enqueued.phases) EXPECT_EQ(p.seconds, 0) << p.name << ": timed by the host's clock";

  gate.open = true;
  const Counters done = plan.last_counters();
  EXPECT_EQ(cudaStreamQuery(stream.get()), cudaSuccess) << "last_counters returned before the stream ran the plan";
  EXPECT_EQ(done.routing_cycles, enqueued.routing_cycles);
  EXPECT_GT(done.phase_seconds("device"), 0);
  std::vector<std::uint32_t> got(in.size());
  b->read_storage(dev, 0, got.data(), plan.data_bytes());
  EXPECT_EQ(got, want);
}

// A plan executed while the caller's stream captures into the caller's graph:
// the graph, launched (twice, on fresh input), gives the words a plain run
// gives. A plan whose first execution is the captured one (its buffers made
// inside the capture) and one that needs scratch (the fused bit reversal).
TEST_F(CudaStream, PlansCapturedIntoTheCallersGraphGiveThePlainResult) {
  UserStream stream;
  PermutePlan::Options fused;
  fused.perm = "bit-reversal";
  fused.n = 5;
  fused.m = 7;
  fused.fused = true;
  fused.target = {ElementType::u32, BackendChoice::cuda};
  std::vector<std::unique_ptr<Plan>> plans;
  std::vector<std::vector<std::uint32_t>> wants;
  const auto add = [&](std::unique_ptr<Plan> plan, std::vector<std::uint32_t> want) {
    plans.push_back(std::move(plan));
    wants.push_back(std::move(want));
  };
  const std::vector<std::uint32_t> in7 = distinct_words(bit(14)), in12 = distinct_words(bit(12));
  add(std::make_unique<AapcPlan>(aapc_options(7)), on_the_cpu<AapcPlan>(aapc_options(7), in7));
  add(std::make_unique<PermutePlan>(fused), on_the_cpu<PermutePlan>(fused, in12));
  for (std::size_t i = 0; i < plans.size(); ++i) {
    Plan& plan = *plans[i];
    SCOPED_TRACE(i);
    const std::vector<std::uint32_t>& in = i == 0 ? in7 : in12;
    ASSERT_EQ(in.size() * 4, plan.data_bytes());
    auto b = make_cuda_backend();
    Buffer dev = b->allocate(plan.data_bytes());

    cudaGraph_t graph = nullptr;
    cuda_ok(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    try {
      plan.execute_device(dev.data(), plan.data_bytes(), stream.get());
    } catch (const Error& e) {
      cudaStreamEndCapture(stream.get(), &graph);
      FAIL() << "execute_device inside a capture: " << e.what();
    }
    cuda_ok(cudaStreamEndCapture(stream.get(), &graph), "cudaStreamEndCapture");
    EXPECT_EQ(plan.last_counters().phase_seconds("device"), 0) << "a captured execution ran nothing to time";
    cudaGraphExec_t exec = nullptr;
    cuda_ok(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    for (int replay = 0; replay < 2; ++replay) {
      b->write_storage(in.data(), dev, 0, plan.data_bytes());
      cuda_ok(cudaGraphLaunch(exec, stream.get()), "cudaGraphLaunch");
      cuda_ok(cudaStreamSynchronize(stream.get()), "the graph's run");
      std::vector<std::uint32_t> got(in.size());
      b->read_storage(dev, 0, got.data(), plan.data_bytes());
      EXPECT_EQ(got, wants[i]) << "replay " << replay;
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);

    // And plainly afterwards, on the same stream.
    b->write_storage(in.data(), dev, 0, plan.data_bytes());
    plan.execute_device(dev.data(), plan.data_bytes(), stream.get());
    plan.last_counters();
    std::vector<std::uint32_t> got(in.size());
    b->read_storage(dev, 0, got.data(), plan.data_bytes());
    EXPECT_EQ(got, wants[i]) << "a plain execution after the capture";
  }
}

// The distributed FFT (its local blocks by cuFFT) whose first execution, cuFFT's plans made
// inside it, is captured on a blocking stream (cudaStreamCreate's default: a capture there
// forbids touching the legacy default stream). Either the graph, replayed, gives the CPU
// backend's (FFTW's) result to rounding, or the plan refuses the capture with hcube::Error and
// then still runs plainly: never a CUDA error or a wrong result.
TEST_F(CudaStream, FftPlanCapturedOnABlockingStream) {
  const unsigned q = 12, n = 5, m = q - n;
  const std::uint64_t N = bit(q);
  DistributedFftPlan::Options o;
  o.points_log2 = q;
  o.nodes_log2 = n;
  o.target = {ElementType::c128, BackendChoice::cuda};
  DistributedFftPlan plan(o);
  o.target.backend = BackendChoice::cpu;
  DistributedFftPlan on_cpu(o);
  std::vector<std::complex<double>> in(N), want(N);
  for (std::uint64_t t = 0; t < N; ++t) {
    const double v = static_cast<double>(t);
    in[(t & (bit(n) - 1)) * bit(m) + (t >> n)] = {std::cos(0.3 * v) + 0.01 * v, std::sin(1.7 * v)};
  }
  want = in;
  on_cpu.execute(want.data(), N * sizeof(std::complex<double>));
  const auto close = [&](const std::vector<std::complex<double>>& got, const char* what) {
    double worst = 0, scale = 0;
    for (std::uint64_t k = 0; k < N; ++k) {
      ASSERT_TRUE(std::isfinite(got[k].real()) && std::isfinite(got[k].imag())) << what << " word " << k;
      worst = std::max(worst, std::abs(got[k] - want[k]));
      scale = std::max(scale, std::abs(want[k]));
    }
    EXPECT_LT(worst, 1e-12 * scale * q) << what;
  };
  cudaStream_t stream = nullptr;
  cuda_ok(cudaStreamCreate(&stream), "cudaStreamCreate");
  auto b = make_cuda_backend();
  Buffer dev = b->allocate(plan.data_bytes());
  std::vector<std::complex<double>> got(N);
  cudaGraph_t graph = nullptr;
  cuda_ok(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
  bool captured = true;
  try {
    plan.execute_device(dev.data(), plan.data_bytes(), stream);
  } catch (const Error& e) {
    captured = false;
    EXPECT_NE(std::string(e.what()).find("captur"), std::string::npos) << "a refusal says it is the capture: " << e.what();
  }
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  if (captured) {
    cuda_ok(ended, "cudaStreamEndCapture");
    cudaGraphExec_t exec = nullptr;
    cuda_ok(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    for (int replay = 0; replay < 2; ++replay) {
      b->write_storage(in.data(), dev, 0, plan.data_bytes());
      cuda_ok(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
      cuda_ok(cudaStreamSynchronize(stream), "the graph's run");
      b->read_storage(dev, 0, got.data(), plan.data_bytes());
      close(got, replay == 0 ? "the graph's first replay" : "the graph's second replay");
    }
    cudaGraphExecDestroy(exec);
  } else {
    cudaGetLastError();  // the invalidated capture's error is the test's, not the next run's
  }
  if (graph != nullptr) cudaGraphDestroy(graph);
  b->write_storage(in.data(), dev, 0, plan.data_bytes());
  plan.execute_device(dev.data(), plan.data_bytes(), stream);
  plan.last_counters();
  b->read_storage(dev, 0, got.data(), plan.data_bytes());
  close(got, "a plain execution after the capture");
  cudaStreamSynchronize(stream);
  cudaStreamDestroy(stream);
}

#else

TEST(CudaStream, SkippedWithoutTheCudaBackend) {
  std::string why;
  cuda_device_count(&why);
  HCUBE_SKIP_UNLESS_REQUIRED("HCUBE_REQUIRE_CUDA", "CUDA stream tests skipped: " << why);
}

#endif

}  // namespace
}  // namespace hcube
