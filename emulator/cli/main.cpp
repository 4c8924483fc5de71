// hcube: the command-line face of the emulator.
#include <fmt/format.h>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "common.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/io/output_file.hpp"
#include "hcube/host/parse.hpp"
#include "hcube/app/cli_words.hpp"
#include "hcube/app/ranks.hpp"

namespace {

// One write, so that the lines of ranks sharing a terminal under mpirun do not interleave.
// Control characters from a name or a file are escaped: the error stays one line.
void print_error(const std::string& text) {
  std::cerr << "hcube: error: " + hcube::printable_text(text) + "\n" << std::flush;
}

// Exit codes (docs/cli.md): 0 success, 1 bad input or a failed run or check,
// 2 a command line of the wrong shape (an unknown command or flag, a missing
// or surplus argument). A flag's value refused while parsing is bad input.
constexpr int kBadInput = 1, kUsage = 2;

int parse_error_code(const CLI::ParseError& e) {
  const auto code = static_cast<CLI::ExitCodes>(e.get_exit_code());
  return code == CLI::ExitCodes::ValidationError || code == CLI::ExitCodes::ConversionError ? kBadInput : kUsage;
}

// The first word that is not a flag, when it names no command: `hcube foo --help`
// is an unknown command, not a request for the main help.
bool names_unknown_command(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") return false;
    if (!a.empty() && a[0] == '-') continue;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
      if (sub->get_name() == a) return false;
    return true;
  }
  return false;
}

// Whatever went to standard output reached it: a full disk, a closed pipe or
// a failed close are errors, not an exit 0 with the data lost. Empty: all well.
std::string stdout_error() {
  // std::cout writes through stdout's buffer: its flush is the first write, and its errno the cause.
  errno = 0;
  const bool flush_failed = !std::cout.flush() || std::fflush(stdout) != 0;
  const int flush_errno = errno;
  const bool failed = flush_failed || std::ferror(stdout) != 0 || !std::cout;
  // Closed here so that a deferred error (NFS, a full disk on close) is seen too.
  errno = 0;
  const bool close_failed = ::close(STDOUT_FILENO) != 0 && errno != EBADF;
  const int close_errno = errno;
  if (!failed && !close_failed) return {};
  const int err = flush_failed ? flush_errno : close_failed ? close_errno : 0;
  return std::string("cannot write standard output: ") +
         (err != 0 ? std::strerror(err) : "a write failed") + " (the output is incomplete)";
}

// Runs the command; returns its exit code with `error` set to the one-line text of a failure.
int run(CLI::App& app, int argc, char** argv, std::string& error, bool& collective) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    if (names_unknown_command(app, argc, argv)) {
      error = hcube::cli::parse_error_text(app, e, std::vector<std::string>(argv + 1, argv + argc));
      collective = true;
      return kUsage;
    }
    return app.exit(e);  // --help, --help-all, --version: printed as CLI11 does, exit 0
  } catch (const CLI::ParseError& e) {
    // One line like every other error, with the nearest spelling of a misspelt command or flag.
    error = hcube::cli::parse_error_text(app, e, std::vector<std::string>(argv + 1, argv + argc));
    // Every rank parses the same arguments (Ranks checks them), so all fail alike.
    collective = true;
    return parse_error_code(e);
  } catch (const hcube::Error& e) {
    error = hcube::app::cli_words(e.what());
    collective = hcube::cli::Ranks::is_collective(e);
    return 1;
  } catch (const std::bad_alloc&) {
    error = "out of host memory";
    return 1;
  } catch (const std::exception& e) {
    // Anything the library let through (a stream or filesystem failure) still ends in one line.
    error = e.what();
    for (char& c : error)
      if (c == '\n') c = ' ';
    return 1;
  } catch (...) {
    error = "unexpected failure (unknown exception)";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hcube: emulator of a Connection-Machine-2-style SIMD binary n-cube.\n"
               "2^n nodes, each with K = 2^m local words; global address g = node * K + local."};
  app.set_version_flag("--version", std::string("hcube ") + HCUBE_VERSION);
  app.require_subcommand(1);
  hcube::cli::add_commands(app);
  // An interrupted write leaves no temporary beside the user's file.
  hcube::remove_temporaries_on_signals();
  // A reader that quits (a pipe, a FIFO) makes a write fail with EPIPE, reported
  // like any other failed write, instead of killing hcube without a word.
  std::signal(SIGPIPE, SIG_IGN);
  // Output not for a terminal is written once, at the end, where a failure's
  // cause (a full disk, a closed pipe) is seen; only a larger one is written earlier.
  // (glibc ignores the size without a buffer: this one lives as long as stdout, its pages used only as filled.)
  static char stdout_buffer[std::size_t{1} << 20];
  if (::isatty(STDOUT_FILENO) == 0) std::setvbuf(stdout, stdout_buffer, _IOFBF, sizeof stdout_buffer);
  // Under mpirun: one rank of the job (docs/distributed.md).
  std::unique_ptr<hcube::cli::Ranks> ranks;
  try {
    ranks = std::make_unique<hcube::cli::Ranks>(argc, argv);
  } catch (const hcube::Error& e) {
    print_error(hcube::app::cli_words(e.what()));
    return 1;
  }
  std::string error;
  bool collective = false;
  const int code = run(app, argc, argv, error, collective);
  if (code == 0 || error.empty()) {
    // Every rank's work is done: the job ends as usual, and the rank that printed says it could not.
    const std::string lost = stdout_error();
    std::string other;
    if (!ranks->succeeded(other)) {  // another rank failed: rank 0 says why
      if (!other.empty()) print_error(other);
      ranks->end_failed();
      return kBadInput;
    }
    if (lost.empty()) return code;
    print_error(lost);
    return kBadInput;
  }
  // Under mpirun an error every rank met is printed once, by rank 0.
  const std::string line = ranks->failed(collective, error);
  if (!line.empty()) print_error(line);
  ranks->end_failed();
  return code;
}
