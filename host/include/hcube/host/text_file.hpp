// Writing a text file so that a reader never sees half of it.
#pragma once

#include <string>

namespace hcube {

// Writes `text` to a temporary file beside `path`, then renames it over
// `path`. Throws hcube::Error ("cannot write <what>", "writing <what> failed"),
// leaving neither file behind.
void write_text_atomically(const std::string& path, const std::string& text, const std::string& what);

}  // namespace hcube
