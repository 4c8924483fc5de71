// The memory hcube counts as available: a cgroup's limit less its usage, the
// least up the hierarchy, on a hierarchy of plain files made in a temporary
// directory (the real /sys/fs/cgroup is only ever read by hcube itself).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "hcube/host/system/host_memory.hpp"

namespace {

namespace fs = std::filesystem;
constexpr std::uint64_t kNoLimit = std::numeric_limits<std::uint64_t>::max();

class CgroupMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "hcube_cgroup_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  void put(const std::string& dir, const std::string& file, const std::string& text) const {
    fs::create_directories(root_ / dir);
    std::ofstream(root_ / dir / file) << text << "\n";
  }
  std::uint64_t available(const std::string& dir) const {
    return hcube::cgroup_memory_available(root_.string(), dir, "memory.max", "memory.current");
  }
  fs::path root_;
};

TEST_F(CgroupMemory, TheLeastLimitLessUsageUpTheTree) {
  put("a/b", "memory.max", "1000000");
  put("a/b", "memory.current", "400000");
  put("a", "memory.max", "500000");
  put("a", "memory.current", "100000");
  EXPECT_EQ(available("/a/b"), 400000u);  // the parent's 500000 - 100000
  put("a", "memory.max", "max");
  EXPECT_EQ(available("/a/b"), 600000u);  // the group's own
  EXPECT_EQ(available("/a"), kNoLimit);
}

TEST_F(CgroupMemory, UsagePastTheLimitLeavesNothingAndNoFileNoLimit) {
  EXPECT_EQ(available("/"), kNoLimit);
  EXPECT_EQ(available("/no/such/group"), kNoLimit);
  put("", "memory.max", "4096");
  put("", "memory.current", "8192");
  EXPECT_EQ(available("/"), 0u);
  EXPECT_EQ(available("/no/such/group"), 0u);  // the root's limit still holds
  put("g", "memory.max", "garbage");
  put("", "memory.max", "9223372036854771712");  // cgroup v1's "no limit"
  put("", "memory.current", "0");
  EXPECT_EQ(available("/g"), 9223372036854771712u);
}

}  // namespace
