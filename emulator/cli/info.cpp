// hcube info: version, backends, GPU presence and the largest cube that fits.
#include <fmt/format.h>

#include <iostream>

#include "commands.hpp"
#include "common.hpp"
#include "hcube/emulator/units.hpp"
#include "hcube/app/ranks.hpp"

namespace hcube::cli {

void add_info(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "version, backends built, GPU presence, largest cube that fits");
  struct Flags {
    std::string type;
    bool json = false;
  };
  auto f = std::make_shared<Flags>();
  choices(cmd->add_option("-t,--type", f->type, "element type for the largest-cube figure (default: all)"),
          split_names(element_type_names()));
  cmd->add_flag("--json", f->json, "print one JSON object");
  cmd->callback([f] {
    if (!prints_results()) return;  // under mpirun, rank 0 answers for the job
    std::vector<ElementType> types;
    if (f->type.empty())
      for (const ElementInfo& e : all_element_types()) types.push_back(e.type);
    else
      types.push_back(parse_element_type(f->type));

    std::string why;
    const int gpus = cuda_device_count(&why);
    std::vector<std::unique_ptr<Backend>> backends;
    backends.push_back(make_cpu_backend());
    if (gpus > 0) backends.push_back(make_cuda_backend());

    nlohmann::json j = {
        {"version", HCUBE_VERSION},
        {"backends_built", cuda_backend_built() ? nlohmann::json{"cpu", "cuda"} : nlohmann::json{"cpu"}},
        {"gpu_present", gpus > 0},
        {"gpu_count", gpus},
        {"gpu_status", gpus > 0 ? "ok" : why},
        {"auto_backend", gpus > 0 ? "cuda" : "cpu"},
        {"address_convention", "g = node * K + local (node bits high)"},
        {"mpi", mpi_json()},
        {"wisdom", wisdom_json()},
    };
    nlohmann::json largest = nlohmann::json::object();
    for (const auto& b : backends) {
      nlohmann::json per_type = nlohmann::json::object();
      const std::uint64_t avail = b->available_bytes();
      for (ElementType t : types) per_type[info(t).name] = largest_fitting_bits(avail, info(t).bytes);
      largest[to_string(b->kind())] = {{"device", b->device_name()}, {"available_bytes", avail},
                                       {"largest_n_plus_m", per_type}};
    }
    j["largest_cube"] = largest;
    if (f->json) {
      std::cout << j.dump(2) << "\n";
      return;
    }
    fmt::print("hcube {}\n", HCUBE_VERSION);
    fmt::print("backends built: cpu{}\n", cuda_backend_built() ? ", cuda" : "");
    fmt::print("GPU: {}\n", gpus > 0 ? fmt::format("{} device(s)", gpus) : "none (" + why + ")");
    fmt::print("--backend auto runs on: {}\n", gpus > 0 ? "cuda" : "cpu");
    const nlohmann::json mpi = j["mpi"];
    fmt::print("MPI: {}\n", mpi.is_null() ? std::string("not built")
                                         : fmt::format("{}{}", mpi["library"].get<std::string>(),
                                                       mpi["cuda_aware"].get<bool>() ? " (CUDA-aware)" : ""));
    const nlohmann::json w = j["wisdom"];
    fmt::print("wisdom: {}\n", w["in_use"].get<bool>() ? fmt::format("{} (made on {})", w["path"].get<std::string>(),
                                                                      w["cpu"].get<std::string>())
                                                       : fmt::format("none: {}", w["why_not"].get<std::string>()));
    fmt::print("address convention: g = node * K + local (node bits high, as (j|i) in Johnsson-Ho)\n");
    for (const auto& b : backends) {
      const std::uint64_t avail = b->available_bytes();
      fmt::print("\n{} backend: {}, {} available\n", to_string(b->kind()), b->device_name(), format_bytes(avail));
      fmt::print("  {:<11} {:>9} {:>12}\n", "type", "max n+m", "data size");
      for (ElementType t : types) {
        const unsigned q = largest_fitting_bits(avail, info(t).bytes);
        fmt::print("  {:<11} {:>9} {:>12}\n", info(t).name, q, format_bytes(bit(q) * info(t).bytes));
      }
    }
  });
}

}  // namespace hcube::cli
