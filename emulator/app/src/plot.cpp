// hcube sweep's picture: gnuplot run on a data file and a script of our own
// temporary directory, its drawing copied to the user's path afterwards.
#include "hcube/app/plot.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "hcube/core/error.hpp"
#include "hcube/host/io/output_file.hpp"

namespace hcube::app {
namespace {

bool have_gnuplot() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }

// The plot's terminal from the file's extension; refuses before anything runs.
std::string plot_terminal(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".svg") return "svg size 960,1000 dynamic background rgb 'white'";
  if (ext == ".png") return "png size 960,1000";
  throw Error(fmt::format("--plot {}: the file must end in .svg or .png", path));
}

// A private directory for gnuplot's files: $TMPDIR when it is usable, else /tmp.
std::string make_scratch_dir() {
  for (const char* base : {static_cast<const char*>(std::getenv("TMPDIR")), "/tmp"}) {
    if (base == nullptr || *base == '\0') continue;
    // The script quotes these paths: a base with a quote in it is not used.
    if (std::string(base).find_first_of("'\"\\\n") != std::string::npos) continue;
    std::string dir = std::string(base) + "/hcube-sweep-XXXXXX";
    if (::mkdtemp(dir.data()) != nullptr) return dir;
  }
  throw Error(fmt::format("--plot needs a temporary directory for gnuplot: neither $TMPDIR ({}) nor /tmp is writable",
                          std::getenv("TMPDIR") != nullptr ? std::getenv("TMPDIR") : "unset"));
}

void write_text_file(const std::string& path, const std::string& text) { write_text_atomically(path, text, path); }

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

void check_plot_target(const std::string& path) {
  plot_terminal(path);
  if (!have_gnuplot())
    throw Error("--plot draws with gnuplot, which is not installed: apt-get install gnuplot-nox (or drop --plot and "
                "plot the --csv file yourself)");
}

// The ratio to memcpy (so that no algorithm is squashed under the memcpy
// line), the cycles and the time per cycle against d, one line per algorithm
// and sweep (a sweep per launch mode: its own series): one gnuplot data block
// ("d cycles ratio seconds_per_cycle") each. gnuplot draws into a file of our
// own temporary directory, copied to `path` afterwards: the user's path never
// enters the script.
void plot_sweep(const std::string& path, const std::vector<SweepResult>& sweeps) {
  if (sweeps.empty()) throw Error("internal: a sweep plot of no sweeps");
  const std::filesystem::path dir = make_scratch_dir();
  const std::string ext = std::filesystem::path(path).extension().string();
  const std::string data = (dir / "sweep.dat").string(), script = (dir / "sweep.gp").string(),
                    drawn = (dir / ("plot" + ext)).string();
  std::string blocks, ratio, cycles, per_cycle, launches;
  std::size_t index = 0;
  for (const SweepResult& sweep : sweeps) {
    const std::string launch = to_string(sweep.request.launch);
    if (launches.find(launch) == std::string::npos) launches += (launches.empty() ? "" : ", ") + launch;
    for (const std::string& a : sweep.request.algorithms) {
      for (const SweepRow& r : sweep.rows)
        if (r.algorithm == a)
          blocks += fmt::format("{} {} {:.6f} {:.6e}\n", r.d, r.cycles, 100 * r.ratio(), r.seconds_per_cycle());
      blocks += "\n\n";
      std::string title = a.rfind("edelman", 0) == 0 ? "Edelman" + a.substr(7) : "Algorithm " + a;
      if (sweeps.size() > 1) title += ", " + launch;
      const auto series = [&](const char* column) {
        return fmt::format("{}'{}' index {} using 1:{} with linespoints title '{}'", index == 0 ? "" : ", ", data,
                           index, column, title);
      };
      ratio += series("3");
      cycles += series("2");
      per_cycle += series("4");
      ++index;
    }
  }
  const SweepResult& first = sweeps.front();
  write_text_file(data, blocks);
  write_text_file(script, fmt::format(R"(set terminal {}
set output '{}'
set multiplot layout 3,1 title 'hcube sweep: AAPC of 2^{{2d}} words, n = m = d ({} backend, {}, {}, repeat {})'
set xlabel 'd'
set grid
set key outside right top
set ylabel '% of memcpy (read + written)'
set yrange [0:*]
plot {}
set ylabel 'routing cycles'
set autoscale y
set logscale y 2
plot {}
set ylabel 'seconds per cycle'
set logscale y 10
set format y '%.0e'
plot {}
unset multiplot
)",
                                      plot_terminal(path), drawn, first.backend, info(first.request.type).name,
                                      launches, first.request.repeat, ratio, cycles, per_cycle));
  const std::string errors = (dir / "gnuplot.err").string();
  const int rc = std::system(fmt::format("gnuplot '{}' 2>'{}'", script, errors).c_str());
  const std::string message = read_text_file(errors), picture = read_text_file(drawn);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  if (rc != 0 || picture.empty()) {
    std::string line = message;
    std::replace(line.begin(), line.end(), '\n', ' ');
    throw Error(fmt::format("gnuplot could not draw {}: {}", path, line));
  }
  write_text_atomically(path, picture, "--plot " + path);
}

void plot_sweep(const std::string& path, const SweepResult& sweep) { plot_sweep(path, std::vector<SweepResult>{sweep}); }

}  // namespace hcube::app
