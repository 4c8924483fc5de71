// hcube: an emulator of a Connection-Machine-2-style SIMD binary n-cube, as a
// library. This one header gives the whole public API: the plans
// (plans.hpp), the machine and its primitives (machine.hpp), verified runs
// and traces (verified_run.hpp), NumPy files (npy.hpp) and the errors
// (hcube::Error: one line naming the parameter, e.g. AapcRequest::m, and
// what it allows).
// docs/api.md shows its use.
#pragma once

#include "hcube/emulator/backend.hpp"
#include "hcube/emulator/counters.hpp"
#include "hcube/emulator/element_type.hpp"
#include "hcube/emulator/fft.hpp"
#include "hcube/emulator/machine.hpp"
#include "hcube/emulator/npy.hpp"
#include "hcube/emulator/redistribute.hpp"
#include "hcube/emulator/schedule_run.hpp"
#include "hcube/emulator/sdp_run.hpp"
#include "hcube/emulator/verified_run.hpp"
#include "hcube/core/error.hpp"
#include "hcube/plans.hpp"
#include "hcube/typed_plans.hpp"
#include "hcube/version.hpp"
