// The teaching page of `hcube animate`: one self-contained HTML file (inline
// SVG drawn by inline JavaScript, no network) that replays the states the
// emulator recorded. The page derives nothing about the algorithm: each
// frame is a state from the run, each word's move is read off two states.
// The page itself is emulator/app/page/ (animate.html, .css, .js), embedded
// at build time by cmake/EmbedPage.cmake as the bytes before and after the data.
#include "hcube/app/lesson.hpp"

#include <cstddef>
#include <string>

namespace hcube::app {
namespace page {
// animate_page_assets.cpp, generated from emulator/app/page/.
extern const unsigned char kHead[];
extern const std::size_t kHeadSize;
extern const unsigned char kTail[];
extern const std::size_t kTailSize;
}  // namespace page

std::string animation_page(const nlohmann::json& data) {
  // The data is JSON text inside the page's application/json script element,
  // with every character the HTML parser or a JavaScript parser could act on
  // escaped (OWASP): an input file named with a comment opener and a script
  // tag must not stop the element closing. They occur only inside JSON strings, where \uXXXX means the same.
  const std::string json = data.dump();
  std::string out(reinterpret_cast<const char*>(page::kHead), page::kHeadSize);
  out.reserve(page::kHeadSize + json.size() + page::kTailSize);
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xe2' && i + 2 < json.size() && json[i + 1] == '\x80' && (json[i + 2] == '\xa8' || json[i + 2] == '\xa9')) {
      out += json[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";  // line and paragraph separators
      i += 2;
    } else {
      out += c;
    }
  }
  out.append(reinterpret_cast<const char*>(page::kTail), page::kTailSize);
  return out;
}

}  // namespace hcube::app
