// The library's parameters as the command line's flags (hcube/app/cli_words.hpp).
#include "hcube/app/cli_words.hpp"

#include <cctype>
#include <string>
#include <utility>

namespace hcube::app {

namespace {

// The library's names for what a flag sets, and the flag. Several names may
// share a flag: each command fills its own request from the same flags.
constexpr std::pair<const char*, const char*> kFlagOf[] = {
    {"AapcRequest::blocked", "--blocked"},
    {"AapcRequest::channel_width", "--channel-width"},
    {"AapcRequest::m", "--mem-dims"},
    {"AapcRequest::method", "--algorithm"},
    {"AapcRequest::unaligned", "--unaligned"},
    {"AapcSequenceOptions::algorithm", "--algorithm"},
    {"BenchRequest::algorithm", "--algorithm"},
    {"BenchRequest::backend", "--backend"},
    {"BenchRequest::fftw_plan", "--fftw-plan"},
    {"BenchRequest::launch", "--launch"},
    {"BenchRequest::log2_words", "--log2-words"},
    {"BenchRequest::nodes_log2", "--nodes-log2"},
    {"BenchRequest::op", "--op"},
    {"BenchRequest::repeat", "--repeat"},
    {"BenchRequest::type", "--type"},
    {"BusyNeighbour", "--busy-neighbour"},
    {"DistributedFftPlan::Options::nodes_log2", "--nodes-log2"},
    {"DistributedFftPlan::Options::points_log2", "--points-log2"},
    {"Geometry::m", "-m"},
    {"Geometry::n", "-n"},
    {"MultiAapcRequest::algorithm", "--algorithm"},
    {"MultiAapcRequest::axes", "--axes"},
    {"MultiAapcRequest::dims", "--dims"},
    {"MultiAapcRequest::m", "--mem-dims"},
    {"MultiAapcRequest::order", "--order"},
    {"MultiAapcRequest::rotated_rows", "--rotated-rows"},
    {"MultiAapcRequest::sequential", "--sequential"},
    {"NpyInput::path", "--input"},
    {"PermutePlan::Options::algorithm", "--algorithm"},
    {"PermutePlan::Options::fused", "--fused"},
    {"PermutePlan::Options::m", "--mem-dims"},
    {"PermutePlan::Options::perm", "--perm"},
    {"PermutePlan::Options::subcube_dims", "--subcube-dims"},
    {"PlanTarget::backend", "--backend"},
    {"RedistributePlan::Options::dims", "--dims"},
    {"RedistributePlan::Options::overlap", "--overlap"},
    {"RedistributePlan::Options::schedule", "--schedule"},
    {"RunOptions::trace", "--trace"},
    {"SchedulePlan::Options::d", "--dims"},
    {"SdpCost::effort", "--effort"},
    {"SdpCost::gamma", "--gamma"},
    {"SdpCost::packet", "--packet"},
    {"SdpCost::ports", "--ports"},
    {"SdpCost::t_c", "--tc"},
    {"SdpCost::tau", "--tau"},
    {"SweepRequest::algorithms", "--algorithms"},
    {"SweepRequest::from", "--dims-from"},
    {"SweepRequest::repeat", "--repeat"},
    {"SweepRequest::to", "--dims-to"},
    {"SynthesisRequest::axes", "--axes"},
    {"SynthesisRequest::dims", "--dims"},
    {"SynthesisRequest::m", "--mem-dims"},
    {"SynthesisRequest::max_cycles", "--max-cycles"},
    {"SynthesisRequest::perm", "--perm"},
    {"SynthesisRequest::port_model", "--port-model"},
    {"SynthesisRequest::time_limit", "--time-limit"},
    {"alignment_map::mem_perm", "--mem-perm"},
    {"alignment_map::xor_mem", "--xor-mem"},
    {"alignment_map::xor_proc", "--xor-proc"},
    {"check_scatter_algorithm::a", "--algorithm"},
    {"scatter_labels::type", "--type"},
};

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == ':'; }

}  // namespace

std::string cli_words(const std::string& message) {
  std::string out;
  std::size_t i = 0;
  while (i < message.size()) {
    const char* flag = nullptr;
    std::size_t length = 0;
    // A whole name only: not the tail of a longer one, nor the head ("Geometry::n" in "Geometry::nodes").
    if (i == 0 || !name_char(message[i - 1]))
      for (const auto& [name, f] : kFlagOf) {
        const std::size_t len = std::char_traits<char>::length(name), end = i + len;
        if (message.compare(i, len, name) != 0) continue;
        if (end == message.size() || !name_char(message[end]) ||
            (message[end] == ':' && message.compare(end, 2, "::") != 0)) {
          flag = f;
          length = len;
          break;
        }
      }
    if (flag != nullptr) {
      out += flag;
      i += length;
    } else {
      out += message[i++];
    }
  }
  return out;
}

}  // namespace hcube::app
