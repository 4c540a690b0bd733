// The front end never crashes on bad input: thousands of mutations of samples/*.json and of random
// graphs (keys deleted or duplicated, values of another JSON type, extreme numbers, truncated
// text, random bytes, deep nesting, very long strings, invalid UTF-8, overflowing shapes, "nan"
// for ints, dangling names, ...) and a list of hand-made hostile documents. parse_graph must
// either accept a document or throw stax::UserError (GraphError is one) with a one-line message;
// any other exception fails the test, and a crash prints the document it died on.
//
// STAX_ROBUSTNESS_ROUNDS=N multiplies the number of mutations (default 1).
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <unistd.h>

#include "mutate.h"
#include "random_graph.h"
#include "stax/graph/frontend.h"
#include "stax/support/error.h"

namespace stax::robustness {
namespace {

// What is being parsed right now, for the crash handler (which may only call write()).
const Mutation* g_current = nullptr;

void write_str(const char* s, std::size_t n) {
  while (n > 0) {
    ssize_t w = ::write(2, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<std::size_t>(w);
  }
}

void on_crash(int sig) {
  const char head[] = "\nrobustness_test: crashed (signal) while parsing: ";
  write_str(head, sizeof head - 1);
  if (g_current != nullptr) {
    write_str(g_current->what.data(), g_current->what.size());
    const char doc[] = "\n--- document (first 4000 bytes) ---\n";
    write_str(doc, sizeof doc - 1);
    write_str(g_current->text.data(), std::min<std::size_t>(g_current->text.size(), 4000));
    write_str("\n", 1);
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_crash_handler() {
  static char alt_stack[1 << 16];
  stack_t ss{};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa{};
  sa.sa_handler = on_crash;
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL}) sigaction(sig, &sa, nullptr);
}

int rounds() {
  const char* env = std::getenv("STAX_ROBUSTNESS_ROUNDS");
  int n = env ? std::atoi(env) : 1;
  return n > 0 ? n : 1;
}

std::string printable(const std::string& s, std::size_t max = 3000) {
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < max; ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n' || (c >= 32 && c < 127)) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (s.size() > max) out += "... (" + std::to_string(s.size()) + " bytes)";
  return out;
}

// A one-line message has no line breaks and no other control characters but tab (which would
// also let a crafted name move the cursor or recolour the terminal).
bool has_control_char(const std::string& s) {
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 && u != '\t') return true;
  }
  return false;
}

struct Result {
  bool accepted = false;
  std::optional<std::string> failure;        // the front end misbehaved (wrong exception, ...)
  std::optional<std::string> dirty_message;  // rejected with a message that is not one clean line
};

Result check(const Mutation& m) {
  Result r;
  g_current = &m;
  try {
    graph::Graph g = graph::parse_graph(m.text);
    r.accepted = true;
    // An accepted graph must also survive what `staxc validate` and lowering do next.
    graph::Graph e = graph::expand_composites(g);
    (void)graph::format_signature(e);
  } catch (const GraphError& e) {
    // what() stops at a NUL byte: check the parts as stored too.
    std::string msg = std::string(e.what()) + " | " + e.message();
    if (r.accepted) r.failure = std::string("accepted, then threw GraphError after parsing: ") + e.what();
    else if (std::string(e.what()).empty()) r.failure = "empty error message";
    else if (has_control_char(msg)) r.dirty_message = printable(msg, 500);
  } catch (const UserError& e) {
    std::string msg = e.what();
    if (r.accepted) r.failure = std::string("accepted, then threw UserError after parsing: ") + msg;
    else if (msg.empty()) r.failure = "empty error message";
    else if (has_control_char(msg)) r.dirty_message = printable(msg, 500);
  } catch (const std::exception& e) {
    r.failure = std::string("threw a non-UserError exception: ") + e.what();
  } catch (...) {
    r.failure = "threw a non-std exception";
  }
  g_current = nullptr;
  return r;
}

// samples/*.json (sorted) and a few random graphs.
std::vector<std::pair<std::string, std::string>> seed_documents() {
  std::vector<std::pair<std::string, std::string>> docs;
  std::vector<std::filesystem::path> files;
  std::filesystem::path dir = std::filesystem::path(STAX_SOURCE_DIR) / "samples";
  if (std::filesystem::is_directory(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    docs.emplace_back(f.filename().string(), ss.str());
  }
  randgraph::RandomGraphOptions opt;
  opt.max_nodes = 8;
  opt.max_numel = 64;
  for (uint64_t seed = 0; seed < 40; ++seed) docs.emplace_back("rg_" + std::to_string(seed), randgraph::random_graph_json(seed, opt));
  return docs;
}

TEST(FrontEndRobustness, MutatedDocumentsNeverCrash) {
  install_crash_handler();
  auto docs = seed_documents();
  ASSERT_GE(docs.size(), 40u);
  int total = 0, accepted = 0, failures = 0;
  int n = rounds();
  for (std::size_t d = 0; d < docs.size(); ++d) {
    const auto& [name, text] = docs[d];
    // A file-based constant resolves relative to the working directory; skip documents that
    // the front end itself does not accept unmutated (none should exist).
    Mutation original{"unmutated " + name, text};
    Result base = check(original);
    EXPECT_TRUE(base.accepted && !base.failure) << name << " is not accepted as it is";
    Mutator mut(d * 7919 + 17);
    int per_kind = name.rfind("rg_", 0) == 0 ? 2 : 10;
    for (int r = 0; r < n * per_kind; ++r) {
      for (int k = 0; k < Mutator::kinds(); ++k) {
        Mutation m = mut.mutate_kind(k, text);
        m.what = name + ": " + m.what;
        Result res = check(m);
        ++total;
        accepted += res.accepted;
        if (res.failure && ++failures <= 30)
          ADD_FAILURE() << m.what << ": " << *res.failure << "\n--- document ---\n" << printable(m.text);
      }
    }
  }
  EXPECT_EQ(failures, 0);
  // Messages with control characters are ErrorMessagesAreOneCleanLine's business.
  // Most mutations break the graph; if nearly all were accepted the checks would be vacuous.
  EXPECT_LT(accepted, total / 2) << accepted << " of " << total << " mutations accepted";
  EXPECT_GE(total, 2000);
  std::printf("robustness: %d mutations, %d accepted, %d rejected cleanly\n", total, accepted, total - accepted - failures);
}

TEST(FrontEndRobustness, HostileDocuments) {
  install_crash_handler();
  // Documents graph-format.md rules out: they must be rejected, not just survived.
  const std::vector<std::string> must_reject = {
      "empty text", "whitespace", "a number", "null", "an array", "empty object", "NUL bytes",
      "100000 nested arrays", "100000 nested objects", "unclosed nesting", "name of 1 MB", "op of 1 MB",
      "constant fill of 2^40 elements",
      "constant data shorter than shape", "input of 2^62 elements times 4", "full of overflowing shape",
      "expand to an overflowing shape", "reshape with two -1", "reshape of a huge -1", "pad by int64 max",
      "select with int64 min index", "permute with repeated dims", "constant file outside",
      "constant file is a directory", "constant file empty name", "name with a NUL escape",
      "graph name a keyword", "version huge", "trailing garbage", "two documents", "comments", "single quotes",
      "1e999 as a literal", "int literal beyond int64", "int literal beyond int32 on int32",
      "float data beyond float32", "int data beyond int32", "uint64 in int64 data", "clamp bounds beyond int32",
      "full value beyond dtype", "var with 1e999 correction", "layer_norm huge normalized_shape", "value name with a newline", "op with a newline",
      "dtype with a carriage return", "unknown key with a newline", "format with a terminal escape"};
  for (const Mutation& m : hostile_documents()) {
    Result r = check(m);
    if (r.failure) ADD_FAILURE() << m.what << ": " << *r.failure << "\n--- document ---\n" << printable(m.text, 600);
    bool reject = std::find(must_reject.begin(), must_reject.end(), m.what) != must_reject.end();
    if (reject) {
      EXPECT_FALSE(r.accepted) << m.what << " was accepted\n" << printable(m.text, 600);
    }
  }
}

// graph-format.md: "a clear one-line error". A name, op, dtype or key holding a newline, a
// carriage return, a NUL or a terminal escape must not be echoed raw.
TEST(FrontEndRobustness, ErrorMessagesAreOneCleanLine) {
  install_crash_handler();
  std::vector<Mutation> docs;
  for (const Mutation& m : hostile_documents())
    if (m.what.find("with a") != std::string::npos || m.what == "name with a NUL escape") docs.push_back(m);
  // Escaped control characters in the first name of a random graph.
  std::string base = randgraph::random_graph_json(3);
  for (const char* ctl : {"\\n", "\\r", "\\u0000", "\\u001b[2J"}) {
    std::string t = base;
    std::size_t pos = t.find("\"name\":\"") + 8;
    t.insert(pos, ctl);
    docs.push_back({std::string("control character ") + ctl + " in the first name", t});
  }
  ASSERT_GE(docs.size(), 8u);
  for (const Mutation& m : docs) {
    Result r = check(m);
    EXPECT_FALSE(r.failure) << m.what << ": " << r.failure.value_or("");
    EXPECT_FALSE(r.accepted) << m.what << " was accepted";
    EXPECT_FALSE(r.dirty_message) << m.what << ": the message is not one clean line: " << r.dirty_message.value_or("");
  }
}

}  // namespace
}  // namespace stax::robustness
