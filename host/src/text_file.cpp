#include "hcube/host/text_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "hcube/core/error.hpp"

namespace hcube {

void write_text_atomically(const std::string& path, const std::string& text, const std::string& what) {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw Error(fmt::format("cannot write {}", what));
    out << text;
    if (!out) {
      out.close();
      std::remove(tmp.c_str());
      throw Error(fmt::format("writing {} failed", what));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error(fmt::format("cannot write {}", what));
  }
}

}  // namespace hcube
