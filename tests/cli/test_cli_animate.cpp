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

  // The text of the element with id `id` in `dom` ("" and a failure when there is none).
  static std::string element_text(const std::string& dom, const std::string& id) {
    const std::size_t at = dom.find("id=\"" + id + "\"");
    if (at == std::string::npos) {
      ADD_FAILURE() << "no element with id " << id << " in the page's DOM";
      return "";
    }
    const std::size_t from = dom.find('>', at) + 1, to = dom.find("</", from);
    return dom.substr(from, to - from);
  }

  // The memory the page shows at its last step (or after `query`), as rows of
  // numbers: the first machine's (id "memory"), or the one named.
  json final_memory(const fs::path& page, const std::string& query = "?step=end",
                    const std::string& id = "memory") const {
    const std::string text = element_text(browse({"--dump-dom"}, "file://" + page.string() + query), id);
    return text.empty() ? json() : json::parse(text);
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
    const std::string dom = browse({"--dump-dom"}, "file://" + page.string() + "?step=end");
    // Every command gets the node by address table (Johnsson & Ho's Tables 1
    // and 3), the legend and a sentence on what its last step did.
    EXPECT_TRUE(contains(dom, "id=\"matrix\"")) << "no table";
    EXPECT_TRUE(contains(dom, "id=\"legend\"")) << "no legend";
    EXPECT_FALSE(element_text(dom, "narration").empty()) << "no narration";
    const json shown = json::parse(element_text(dom, "memory"));
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

  // The page's data: the JSON between its data element's tags.
  static json page_data(const std::string& html) {
    const std::string open = "<script type=\"application/json\" id=\"hcube-data\">";
    const std::size_t from = html.find(open);
    if (from == std::string::npos) return json();
    const std::size_t to = html.find("</script>", from);
    return json::parse(html.substr(from + open.size(), to - from - open.size()));
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
  // d = 8 is Johnsson & Ho's table at 256 x 256; d = 9 is refused, naming the value and the bound.
  expect_error({"animate", "aapc", "--dims", "9", "--output", path("big.html").string()},
               {"at most d = 8", "n = 9", "--trace", "hcube schedule --json"});
  expect_error({"animate", "aapc", "--dims", "3"}, {"--output page.html"});
  expect_error({"animate", "aapc", "--dims", "3", "--output", path("page.txt").string()}, {"must end in .html"});
  expect_error({"animate", "teleport", "--output", path("t.html").string()}, {"allowed commands", "aapc"});
  expect_error({"animate", "redistribute", "--P", "28", "--K", "36", "--Q", "14", "--x", "2", "--output",
                path("r.html").string()},
               {"at most d = 8", "--trace"});
  expect_error({"animate"}, {"needs a command"});
  expect_error({"animate", "aapc", "--dims", "3", "--algorithm", "9", "--output", path("a.html").string()},
               {"algorithm"});
  // Side by side: each algorithm is checked as the command checks it, and two at most.
  expect_error({"animate", "aapc", "--dims", "3", "--algorithm", "1,9", "--output", path("a.html").string()},
               {"'9'", "allowed 1, 2, 3, 4"});
  expect_error({"animate", "aapc", "--dims", "3", "--algorithm", "1,4,2", "--output", path("a.html").string()},
               {"--algorithm 1,4,2", "2 algorithms side by side", "got 3"});
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

// Every step says what it does, read off the plan: the alignments of
// Johnsson & Ho's sec. 2.2, and for each cycle the dimensions, the addresses
// and the words that cross; the last step compares Algorithm 1's d ceil(K/2d)
// cycles with the K/2 of Algorithms 2-4 (Table 6).
TEST_F(CliAnimate, EveryStepIsNarratedFromThePlan) {
  const fs::path page = path("aapc.html");
  ok({"animate", "aapc", "--dims", "3", "--algorithm", "4", "--output", page.string()});
  const json data = page_data(read_text(page));
  ASSERT_EQ(data["machines"].size(), 1u);
  const json& steps = data["machines"][0]["steps"];
  ASSERT_EQ(steps.size(), 7u);
  const auto says = [&](std::size_t s, const std::vector<std::string>& parts) {
    const std::string text = steps[s]["narration"].get<std::string>();
    for (const auto& p : parts) EXPECT_TRUE(contains(text, p)) << "step " << s << ": " << text;
  };
  says(0, {"(j|i)", "sec. 2.2"});
  // Node j's eight words move unless j = 0: 7 x 8 = 56.
  says(1, {"Phase 1, local alignment", "j xor i", "sec. 2.2", "56 words change place", "no link is used",
           "Table 1"});
  // d = 3 exchanges of one word a node: 3 x 8 words, every link busy.
  says(2, {"Routing cycle 0 of 4", "dimension 0: address", "24 words cross 3 of 3 dimensions", "12 of 12 links",
           "Lemma 2", "sec. 3.5"});
  says(6, {"Phase 3", "d * ceil(K/2d) = 6", "K/2 = 4", "Table 6"});
  // Algorithm 1's cycles cite its own section.
  ok({"animate", "aapc", "--dims", "3", "--algorithm", "1", "--output", page.string()});
  const json one = page_data(read_text(page))["machines"][0]["steps"][2]["narration"];
  EXPECT_TRUE(contains(one.get<std::string>(), "sec. 3.1")) << one;
  // The other commands cite their papers: Ho & Johnsson 1988 sec. 4.3 for the
  // SDP algorithms, Park, Prasanna & Raghavendra sec. 3.3 for the router steps.
  ok({"animate", "permute", "--perm", "bit-reversal", "-n", "3", "-m", "2", "--algorithm", "A1", "--output",
      page.string()});
  EXPECT_TRUE(contains(page_data(read_text(page))["machines"][0]["steps"][1]["narration"].get<std::string>(),
                       "Ho & Johnsson 1988, sec. 4.3, algorithm A1"));
  ok({"animate", "redistribute", "--P", "3", "--K", "2", "--Q", "6", "--x", "2", "--output", page.string()});
  EXPECT_TRUE(contains(page_data(read_text(page))["machines"][0]["steps"][2]["narration"].get<std::string>(),
                       "Router step: 3 messages"));
}

// Table 6 of Johnsson & Ho: at d = 3 Algorithm 1 needs d ceil(K/2d) = 6
// cycles, Algorithm 4 K/2 = 4; --algorithm 1,4 runs both and the page steps
// them together, each with its own table, counters and narration.
TEST_F(CliAnimate, TwoAlgorithmsSideBySide) {
  const fs::path page = path("two.html");
  const json j = ok_json({"animate", "aapc", "--dims", "3", "--algorithm", "1,4", "--output", page.string()});
  ASSERT_EQ(j["machines"].size(), 2u) << j;
  EXPECT_EQ(j["machines"][0]["algorithm"], "1");
  EXPECT_EQ(j["machines"][0]["routing_cycles"], 6);
  EXPECT_EQ(j["machines"][1]["algorithm"], "4");
  EXPECT_EQ(j["machines"][1]["routing_cycles"], 4);
  EXPECT_EQ(j["machines"][0]["element_hops"], j["machines"][1]["element_hops"]);  // the same words, the same paths
  EXPECT_EQ(j["steps"], 9);  // the longer run
  EXPECT_EQ(page_data(read_text(page))["machines"].size(), 2u);
  EXPECT_TRUE(contains(ok({"animate", "aapc", "--dims", "3", "-a", "1,4", "--output", page.string()}),
                       "algorithm 1: 6 routing cycles, algorithm 4: 4 routing cycles"));
  // Two scatter algorithms on the 8-ring: the pipeline's 7 cycles against the
  // bidirectional ring's 4 (the lecture notes: half the ring each way).
  const json ring = ok_json({"animate", "scatter", "--topology", "ring:8", "--algorithm", "pipeline,bidirectional",
                             "--output", page.string()});
  ASSERT_EQ(ring["machines"].size(), 2u) << ring;
  EXPECT_EQ(ring["machines"][0]["routing_cycles"], 7);
  EXPECT_EQ(ring["machines"][1]["routing_cycles"], 4);
  // Two SDP algorithms of Ho & Johnsson 1988 on the same bit reversal.
  const json sdp = ok_json({"animate", "permute", "--perm", "bit-reversal", "-n", "3", "-m", "3", "--ports", "all",
                            "--algorithm=A1,A6", "--output", page.string()});
  ASSERT_EQ(sdp["machines"].size(), 2u) << sdp;
  EXPECT_EQ(sdp["machines"][0]["algorithm"], "A1");
  EXPECT_EQ(sdp["machines"][1]["algorithm"], "A6");
  if (const std::string why = browser_unusable(); !why.empty())
    HCUBE_SKIP_UNLESS_REQUIRED("HCUBE_REQUIRE_BROWSER", why);
  ok({"animate", "aapc", "--dims", "4", "--algorithm", "1,4", "--output", page.string()});
  const std::string dom = browse({"--dump-dom"}, "file://" + page.string() + "?step=3");
  for (const char* id : {"id=\"matrix\"", "id=\"matrix-2\"", "id=\"legend\"", "id=\"counters-2\""})
    EXPECT_TRUE(contains(dom, id)) << id;
  EXPECT_TRUE(contains(element_text(dom, "narration"), "Algorithm 1 schedules"));
  EXPECT_TRUE(contains(element_text(dom, "narration-2"), "Algorithm 4 schedules"));
  // Both machines end at the transpose the emulator computed.
  const json want = ok_json({"aapc", "--dims", "4", "--trace"})["trace"].back()["state"];
  EXPECT_EQ(final_memory(page, "?step=end", "memory"), want);
  EXPECT_EQ(final_memory(page, "?step=end", "memory-2"), want);
}

// d = 8: 256 nodes of 256 words, Johnsson & Ho's node by address table at
// 256 x 256, too many nodes for the cube drawing; the page stays compact
// (each step only the words it moved) and shows the emulator's result.
TEST_F(CliAnimate, DimensionEightIsATable) {
  const fs::path page = path("d8.html");
  const json j = ok_json({"animate", "aapc", "--dims", "8", "--output", page.string()});
  EXPECT_EQ(j["nodes"], 256);
  EXPECT_EQ(j["routing_cycles"], 128);  // K/2 (Table 6)
  EXPECT_LT(j["page_bytes"].get<std::uint64_t>(), 20u << 20) << "page of " << j["page_bytes"] << " bytes";
  if (const std::string why = browser_unusable(); !why.empty())
    HCUBE_SKIP_UNLESS_REQUIRED("HCUBE_REQUIRE_BROWSER", why);
  const std::string dom = browse({"--dump-dom"}, "file://" + page.string() + "?step=2");
  EXPECT_TRUE(contains(dom, "id=\"matrix\""));
  EXPECT_TRUE(contains(dom, "id=\"legend\""));
  EXPECT_TRUE(contains(dom, "The cube is drawn up to d = 5"));
  EXPECT_TRUE(contains(element_text(dom, "narration"), "Routing cycle 0 of 128")) << element_text(dom, "narration");
  // Cells of 3 pixels carry no text: the pointer names the word. At the end of
  // the transpose node 200 holds at address 17 the word that started at node
  // 17, address 200: 17 * 256 + 200 = 4552.
  const std::string hover = element_text(browse({"--dump-dom"}, "file://" + page.string() + "?step=end&hover=200,17"),
                                         "hover");
  EXPECT_EQ(hover, "node 200, address 17: word (17|200) = 4552, bound for node 200");
  expect_page_shows_the_result({"aapc", "--dims", "8"});
}

}  // namespace
