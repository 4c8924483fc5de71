// AAPC schedules checked as data, no machine needed (Johnsson & Ho 1992,
// "the paper"): necklaces, Tables 5 and 6, Theorem 1, Lemmas 4 and 5, the
// file format and the checker's errors.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "hcube/host/aapc.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/necklace.hpp"
#include "hcube/host/schedule_json.hpp"

namespace hcube {
namespace {

Schedule make(AapcAlgorithm alg, unsigned d, unsigned m = 0, unsigned n = 0,
              LineDrawing lines = LineDrawing::diagonal, PairOrder pairs = PairOrder::split) {
  return make_aapc_schedule(AapcOptions{alg, d, n, m, lines, pairs});
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Necklace, PeriodsAndDistinguishedAddresses) {
  // Sec. 2.1: (0000) cyclic with period 1, (0101) period 2, (0001) and (0011) noncyclic.
  EXPECT_EQ(necklace_period(0b0000, 4), 1u);
  EXPECT_EQ(necklace_period(0b0101, 4), 2u);
  EXPECT_EQ(necklace_period(0b0001, 4), 4u);
  EXPECT_EQ(necklace_period(0b0011, 4), 4u);
  EXPECT_EQ(distinguished(0b1110, 4), 0b0111u);
  EXPECT_EQ(rotate_left(0b0111, 1, 4), 0b1110u);
  std::vector<std::uint64_t> firsts;
  for (const Necklace& nk : necklaces(4)) firsts.push_back(nk.first);
  EXPECT_EQ(firsts, (std::vector<std::uint64_t>{0b0000, 0b0001, 0b0011, 0b0101, 0b0111, 0b1111}));
  EXPECT_EQ(cyclic_pair_lows(3), (std::vector<std::uint64_t>{0}));
  EXPECT_EQ(cyclic_pair_lows(4), (std::vector<std::uint64_t>{0b0000, 0b0101}));
}

TEST(Necklace, CyclicCountsMatchTheDivisorFormula) {
  // Strings whose period is a proper divisor of d: inclusion-exclusion over the divisors.
  const std::map<unsigned, std::size_t> cyclic = {{2, 2}, {3, 2}, {4, 4}, {6, 10}, {8, 16}, {9, 8}, {10, 34}, {12, 76}};
  for (const auto& [d, count] : cyclic) EXPECT_EQ(2 * cyclic_pair_lows(d).size(), count) << "d = " << d;
  std::size_t members = 0;
  for (const Necklace& nk : necklaces(10)) members += nk.period;
  EXPECT_EQ(members, 1024u);  // the necklaces partition the addresses
}

// Table 5 (Algorithm 2). The caption says five processor dimensions, but the
// printed table is for d = 4 (4-bit addresses, 8 steps, dimensions 0..3); the
// table body is trusted and checked here cell by cell: row u is pair u's
// dimensions by step. PairOrder::table5 puts the pairs in the rows in index
// order, as printed; the default, split, puts (0111, 1000), (0011, 1100) and
// (0001, 1110) in the rows that wrap, 5, 6 and 7, and the others in order.
TEST(PaperTables, Table5Algorithm2) {
  const char* table5[] = {
      "0123----", "-0123---", "--0123--", "---0123-", "----0123", "3----012", "23----01", "123----0",
  };
  const std::uint64_t table5_pairs[] = {0, 1, 2, 3, 4, 5, 6, 7};
  const std::uint64_t split_pairs[] = {0b0000, 0b0010, 0b0100, 0b0101, 0b0110, 0b0111, 0b0011, 0b0001};
  for (PairOrder order : {PairOrder::table5, PairOrder::split}) {
    SCOPED_TRACE(to_string(order));
    const Schedule s = make(AapcAlgorithm::alg2, 4, 0, 0, LineDrawing::diagonal, order);
    ASSERT_EQ(s.cycles(), 8u);
    std::map<std::uint64_t, std::string> got;  // pair's low member -> its row
    for (std::size_t t = 0; t < s.cycles(); ++t)
      for (std::size_t e = 0; e < s.cycle_size(t); ++e) {
        const Exchange& x = s.cycle_begin(t)[e];
        const std::uint64_t pair = test_bit(x.addr, 3) ? x.addr ^ 0xf : x.addr;  // (0000,1111), (0001,1110), ...
        got.try_emplace(pair, std::string(8, '-')).first->second[t] = static_cast<char>('0' + x.dim);
      }
    for (int u = 0; u < 8; ++u)
      EXPECT_EQ(got[(order == PairOrder::table5 ? table5_pairs : split_pairs)[u]], table5[u]) << "pair " << u;
  }
}

// Table 6 and Theorem 1: cycles and spans, checked exactly on the schedules.
TEST(PaperTables, Table6CyclesAndSpans) {
  for (unsigned d = 1; d <= 10; ++d)
    for (unsigned m = d; m <= std::min(d + 2, 11u); ++m) {
      const std::uint64_t half = bit(m - 1), rem = half % d;
      for (AapcAlgorithm alg : {AapcAlgorithm::alg1, AapcAlgorithm::alg2, AapcAlgorithm::alg3, AapcAlgorithm::alg4}) {
        const ScheduleStats st = check_schedule(make(alg, d, m));
        const AapcBounds b = paper_bounds(alg, d, m);
        SCOPED_TRACE(testing::Message() << "algorithm " << static_cast<int>(alg) << ", d = " << d << ", m = " << m);
        EXPECT_EQ(st.cycles, b.cycles);
        switch (alg) {
          case AapcAlgorithm::alg1:
            EXPECT_EQ(st.cycles, d * ceil_div(half, d));
            EXPECT_EQ(st.max_span, d);
            break;
          case AapcAlgorithm::alg2:
            EXPECT_EQ(st.cycles, half);
            // "Up to K/2": wrap-around spreads a pair over the whole schedule.
            EXPECT_LE(st.max_span, half);
            EXPECT_GE(st.max_span, d);
            break;
          case AapcAlgorithm::alg3:
            EXPECT_EQ(st.cycles, half);
            EXPECT_LE(st.max_span, d + rem);
            EXPECT_GE(st.max_span, d);
            break;
          case AapcAlgorithm::alg4:
            EXPECT_EQ(st.cycles, half);
            EXPECT_EQ(st.max_span, d);
            break;
        }
      }
    }
}

// Theorem 1: Algorithm 4 takes K/2 cycles with maximum span exactly d, and
// every channel of every node is busy in every cycle; every line drawing.
TEST(Theorem1, Algorithm4IsOptimalInCyclesSpanAndChannelUse) {
  for (unsigned d = 1; d <= 16; ++d)
    for (LineDrawing lines : {LineDrawing::diagonal, LineDrawing::greedy, LineDrawing::type1}) {
      const Schedule s = make(AapcAlgorithm::alg4, d, d, d, lines);
      const ScheduleStats st = check_schedule(s);  // also proves it realises the AAPC
      SCOPED_TRACE(testing::Message() << "d = " << d << ", lines " << to_string(lines));
      EXPECT_EQ(st.cycles, bit(d - 1));
      EXPECT_EQ(st.max_span, d);
      EXPECT_DOUBLE_EQ(st.min_channel_use, 1.0);
      for (std::size_t c = 0; c < s.cycles(); ++c) {
        std::uint64_t dims = 0;
        for (std::size_t e = 0; e < s.cycle_size(c); ++e) dims |= bit(s.cycle_begin(c)[e].dim);
        ASSERT_EQ(dims, low_mask(d)) << "cycle " << c;
      }
    }
}

TEST(Algorithm4, EvenDimensionsNeedingTheSkewedColumns) {
  // d = 12 has 38 cyclic pairs: c = 2 < d/2, the case the diagonal drawing skews.
  ASSERT_EQ(cyclic_pair_lows(12).size() % 12, 2u);
  const ScheduleStats st = check_schedule(make(AapcAlgorithm::alg4, 12));
  EXPECT_EQ(st.max_span, 12u);
  EXPECT_DOUBLE_EQ(st.min_channel_use, 1.0);
}

TEST(Algorithm4, RepeatsForLargerMemoryAndIgnoresExtraNodes) {
  const ScheduleStats st = check_schedule(make(AapcAlgorithm::alg4, 3, 6, 5));
  EXPECT_EQ(st.cycles, 32u);  // K/2 with K = 64
  EXPECT_EQ(st.max_span, 3u);
  EXPECT_EQ(st.element_hops, st.exchanges * 32);  // one word per node of the 5-cube per exchange
}

// Lemma 4 (sec. 5): Algorithm 4 blocks into d transfers of at most ceil(K/2d)
// words, Algorithm 3 into d + (K/2 mod d); the blocked schedule stays legal.
TEST(Lemma4, BlockTransfers) {
  for (unsigned d = 1; d <= 9; ++d)
    for (unsigned m = d; m <= d + 2; ++m)
      for (AapcAlgorithm alg : {AapcAlgorithm::alg1, AapcAlgorithm::alg3, AapcAlgorithm::alg4}) {
        const Schedule s = make(alg, d, m);
        const ScheduleStats st = check_schedule(s);
        const AapcBounds b = paper_bounds(alg, d, m);
        SCOPED_TRACE(testing::Message() << "algorithm " << static_cast<int>(alg) << ", d = " << d << ", m = " << m);
        const Schedule blocked = block_schedule(s);
        const ScheduleStats bst = check_schedule(blocked);
        EXPECT_EQ(blocked.cycles(), st.block_transfers);
        EXPECT_EQ(bst.exchanges, st.exchanges);
        EXPECT_EQ(blocked.rules.channel_width, st.max_block_size);
        if (alg == AapcAlgorithm::alg4) {
          EXPECT_EQ(st.block_transfers, d);
          EXPECT_EQ(st.max_block_size, ceil_div(bit(m - 1), d));
        }
        if (alg == AapcAlgorithm::alg3) {
          EXPECT_LE(st.block_transfers, b.block_transfers);
        }
        EXPECT_LE(st.max_block_size, ceil_div(st.cycles, st.block_transfers));
      }
}

// Lemma 5 (sec. 6) as sec. 7 sums it up: with Table 9's labelling the
// schedules of K/2 cycles and span d (Algorithms 2, 3 and 4) take exactly
// ceil(K/2b) time steps when floor(K/2d) >= b, the channels' lower bound,
// and d (the span's) otherwise; never more than the lemma's d ceil(K/(2db)).
// Algorithm 1's d ceil(K/2d) cycles give ceil(d ceil(K/2d) / b).
TEST(Lemma5, WideChannels) {
  for (unsigned d = 1; d <= 8; ++d)
    for (unsigned m = d; m <= d + 3; ++m)
      for (unsigned b : {1u, 2u, 3u, 5u, 64u})
        for (AapcAlgorithm alg : {AapcAlgorithm::alg1, AapcAlgorithm::alg2, AapcAlgorithm::alg3, AapcAlgorithm::alg4}) {
          const Schedule w = widen_schedule(make(alg, d, m), b);
          const ScheduleStats st = check_schedule(w);
          const std::uint64_t half = bit(m - 1), groups = ceil_div(half, d);
          SCOPED_TRACE(testing::Message() << "algorithm " << static_cast<int>(alg) << ", d = " << d << ", m = " << m
                                          << ", b = " << b);
          EXPECT_LE(st.cycles, lemma5_cycles(d, m, b));
          if (b == 1) {
            EXPECT_EQ(st.cycles, alg == AapcAlgorithm::alg1 ? d * groups : half);
          } else if (alg == AapcAlgorithm::alg1) {
            EXPECT_EQ(st.cycles, groups >= b ? ceil_div(d * groups, b) : d);
          } else {
            EXPECT_EQ(st.cycles, half / d >= b ? ceil_div(half, b) : d);
            EXPECT_EQ(st.cycles, wide_channel_cycles(d, m, b));
          }
        }
  // The cases of issue 41 (Lemma 5's 10, 18, 12).
  EXPECT_EQ(widen_schedule(make(AapcAlgorithm::alg4, 5), 2).cycles(), 8u);
  EXPECT_EQ(widen_schedule(make(AapcAlgorithm::alg4, 6), 2).cycles(), 16u);
  EXPECT_EQ(widen_schedule(make(AapcAlgorithm::alg4, 6), 3).cycles(), 11u);
  EXPECT_EQ(lemma5_cycles(5, 5, 2), 10u);
  EXPECT_EQ(lemma5_cycles(6, 6, 2), 18u);
  EXPECT_EQ(lemma5_cycles(6, 6, 3), 12u);
}

TEST(ScheduleFile, RoundTripsThroughJson) {
  const Schedule s = make(AapcAlgorithm::alg4, 5);
  const nlohmann::json j = nlohmann::json::parse(to_json(s).dump());
  EXPECT_EQ(to_json(s).begin().key(), "format");  // the documented order
  EXPECT_EQ(j["format"], "hcube-schedule/1");
  EXPECT_EQ(j["algorithm"], "4");
  EXPECT_EQ(j["d"], 5);
  EXPECT_EQ(j["pre"], "xor-align");
  EXPECT_EQ(j["cycles"].size(), 16u);
  EXPECT_EQ(j["cycles"][0][0].size(), 2u);  // {"dim", "addr"}: peer_addr only when it differs
  const Schedule back = schedule_from_json(j, "x");
  ASSERT_EQ(back.cycles(), s.cycles());
  for (std::size_t c = 0; c < s.cycles(); ++c) EXPECT_EQ(back.cycle(c), s.cycle(c));
  EXPECT_NO_THROW(check_schedule(back));
}

TEST(ScheduleFile, MalformedFilesNameTheCycleAndEntry) {
  nlohmann::json j = nlohmann::json::parse(to_json(make(AapcAlgorithm::alg1, 3)).dump());
  auto with = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json k = j;
    edit(k);
    return error_of([&] { check_schedule(schedule_from_json(k, "f.json")); });
  };
  EXPECT_EQ(with([](nlohmann::json& k) { k["format"] = "other"; }),
            "f.json: format 'other' unknown: allowed hcube-schedule/1");
  EXPECT_EQ(with([](nlohmann::json& k) { k.erase("d"); }), "f.json: 'd' is missing");
  EXPECT_EQ(with([](nlohmann::json& k) { k["chanel_width"] = 2; }).rfind("f.json: unknown field 'chanel_width' (a typo?)", 0), 0u);
  EXPECT_EQ(with([](nlohmann::json& k) { k["cycles"][2][1].erase("addr"); }), "f.json: cycle 2, entry 1: 'addr' is missing");
  EXPECT_EQ(with([](nlohmann::json& k) { k["cycles"][1][0]["dim"] = -1; }),
            "f.json: cycle 1, entry 0: 'dim' is -1, expected a non-negative integer");
  EXPECT_EQ(with([](nlohmann::json& k) { k["cycles"][1] = 5; }), "f.json: cycle 1 is not an array of exchanges");
  // Legal JSON, illegal schedule: the checker names the clash.
  EXPECT_NE(with([](nlohmann::json& k) { k["cycles"][0][1]["addr"] = k["cycles"][0][0]["addr"]; })
                .find("cycle 0, exchange 1"),
            std::string::npos);
  EXPECT_EQ(with([](nlohmann::json& k) { k["cycles"][0][0]["dim"] = 7; }),
            "cycle 0, exchange 0 {dim 7, addr 7}: dim 7 out of range: allowed 0..2");
  // A schedule that does not complete the AAPC.
  EXPECT_EQ(with([](nlohmann::json& k) { k["cycles"].erase(k["cycles"].size() - 1); }).rfind("schedule incomplete", 0), 0u);
  EXPECT_EQ(with([](nlohmann::json& k) { k["d"] = 4; }), "schedule d = 4 exceeds its processor dimensions n = 3: allowed d <= n");
  EXPECT_EQ(with([](nlohmann::json& k) { k["channel_width"] = 0; }),
            "f.json: 'channel_width' = 0 out of range: allowed at least 1");
}

// What a schedule can cover is known before its per-address records are
// made: an AAPC needs K d / 2 exchanges, so one declaring m = 40 with a
// handful is incomplete at once; a sparse schedule (no alignments) is checked
// on the addresses it names, not on K records (2^40 of them would not fit).
TEST(ScheduleChecker, ChecksWhatAScheduleCanCoverBeforeItsRecords) {
  Schedule aapc = make(AapcAlgorithm::alg4, 2);
  aapc.m = 40;
  EXPECT_EQ(error_of([&] { check_schedule(aapc); }),
            "schedule incomplete: an AAPC of d = 2 on K = 2^40 words a node (m = 40) needs K d / 2 = 1099511627776 "
            "exchanges, the schedule holds 4");
  Schedule sparse;
  sparse.algorithm = "custom";
  sparse.d = 1;
  sparse.n = 2;
  sparse.m = 40;
  sparse.pre = sparse.post = AlignmentKind::none;
  const std::uint64_t high = std::uint64_t{1} << 39;
  sparse.add(Exchange{0, high, high, 0});
  sparse.add(Exchange{1, 5, 5, 0});
  sparse.end_cycle();
  sparse.add(Exchange{0, high, high, 0});
  sparse.end_cycle();
  const ScheduleStats st = check_schedule(sparse);
  EXPECT_EQ(st.exchanges, 3u);
  EXPECT_EQ(st.max_span, 2u);  // address 2^39: cycles 0 and 1
  EXPECT_EQ(st.min_span, 1u);  // address 5: cycle 0
  EXPECT_EQ(st.max_in_transit, 2u);
  EXPECT_EQ(st.min_in_transit, 1u);
  sparse.add(Exchange{1, high, high, 0});
  sparse.add(Exchange{1, high, high, 0});  // the same address twice in one cycle
  sparse.end_cycle();
  EXPECT_NE(error_of([&] { check_schedule(sparse); }).find("cycle 2"), std::string::npos);
}

// Found by tests/fuzz (schedule): a number too large for a double is JSON's
// out_of_range, not parse_error, and escaped load_schedule, which `hcube run
// --schedule` does not catch: the program aborted.
TEST(ScheduleFile, ANumberTooLargeForADoubleIsAnError) {
  EXPECT_EQ(error_of([] { parse_schedule(R"({"format": "hcube-schedule/1", "d": 1e999, "cycles": []})", "f.json"); }),
            "f.json: not valid JSON: number overflow parsing '1e999'");
  EXPECT_EQ(error_of([] { parse_schedule(R"({"format": "hcube-schedule/1", "d": 2, )", "f.json"); }),
            "f.json: not valid JSON at byte 40");
}

// A number that is no unsigned integer is named as the file writes it, not
// as the double it parses to ('d' is 1e+26, 1.8446744073709552e+19).
TEST(ScheduleFile, NumbersAreNamedAsWritten) {
  const auto header = [](const std::string& d) {
    return error_of([&] { parse_schedule(R"({"format": "hcube-schedule/1", "d": )" + d + R"(, "cycles": []})", "f.json"); });
  };
  EXPECT_EQ(header("1e26"), "f.json: 'd' is 1e26, expected a non-negative integer");
  EXPECT_EQ(header("18446744073709551616"), "f.json: 'd' is 18446744073709551616, expected a non-negative integer");
  EXPECT_EQ(header("2.0"), "f.json: 'd' is 2.0, expected a non-negative integer");
  // The first exchange's address, written as a float.
  std::string text = to_json(make(AapcAlgorithm::alg4, 2)).dump();
  const std::size_t addr = text.find(R"("addr":)", text.find(R"("cycles")"));
  ASSERT_NE(addr, std::string::npos) << text;
  const std::size_t from = addr + 7, to = text.find_first_not_of("0123456789", from);
  ASSERT_EQ(text.substr(from, to - from), "1") << text;
  text.replace(from, to - from, "1.0E0");
  EXPECT_EQ(error_of([&] { parse_schedule(text, "f.json"); }),
            "f.json: cycle 0, entry 0: 'addr' is 1.0E0, expected a non-negative integer");
}

// A file is one JSON object: text after it (a second schedule appended, a
// corrupted tail) is an error, where the stream reader used to ignore it.
TEST(ScheduleFile, TextAfterTheObjectIsAnError) {
  const std::string good = to_json(make(AapcAlgorithm::alg4, 2)).dump();
  EXPECT_NO_THROW(parse_schedule(good + "\n  \n", "f.json"));
  EXPECT_EQ(error_of([&] { parse_schedule(good + "\ngarbage", "f.json"); }),
            fmt::format("f.json: not valid JSON at byte {}", good.size() + 2));
  EXPECT_EQ(error_of([&] { parse_schedule(good + good, "f.json"); }),
            fmt::format("f.json: not valid JSON at byte {}", good.size() + 1));
}

// Found by tests/fuzz (schedule): strings from the file were quoted as they
// were, so a "\n" in one split the one-line error message.
TEST(ScheduleFile, StringsFromTheFileAreQuotedOnOneLine) {
  EXPECT_EQ(error_of([] { parse_schedule(R"({"format": "hcube/1\n2", "d": 2, "cycles": []})", "f.json"); }),
            "f.json: format 'hcube/1\\n2' unknown: allowed hcube-schedule/1");
  EXPECT_EQ(error_of([] { parse_schedule(R"({"format": "hcube-schedule/1", "d\n": 2, "cycles": []})", "f.json"); })
                .rfind("f.json: unknown field 'd\\n' (a typo?)", 0),
            0u);
  EXPECT_EQ(error_of([] { parse_schedule(R"({"format": "hcube-schedule/1", "d": 2, "pre": "none\u0000", "cycles": []})", "f.json"); }),
            "f.json: 'pre': alignment 'none\\x00' unknown: allowed xor-align, concurrent, none");
  EXPECT_EQ(error_of([] { parse_schedule(R"({"format": "hcube-schedule/1", "d": 2, "port_model": "\u00e9", "cycles": []})", "f.json"); }),
            "f.json: 'port_model': port model '\\xc3\\xa9' unknown: allowed all, one");
}

TEST(ScheduleChecker, CatchesWrongDimensionsAndRepeats) {
  Schedule s = make(AapcAlgorithm::alg1, 3);
  Schedule bad;
  bad.d = 3;
  bad.n = 3;
  bad.m = 3;
  bad.add(direct_exchange(0, 2));  // address 2 (relative 010) must not cross dimension 0
  bad.end_cycle();
  EXPECT_EQ(error_of([&] { check_schedule(bad); }),
            "cycle 0, exchange 0 {dim 0, addr 2}: address 2 (relative address 2) must not cross dimension 0");
  Schedule twice;
  twice.d = twice.n = twice.m = 2;
  twice.add(direct_exchange(0, 1));
  twice.end_cycle();
  twice.add(direct_exchange(0, 1));
  twice.end_cycle();
  EXPECT_NE(error_of([&] { check_schedule(twice); }).find("crosses dimension 0 a second time"), std::string::npos);
}

TEST(AapcOptions, BadInputIsRejected) {
  EXPECT_EQ(error_of([] { make(AapcAlgorithm::alg4, 0); }), "AAPC dimension d = 0 out of range: allowed 1..32");
  EXPECT_EQ(error_of([] { make(AapcAlgorithm::alg4, 4, 3, 4); }), "d = 4 exceeds the memory dimensions m = 3: allowed d <= m");
  EXPECT_EQ(error_of([] { make(AapcAlgorithm::alg4, 4, 4, 3); }), "d = 4 exceeds the processor dimensions n = 3: allowed d <= n");
  EXPECT_EQ(error_of([] { parse_aapc_algorithm("5"); }), "algorithm '5' unknown: allowed 1, 2, 3, 4");
  EXPECT_THROW(parse_line_drawing("zigzag"), Error);
  EXPECT_THROW(widen_schedule(make(AapcAlgorithm::alg4, 3), 0), Error);
}

}  // namespace
}  // namespace hcube

namespace hcube {
namespace {

std::vector<std::string> rows_of(const Schedule& s, std::size_t from, std::size_t to) {
  std::vector<std::string> rows;
  for (std::size_t c = from; c < to; ++c) {
    std::string row;
    for (std::size_t e = 0; e < s.cycle_size(c); ++e) {
      const Exchange& x = s.cycle_begin(c)[e];
      row += fmt::format("{}{}:{:05b}", e ? " " : "", x.dim, x.addr);
    }
    rows.push_back(row);
  }
  return rows;
}

// Table 7's layout: for each address, the dimension it crosses in time steps
// 0..4 of the schedule s ('-': idle), compared row by row.
void expect_table7(const Schedule& s, const std::vector<std::pair<std::uint64_t, std::string>>& table7) {
  for (const auto& [addr, dims] : table7)
    for (std::size_t t = 0; t < 5; ++t) {
      std::string got = "-";
      for (std::size_t e = 0; e < s.cycle_size(t); ++e)
        if (s.cycle_begin(t)[e].addr == addr) got = std::to_string(s.cycle_begin(t)[e].dim);
      EXPECT_EQ(got, std::string(1, dims[t])) << fmt::format("address {:05b}, time step {}", addr, t);
    }
}

// Table 7 (d = 5, q = 4, type-2 scheduling), verbatim: for each address of the
// mixed block, the dimension it crosses in time steps 0..4 ('-': idle). The
// pair (00000, 11111) is one row: in aligned addresses 11111 is the member
// that crosses. The OCR text is legible; every row crosses its own 1-bits once
// and every column holds each dimension once, which checks the transcription.
TEST(PaperTables, Table7TypeTwoSchedule) {
  const std::vector<std::pair<std::uint64_t, std::string>> table7 = {
      {0b01111, "0123-"}, {0b11110, "123-4"}, {0b11101, "23-40"},
      {0b11011, "3-401"}, {0b10111, "-4012"}, {0b11111, "40123"},
  };
  const Schedule s = make(AapcAlgorithm::alg4, 5, 5, 5, LineDrawing::greedy);
  expect_table7(s, table7);
  // hcube's diagonal drawing of the same block, derived from sec. 3.5.3's
  // closed form (the paper's own type-1 table, Table 7's left half, is another
  // drawing: PaperTables.Table7TypeOneSchedule): member rotl(01111, r)
  // makes its e-th exchange in cycle r + e - o_e, the pair crosses t + 4 in cycle t.
  const std::vector<std::string> diagonal = {
      "0:11101 1:10111 2:11110 3:11011 4:11111", "0:11111 1:11011 2:01111 3:11101 4:10111",
      "0:01111 1:11111 2:10111 3:11110 4:11011", "0:10111 1:11110 2:11111 3:01111 4:11101",
      "0:11011 1:01111 2:11101 3:11111 4:11110",
  };
  EXPECT_EQ(rows_of(make(AapcAlgorithm::alg4, 5), 0, 5), diagonal);
}

// Table 7's left half (type 1), verbatim from the seed: line i in row i of the
// generating table, so member j crosses dimension (2i + j) mod 5 in step
// (i + j) mod 5. Its members are rotations of 10111, not hcube's 01111 order,
// and the rows are listed in the paper's order (member j = 10111 rotated by j).
// Every row crosses its own 1-bits once and every column holds each dimension
// once, which checks the transcription.
TEST(PaperTables, Table7TypeOneSchedule) {
  const std::vector<std::pair<std::uint64_t, std::string>> table7 = {
      {0b10111, "0241-"}, {0b01111, "-1302"}, {0b11110, "3-241"},
      {0b11101, "24-30"}, {0b11011, "130-4"}, {0b11111, "40123"},
  };
  const Schedule s = make(AapcAlgorithm::alg4, 5, 5, 5, LineDrawing::type1);
  expect_table7(s, table7);
  EXPECT_EQ(alg4_mixed_seed(5, 1, LineDrawing::type1), 0b10111u);
  // Where the paper's lines would give a member one dimension twice (d even,
  // q > d/2), its necklace is hcube's and the diagonal is drawn.
  EXPECT_EQ(alg4_mixed_seed(6, 1, LineDrawing::type1), low_mask(5));
  EXPECT_EQ(alg4_mixed_seed(6, 3, LineDrawing::type1), low_mask(3));  // 010101 repeats after two rotations
  EXPECT_EQ(alg4_mixed_seed(6, 4, LineDrawing::type1), 0b000101u);
}

// Table 6's local memory addresses in transit, counted by check_schedule from
// the schedule's exchanges. Algorithm 1 gives the paper's figures for every d
// and K. Algorithm 2 with the split pair order gives the paper's 2d in every
// cycle (the wrapping pairs' members move apart: one in the first steps, the
// other in the last); in Table 5's order those pairs are in transit from the
// first step to the last: 14 at d = 4, 18 at d = 5. Algorithm 3, whose head
// is Algorithm 2, then also stays at 2d, under the paper's 2 (d + K/2 mod d).
TEST(PaperTables, Table6AddressesInTransit) {
  for (unsigned d = 2; d <= 9; ++d)
    for (unsigned m : {d, d + 1, d + 3}) {
      SCOPED_TRACE(::testing::Message() << "d = " << d << ", m = " << m);
      const std::uint64_t half = bit(m - 1), rem = half % d;
      const ScheduleStats a1 = check_schedule(make(AapcAlgorithm::alg1, d, m));
      const AapcBounds paper1 = paper_bounds(AapcAlgorithm::alg1, d, m);
      EXPECT_EQ(a1.min_in_transit, paper1.min_in_transit);
      EXPECT_EQ(a1.max_in_transit, paper1.max_in_transit);
      // The table's formulas themselves, as printed (Alg. 1's fewest is the short last group's).
      EXPECT_EQ(paper1.max_in_transit, 2 * d);
      if (rem != 0) {
        EXPECT_EQ(paper1.min_in_transit, 2 * rem);
      }
      EXPECT_EQ(paper_bounds(AapcAlgorithm::alg3, d, m).max_in_transit, 2 * (d + rem));
      const AapcBounds paper2 = paper_bounds(AapcAlgorithm::alg2, d, m);
      EXPECT_EQ(paper2.min_in_transit, 2 * d);
      EXPECT_EQ(paper2.max_in_transit, 2 * d);
      for (AapcAlgorithm alg : {AapcAlgorithm::alg2, AapcAlgorithm::alg3}) {
        const ScheduleStats st = check_schedule(make(alg, d, m));
        EXPECT_EQ(st.min_in_transit, 2 * d) << "algorithm " << static_cast<int>(alg);
        EXPECT_EQ(st.max_in_transit, 2 * d) << "algorithm " << static_cast<int>(alg);
      }
    }
  const auto table5_order = [](unsigned d) {
    return check_schedule(make(AapcAlgorithm::alg2, d, 0, 0, LineDrawing::diagonal, PairOrder::table5));
  };
  EXPECT_EQ(table5_order(4).max_in_transit, 14u);
  EXPECT_EQ(table5_order(5).max_in_transit, 18u);
  EXPECT_EQ(table5_order(4).min_in_transit, 8u);
}

// Table 6's spans: Algorithm 2 keeps every address within d consecutive steps
// with the split pair order (the paper's K/2 counts a wrapping pair as one
// unit), and so Algorithm 3 (the paper's d + K/2 mod d); Table 5's order
// spreads a wrapping pair's member over the whole schedule.
TEST(PaperTables, Table6SpanOfAlgorithms2And3) {
  for (unsigned d = 1; d <= 9; ++d)
    for (unsigned m : {d, d + 1, d + 3}) {
      SCOPED_TRACE(::testing::Message() << "d = " << d << ", m = " << m);
      for (AapcAlgorithm alg : {AapcAlgorithm::alg2, AapcAlgorithm::alg3}) {
        const ScheduleStats st = check_schedule(make(alg, d, m));
        EXPECT_EQ(st.max_span, d);
        EXPECT_EQ(st.block_transfers, d);
        EXPECT_EQ(st.max_block_size, ceil_div(bit(m - 1), d));
      }
    }
  EXPECT_EQ(check_schedule(make(AapcAlgorithm::alg2, 4, 0, 0, LineDrawing::diagonal, PairOrder::table5)).max_span, 8u);
  EXPECT_EQ(check_schedule(make(AapcAlgorithm::alg2, 5, 0, 0, LineDrawing::diagonal, PairOrder::table5)).max_span, 16u);
}

// The necklace (by its smallest rotation) of each address a cycle moves.
std::set<std::uint64_t> necklaces_in(const Schedule& s, std::size_t c) {
  std::set<std::uint64_t> out;
  for (std::size_t e = 0; e < s.cycle_size(c); ++e) {
    std::uint64_t a = s.cycle_begin(c)[e].addr, least = a;
    for (unsigned r = 1; r < 5; ++r) least = std::min(least, rotate_left(a, r, 5));
    out.insert(least);
  }
  return out;
}

// Table 8 (blocking, d = 5), verbatim: block transfer r holds cycles r, r+5,
// r+10, r+15; the groups in each row are C(11111) with R(01111), R(00011) then
// R(00111), R(00101) then R(01011), and R(00001), at most 4 per row (Lemma 4:
// d blocks of ceil(K/2d) = 4). Table 9 (b = 3) labels the entries row by row,
// right to left, 3 per time step: hcube's wide schedule puts every entry in
// Table 9's time step, verbatim.
TEST(PaperTables, Tables8And9BlockingAndWideChannels) {
  const Schedule s = make(AapcAlgorithm::alg4, 5);
  const std::vector<std::vector<std::set<std::uint64_t>>> table8 = {
      {{0b01111, 0b11111}, {0b00011}, {0b00101}, {0b00001}},
      {{0b01111, 0b11111}, {0b00011}, {0b00101}},
      {{0b01111, 0b11111}, {0b00111}, {0b01011}},
      {{0b01111, 0b11111}, {0b00111}, {0b01011}},
      {{0b01111, 0b11111}, {0b00111}, {0b01011}},
  };
  for (std::size_t r = 0; r < 5; ++r) {
    std::vector<std::set<std::uint64_t>> row;
    for (std::size_t c = r; c < s.cycles(); c += 5) row.push_back(necklaces_in(s, c));
    EXPECT_EQ(row, table8[r]) << "block transfer " << r;
  }
  const Schedule blocked = block_schedule(s);
  ASSERT_EQ(blocked.cycles(), 5u);
  EXPECT_EQ(blocked.rules.channel_width, 4u);
  const std::size_t sizes[] = {20, 15, 15, 15, 15};  // words per block transfer, all channels
  for (std::size_t r = 0; r < 5; ++r) EXPECT_EQ(blocked.cycle_size(r), sizes[r]) << "block " << r;
  const Schedule wide = widen_schedule(s, 3);
  EXPECT_EQ(wide.cycles(), 6u);  // Table 9's time steps 0..5
  EXPECT_EQ(lemma5_cycles(5, 5, 3), 10u);
  EXPECT_EQ(check_schedule(wide).exchanges, 80u);
  // Table 9's Time column: entry (row r, group j) is cycle 5j + r.
  const int table9[5][4] = {{1, 0, 0, 0}, {2, 1, 1, -1}, {3, 2, 2, -1}, {4, 3, 3, -1}, {5, 4, 4, -1}};
  std::map<std::pair<unsigned, std::uint64_t>, std::size_t> step_of;  // (dim, addr) -> time step
  for (std::size_t t = 0; t < wide.cycles(); ++t)
    for (std::size_t e = 0; e < wide.cycle_size(t); ++e)
      step_of[{wide.cycle_begin(t)[e].dim, wide.cycle_begin(t)[e].addr}] = t;
  for (std::size_t c = 0; c < s.cycles(); ++c)
    for (std::size_t e = 0; e < s.cycle_size(c); ++e)
      EXPECT_EQ(static_cast<int>(step_of.at({s.cycle_begin(c)[e].dim, s.cycle_begin(c)[e].addr})), table9[c % 5][c / 5])
          << "cycle " << c;
  // Lemma 4's d + (K/2 mod d) = 6 block transfers of 3 for Algorithm 3 in
  // Table 5's pair order; the split order's span d gives d = 5 blocks of 4.
  const ScheduleStats alg3 =
      check_schedule(make(AapcAlgorithm::alg3, 5, 0, 0, LineDrawing::diagonal, PairOrder::table5));
  EXPECT_EQ(alg3.max_span, 6u);
  EXPECT_EQ(alg3.block_transfers, 6u);
  EXPECT_EQ(alg3.max_block_size, 3u);
  const ScheduleStats split3 = check_schedule(make(AapcAlgorithm::alg3, 5));
  EXPECT_EQ(split3.block_transfers, 5u);
  EXPECT_EQ(split3.max_block_size, 4u);
}

}  // namespace
}  // namespace hcube

namespace hcube {
namespace {

// Both line drawings are legal for every d and every number c of leftover
// pairs, not just the c that occur: every cycle has each dimension once, each
// necklace member crosses its d - c dimensions once, each pair all d.
TEST(Algorithm4, MixedBlockIsLegalForEveryDAndC) {
  for (unsigned d = 5; d <= 40; ++d)
    for (unsigned c = 1; c < d; ++c)
      for (LineDrawing lines : {LineDrawing::diagonal, LineDrawing::greedy, LineDrawing::type1}) {
        std::vector<std::uint64_t> pairs;  // two runs of ones: never a rotation of 0^c 1^q or its complement
        for (unsigned u = 0; u < c; ++u) pairs.push_back(rotate_left(0b101, u, d));
        const auto grid = alg4_mixed_block(pairs, d, lines);
        std::map<std::pair<std::uint64_t, unsigned>, int> crossings;
        for (unsigned t = 0; t < d; ++t)
          for (unsigned k = 0; k < d; ++k) ++crossings[{grid[t][k], k}];
        std::map<std::pair<std::uint64_t, unsigned>, int> expected;
        for (unsigned r = 0; r < d; ++r)
          for (unsigned e = 0; e < d; ++e) {
            // Each member crosses its own q one-bits: the necklace's, whichever it is.
            const std::uint64_t member = rotate_left(alg4_mixed_seed(d, c, lines), r, d);
            if (test_bit(member, e)) ++expected[{member, e}];
          }
        for (std::uint64_t x : pairs)
          for (unsigned k = 0; k < d; ++k) ++expected[{test_bit(x, k) ? x : x ^ low_mask(d), k}];
        ASSERT_EQ(crossings, expected) << "d = " << d << ", c = " << c << ", " << to_string(lines);
      }
}

}  // namespace
}  // namespace hcube
