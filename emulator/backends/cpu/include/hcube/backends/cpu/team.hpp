// How many threads a parallel region of the CPU kernels may use now: every
// core the OpenMP runtime offers, less the cores other processes are running
// on (a spinning team whose thread lost its core waits a scheduler
// time slice at every barrier; beside one busy process on two cores, two
// threads ran an AAPC at 3x their idle time where one thread ran it at 1.8x).
// The machine's running threads (/proc/stat's procs_running) less this
// process's own (/proc/self/task/*/stat, spinning OpenMP workers included),
// sampled at most once every 20 ms: a schedule of thousands of cycles pays a
// few reads, not one a cycle. At least 1, at most omp_get_max_threads(); that
// exactly when OMP_NUM_THREADS is set (the user chose) or HCUBE_ADAPTIVE_THREADS=0.
#pragma once

#include <dirent.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace hcube::kernels::cpu {
namespace team_detail {

// procs_running from /proc/stat, or -1 where it cannot be read.
inline int running_on_machine() {
  std::FILE* f = std::fopen("/proc/stat", "r");
  if (f == nullptr) return -1;
  char line[256];
  int running = -1;
  while (std::fgets(line, sizeof line, f) != nullptr)
    if (std::strncmp(line, "procs_running ", 14) == 0) {
      running = std::atoi(line + 14);
      break;
    }
  std::fclose(f);
  return running;
}

// This process's threads in state R (running or runnable), spinning OpenMP workers included.
inline int running_here() {
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  int running = 0;
  while (const dirent* e = ::readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    const std::string path = std::string("/proc/self/task/") + e->d_name + "/stat";
    std::FILE* f = std::fopen(path.c_str(), "r");
    if (f == nullptr) continue;  // the thread ended meanwhile
    char buf[512];
    const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = '\0';
    // "pid (comm) S ...": the state follows the last ')' (comm may hold one).
    const char* close = std::strrchr(buf, ')');
    if (close != nullptr && close[1] == ' ' && close[2] == 'R') ++running;
  }
  ::closedir(dir);
  return running;
}

inline bool adaptive() {
  static const bool on = [] {
    const char* a = std::getenv("HCUBE_ADAPTIVE_THREADS");
    if (a != nullptr && std::strcmp(a, "0") == 0) return false;
    return std::getenv("OMP_NUM_THREADS") == nullptr;
  }();
  return on;
}

}  // namespace team_detail

inline int team_size() {
  const int most = std::max(1, omp_get_max_threads());
  using namespace team_detail;
  if (most == 1 || !adaptive()) return most;
  using Clock = std::chrono::steady_clock;
  static std::atomic<long long> next{0};  // when to sample again, steady-clock ticks
  static std::atomic<int> others{0};      // other processes' running threads, the lesser of the last two samples
  static std::atomic<int> last{0};        // the last sample alone
  const long long now = Clock::now().time_since_epoch().count();
  if (now >= next.load(std::memory_order_relaxed)) {
    static std::mutex sampling;
    const std::unique_lock<std::mutex> lock(sampling, std::try_to_lock);
    if (lock.owns_lock()) {
      const int all = running_on_machine(), mine = running_here();
      const int seen = all < 0 || mine < 0 ? 0 : std::max(0, all - mine);
      // Two samples in a row: a daemon's moment on a core does not halve the team.
      others.store(std::min(seen, last.exchange(seen, std::memory_order_relaxed)), std::memory_order_relaxed);
      next.store(now + std::chrono::duration_cast<Clock::duration>(std::chrono::milliseconds(20)).count(),
                 std::memory_order_relaxed);
    }
  }
  return std::clamp(omp_get_num_procs() - others.load(std::memory_order_relaxed), 1, most);
}

}  // namespace hcube::kernels::cpu
