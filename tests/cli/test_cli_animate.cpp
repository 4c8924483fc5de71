// hcube animate as a user runs it, and its page in a real browser: Debian's
// chromium, headless, loads the page stepped to its end by ?step=end, and the
// memory the page writes into the DOM must be the emulator's result (the
// command's own --output .npy). A screenshot at a middle step must not be
// blank. Without chromium (scripts/install-deps.sh installs it), or with one
// that cannot render a trivial page here, the browser tests skip, saying so
// (and fail instead under HCUBE_REQUIRE_BROWSER=1, require.hpp: .ci/run sets it
// where chromium works).
#include "cli_harness.hpp"
#include "require.hpp"

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
  // Why the browser tests cannot run here ("" when they can): no chromium, or
  // a chromium that cannot render a trivial page in this environment (a probe
  // independent of hcube, so a failure on hcube's page is still a failure).
  std::string browser_unusable() const {
    if (chromium().empty()) return "chromium is not installed (scripts/install-deps.sh installs it)";
    const fs::path probe = path("probe.html");
    std::ofstream(probe) << "<!DOCTYPE html><html><body><p id=\"probe\"></p><script>"
                            "document.getElementById('probe').textContent = 'rendered';</script></body></html>\n";
    if (!contains(browse({"--dump-dom"}, "file://" + probe.string(), false), ">rendered<"))
      return "chromium cannot render a page in this environment: " + read_text(path(".chromium.err")).substr(0, 400);
    return "";
  }

  // Runs headless chromium on `url` with `extra` flags and a fresh profile;
  // returns its stdout. At most two minutes.
  std::string browse(const std::vector<std::string>& extra, const std::string& url, bool must_succeed = true) const {
    Args argv{"/usr/bin/timeout", "120", chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
              "--user-data-dir=" + path("profile-" + std::to_string(++profiles_)).string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back(url);
    const Result r = run_program(argv, path(".chromium.out"), path(".chromium.err"));
    if (must_succeed) {
      EXPECT_EQ(r.code, 0) << r.err;
    }
    return r.out;
  }

  // The memory the page shows at its last step (or after `query`), as rows of numbers.
  json final_memory(const fs::path& page, const std::string& query = "?step=end") const {
    const std::string dom = browse({"--dump-dom"}, "file://" + page.string() + query);
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
    const std::uint64_t rows = result.shape.at(0), K = result.shape.at(1);
    const auto* words = reinterpret_cast<const std::uint32_t*>(result.data.data());
    const json shown = final_memory(page);
    // A redistribution's output is the destinations' regions: Q rows of D words
    // from word O of the destination nodes; a grid scatter's, each node's
    // output area; every other command's, the machine.
    std::uint64_t first_node = 0, first_word = 0;
    if (command.front() == "redistribute") {
      const json j = ok_json(command);
      first_node = j["first_destination_node"].get<std::uint64_t>();
      first_word = j["first_destination_word"].get<std::uint64_t>();
    }
    // A grid scatter's output is each node's output area, from word output_first_word.
    if (command.front() == "scatter") first_word = ok_json(command).value("output_first_word", std::uint64_t{0});
    ASSERT_GE(shown.size(), first_node + rows);
    for (std::uint64_t q = 0; q < rows; ++q)
      for (std::uint64_t a = 0; a < K; ++a)
        ASSERT_EQ(shown[first_node + q][first_word + a].get<std::uint32_t>(), words[q * K + a])
            << "row " << q << " word " << a;
    if (command.front() != "redistribute") {
      EXPECT_EQ(shown.size(), rows);
    }
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
  // --json: what was written.
  const json j = ok_json({"animate", "aapc", "--dims", "3", "--algorithm", "4", "--output", page.string()});
  EXPECT_EQ(j["page"], page.string());
  EXPECT_EQ(j["animated"], "aapc");
  EXPECT_EQ(j["steps"], 7);
  EXPECT_EQ(j["routing_cycles"], 4);
  EXPECT_EQ(j["nodes"], 8);
  EXPECT_EQ(j["verified"], true);
  // The run's states are in the page: Algorithm 4 at d = 3 has 4 cycles between two
  // alignments, a group of d = 3 exchange steps and a group of one (a single necklace).
  for (const char* step : {"pre-alignment", "routing cycle 2 of 4 (step 3 of group 1)",
                           "routing cycle 3 of 4 (step 1 of group 2)", "post-alignment"})
    EXPECT_TRUE(contains(html, step)) << step;
}

// The page's data is JSON with <, >, & and U+2028/9 escaped: an input named
// "in<!--<script" once put the HTML parser where </script> no longer closed
// the data, and the page's script never ran.
TEST_F(CliAnimate, AHostileNameCannotStopThePagesScript) {
  const std::string name = "in<!--<script>&\xe2\x80\xa8<script.npy";
  const fs::path input = path(name), page = path("page.html");
  ok({"aapc", "--dims", "2", "--output", input.string()});
  ok({"animate", "aapc", "--dims", "2", "-i", input.string(), "--output", page.string()});
  const std::string html = read_text(page);
  const std::string open = "<script type=\"application/json\" id=\"hcube-data\">";
  const std::size_t from = html.find(open);
  ASSERT_NE(from, std::string::npos);
  const std::size_t to = html.find("</script>", from);
  ASSERT_NE(to, std::string::npos);
  const std::string data = html.substr(from + open.size(), to - from - open.size());
  for (const char* raw : {"<", ">", "&", "\xe2\x80\xa8"}) EXPECT_FALSE(contains(data, raw)) << "raw " << raw;
  const json j = json::parse(data);
  EXPECT_TRUE(contains(j["subtitle"].get<std::string>(), name)) << j["subtitle"];
  if (const std::string why = browser_unusable(); !why.empty())
    HCUBE_SKIP_UNLESS_REQUIRED("HCUBE_REQUIRE_BROWSER", why);
  EXPECT_EQ(final_memory(page).size(), 4u);  // the script ran and wrote the memory
}

TEST_F(CliAnimate, HelpShowsTheCommandsFlags) {
  const std::string out = ok({"animate", "aapc", "--help"});
  EXPECT_TRUE(contains(out, "--output naming the page"));
  EXPECT_TRUE(contains(out, "--algorithm"));
  EXPECT_TRUE(contains(ok({"animate", "--help"}), "redistribute"));
}

TEST_F(CliAnimate, BadInputIsAClearError) {
  expect_error({"animate", "aapc", "--dims", "6", "--output", path("big.html").string()},
               {"at most d = 5", "--trace", "hcube schedule --json"});
  expect_error({"animate", "aapc", "--dims", "3"}, {"--output page.html"});
  expect_error({"animate", "aapc", "--dims", "3", "--output", path("page.txt").string()}, {"must end in .html"});
  expect_error({"animate", "teleport", "--output", path("t.html").string()}, {"allowed commands", "aapc"});
  expect_error({"animate", "redistribute", "--P", "28", "--K", "36", "--Q", "14", "--x", "2", "--output",
                path("r.html").string()},
               {"at most d = 5", "--trace"});
  expect_error({"animate"}, {"needs a command"});
  expect_error({"animate", "aapc", "--dims", "3", "--algorithm", "9", "--output", path("a.html").string()},
               {"algorithm"});
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_NE(entry.path().extension(), ".html") << "left behind: " << entry.path();
}

TEST_F(CliAnimate, TheBrowserShowsTheEmulatorsResult) {
  if (const std::string why = browser_unusable(); !why.empty())
    HCUBE_SKIP_UNLESS_REQUIRED("HCUBE_REQUIRE_BROWSER", why);
  expect_page_shows_the_result({"aapc", "--dims", "3", "--algorithm", "4"});
  expect_page_shows_the_result({"aapc", "--dims", "2", "--algorithm", "1", "--permutation", "bit-reversal"});
  expect_page_shows_the_result({"permute", "--perm", "bit-reversal", "-n", "3", "-m", "2"});
  expect_page_shows_the_result({"multi-aapc", "--dims", "2,2"});
  // The paper's R_2(3, 2, 6) (sources 0..2, destinations 3..8), and on shared nodes.
  expect_page_shows_the_result({"redistribute", "--P", "3", "--K", "2", "--Q", "6", "--x", "2"});
  expect_page_shows_the_result({"redistribute", "--P", "6", "--K", "3", "--Q", "4", "--x", "1", "--overlap"});
  // The NEWS grid: a ring, a torus, a mesh, and the cube's SEX.
  expect_page_shows_the_result({"scatter", "--topology", "ring:5", "--algorithm", "bidirectional"});
  expect_page_shows_the_result({"scatter", "--topology", "torus:3x3", "--algorithm", "product"});
  expect_page_shows_the_result({"scatter", "--topology", "mesh:2x4", "--algorithm", "dex", "--embed", "cube"});
  expect_page_shows_the_result({"scatter", "--topology", "cube:2", "--algorithm", "sex"});
}

// A ring drawn as a circle, a torus or a mesh as a grid: the page carries the
// grid, its cycles' messages and the words each copies.
TEST_F(CliAnimate, ScatterOnTheGrid) {
  const fs::path page = path("ring.html");
  const json j = ok_json({"animate", "scatter", "--topology", "ring:8", "--output", page.string()});
  EXPECT_EQ(j["animated"], "scatter");
  EXPECT_EQ(j["steps"], 8);
  EXPECT_EQ(j["routing_cycles"], 7);
  EXPECT_EQ(j["nodes"], 8);
  EXPECT_EQ(j["verified"], true);
  const std::string html = read_text(page);
  for (const char* part : {"\"grid\":{", "\"kind\":\"ring\"", "\"moves\":[[", "routing cycle 7 of 7 (round 7)",
                           "G.kind === \"ring\""})
    EXPECT_TRUE(contains(html, part)) << part;
  EXPECT_TRUE(contains(ok({"animate", "scatter", "--topology", "mesh:4x4", "--algorithm", "bex", "--output",
                           path("mesh.html").string()}),
                       "10 routing cycles"));
  expect_error({"animate", "scatter", "--topology", "torus:8x8", "--output", path("big.html").string()},
               {"--trace prints every word"});
}

// The keys a teacher presses: Right, Right, Left is step 1; End the last step;
// End, Home, Right, Left the first.
TEST_F(CliAnimate, ArrowKeysStepThroughTheRun) {
  if (const std::string why = browser_unusable(); !why.empty())
    HCUBE_SKIP_UNLESS_REQUIRED("HCUBE_REQUIRE_BROWSER", why);
  const fs::path page = path("page.html");
  ok({"animate", "aapc", "--dims", "3", "--algorithm", "4", "--output", page.string()});
  const json trace = ok_json({"aapc", "--dims", "3", "--algorithm", "4", "--trace"})["trace"];
  ASSERT_EQ(trace.size(), 7u);
  EXPECT_EQ(final_memory(page, "?keys=ArrowRight,ArrowRight,ArrowLeft"), trace[1]["state"]);
  EXPECT_EQ(final_memory(page, "?keys=End"), trace[6]["state"]);
  EXPECT_EQ(final_memory(page, "?keys=End,Home,ArrowRight,ArrowLeft"), trace[0]["state"]);
  EXPECT_EQ(final_memory(page, "?step=4&keys=ArrowLeft"), trace[3]["state"]);
}

TEST_F(CliAnimate, AMiddleStepIsNotBlank) {
  if (const std::string why = browser_unusable(); !why.empty())
    HCUBE_SKIP_UNLESS_REQUIRED("HCUBE_REQUIRE_BROWSER", why);
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
