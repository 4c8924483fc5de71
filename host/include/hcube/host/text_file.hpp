// Kept for code that includes it: write_text_atomically is in output_file.hpp.
#pragma once

#include "hcube/host/output_file.hpp"
