// The library's version: what `hcube --version` prints after "hcube ".
#pragma once

namespace hcube {

const char* version();

}  // namespace hcube
