// hcube animate as a user runs it, and its page in a real browser: Debian's
// chromium, headless, loads the page stepped to its end by ?step=end, and the
// memory the page writes into the DOM must be the emulator's result (the
// command's own --output .npy). A screenshot at a middle step must not be
// blank. Without chromium (scripts/install-deps.sh installs it) the browser
// tests skip, saying so.
#include "cli_harness.hpp"

namespace {

using namespace hcube::test;

// The chromium binary, or "" when none is installed.
std::string chromium() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"})
    if (::access(p, X_OK) == 0) return p;
  return "";
}

class CliAnimate : public Cli {
 protected:
  // Runs headless chromium on `url` with `extra` flags and a fresh profile;
  // returns its stdout. At most two minutes.
  std::string browse(const std::vector<std::string>& extra, const std::string& url) const {
    const fs::path out = path(".chromium.out"), err = path(".chromium.err");
    std::vector<std::string> storage{"/usr/bin/timeout", "120", chromium(), "--headless", "--no-sandbox",
                                     "--disable-gpu", "--no-first-run", "--disable-background-networking",
                                     "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                                     "--user-data-dir=" + path("profile-" + std::to_string(++profiles_)).string()};
    storage.insert(storage.end(), extra.begin(), extra.end());
    storage.push_back(url);
    std::vector<char*> argv;
    for (std::string& s : storage) argv.push_back(s.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      ADD_FAILURE() << "cannot start chromium: " << std::strerror(rc);
      return "";
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_text(err);
    return read_text(out);
  }

  // The memory the page shows at its last step, as rows of numbers.
  json final_memory(const fs::path& page) const {
    const std::string dom = browse({"--dump-dom"}, "file://" + page.string() + "?step=end");
    const std::string open = "<pre id=\"memory\">";
    const std::size_t at = dom.find(open);
    if (at == std::string::npos) {
      ADD_FAILURE() << "no memory element in the page's DOM";
      return json();
    }
    const std::size_t from = at + open.size(), to = dom.find("</pre>", from);
    return json::parse(dom.substr(from, to - from));
  }

  // The page for `command` (with --output page) and the same run's result as
  // rows of uint32 (the command with --output .npy), compared through the browser.
  void expect_page_shows_the_result(const Args& command) {
    SCOPED_TRACE(::testing::PrintToString(command));
    const fs::path page = path("page.html"), npy = path("result.npy");
    Args animate{"animate"};
    animate.insert(animate.end(), command.begin(), command.end());
    animate.insert(animate.end(), {"--output", page.string()});
    EXPECT_TRUE(contains(ok(animate), "wrote " + page.string()));
    Args direct = command;
    direct.insert(direct.end(), {"--output", npy.string()});
    ok(direct);
    const hcube::NpyArray result = hcube::read_npy(npy.string());
    const std::uint64_t nodes = result.shape.at(0), K = result.shape.at(1);
    json expected = json::array();
    const auto* words = reinterpret_cast<const std::uint32_t*>(result.data.data());
    for (std::uint64_t j = 0; j < nodes; ++j) {
      json row = json::array();
      for (std::uint64_t a = 0; a < K; ++a) row.push_back(words[j * K + a]);
      expected.push_back(row);
    }
    EXPECT_EQ(final_memory(page), expected);
  }

  mutable int profiles_ = 0;
};

TEST_F(CliAnimate, WritesOneSelfContainedPage) {
  const fs::path page = path("aapc.html");
  ok({"animate", "aapc", "--dims", "3", "--algorithm", "4", "--output", page.string()});
  const std::string html = read_text(page);
  EXPECT_TRUE(contains(html, "<svg")) << "no SVG stage";
  EXPECT_TRUE(contains(html, "id=\"hcube-data\""));
  // No file or network fetched: no src, no stylesheet link, no import.
  for (const char* fetch : {"src=", "<link", "@import", "fetch("}) EXPECT_FALSE(contains(html, fetch)) << fetch;
  // The run's states are in the page: Algorithm 4 at d = 3 has 4 cycles between two alignments.
  for (const char* step : {"pre-alignment", "routing cycle 3 of 4", "post-alignment"})
    EXPECT_TRUE(contains(html, step)) << step;
}

TEST_F(CliAnimate, BadInputIsAClearError) {
  expect_error({"animate", "aapc", "--dims", "6", "--output", path("big.html").string()},
               {"at most d = 5", "--trace", "hcube schedule --json"});
  expect_error({"animate", "aapc", "--dims", "3"}, {"--output page.html"});
  expect_error({"animate", "aapc", "--dims", "3", "--output", path("page.txt").string()}, {"must end in .html"});
  expect_error({"animate", "teleport", "--output", path("t.html").string()}, {"allowed commands", "aapc"});
  expect_error({"animate"}, {"needs a command"});
  expect_error({"animate", "aapc", "--dims", "3", "--algorithm", "9", "--output", path("a.html").string()},
               {"algorithm"});
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_NE(entry.path().extension(), ".html") << "left behind: " << entry.path();
}

TEST_F(CliAnimate, TheBrowserShowsTheEmulatorsResult) {
  if (chromium().empty()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh installs it)";
  expect_page_shows_the_result({"aapc", "--dims", "3", "--algorithm", "4"});
  expect_page_shows_the_result({"aapc", "--dims", "2", "--algorithm", "1", "--permutation", "bit-reversal"});
  expect_page_shows_the_result({"permute", "--perm", "bit-reversal", "-n", "3", "-m", "2"});
  expect_page_shows_the_result({"multi-aapc", "--dims", "2,2"});
}

TEST_F(CliAnimate, AMiddleStepIsNotBlank) {
  if (chromium().empty()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh installs it)";
  const fs::path page = path("page.html"), blank = path("blank.html");
  ok({"animate", "aapc", "--dims", "3", "--algorithm", "4", "--output", page.string()});
  std::ofstream(blank) << "<!DOCTYPE html><html><body></body></html>\n";
  const auto shot = [&](const fs::path& html, const std::string& name) {
    const fs::path png = path(name);
    browse({"--screenshot=" + png.string(), "--window-size=1300,800"}, "file://" + html.string() + "?step=3");
    return fs::exists(png) ? fs::file_size(png) : 0;
  };
  const std::uintmax_t empty = shot(blank, "blank.png"), middle = shot(page, "middle.png");
  ASSERT_GT(empty, 0u) << "chromium wrote no screenshot";
  // A blank page compresses to a few KiB; the drawn cube, its cells and the table do not.
  EXPECT_GT(middle, 5 * empty) << "middle step " << middle << " bytes, blank page " << empty << " bytes";
}

}  // namespace
