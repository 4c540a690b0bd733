// randgraph_dump SEED [options]: prints the random graph of a seed (to reproduce a failure, or
// to feed `staxc check` from a script). Options mirror RandomGraphOptions:
//   --max-nodes N  --max-numel N  --max-rank N  --max-dim N  --max-inputs N
//   --dtypes float32,int64,...  --only op,op,...  --finite  --zero-divisors  --no-int-division
//   --no-FAMILY (elementwise reductions scans views cat_pad creation matmul composites conv
//   pooling indexing)
//   -o FILE (default: stdout)
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "random_graph.h"

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

int usage() {
  std::cerr << "usage: randgraph_dump SEED [--max-nodes N] [--max-numel N] [--max-rank N] [--max-dim N]\n"
               "       [--max-inputs N] [--dtypes a,b] [--only op,op] [--finite] [--zero-divisors]\n"
               "       [--no-int-division] [--no-FAMILY] [-o FILE]\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  char* end = nullptr;
  uint64_t seed = std::strtoull(argv[1], &end, 10);
  if (end == argv[1] || *end != '\0') return usage();
  stax::randgraph::RandomGraphOptions opt;
  std::string out_file;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "randgraph_dump: " << a << " needs a value\n";
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "--max-nodes") opt.max_nodes = std::atoi(value().c_str());
    else if (a == "--max-numel") opt.max_numel = std::atoll(value().c_str());
    else if (a == "--max-rank") opt.max_rank = std::atoi(value().c_str());
    else if (a == "--max-dim") opt.max_dim = std::atoi(value().c_str());
    else if (a == "--max-inputs") opt.max_inputs = std::atoi(value().c_str());
    else if (a == "--only") opt.only_ops = split(value());
    else if (a == "--finite") opt.nonfinite = false;
    else if (a == "--zero-divisors") opt.zero_divisors = true;
    else if (a == "--no-int-division") opt.int_division = false;
    else if (a == "--no-elementwise") opt.elementwise = false;
    else if (a == "--no-reductions") opt.reductions = false;
    else if (a == "--no-scans") opt.scans = false;
    else if (a == "--no-views") opt.views = false;
    else if (a == "--no-cat_pad") opt.cat_pad = false;
    else if (a == "--no-creation") opt.creation = false;
    else if (a == "--no-matmul") opt.matmul = false;
    else if (a == "--no-composites") opt.composites = false;
    else if (a == "--no-conv") opt.conv = false;
    else if (a == "--no-pooling") opt.pooling = false;
    else if (a == "--no-indexing") opt.indexing = false;
    else if (a == "-o") out_file = value();
    else if (a == "--dtypes") {
      opt.dtypes.clear();
      for (const std::string& d : split(value())) {
        auto dt = stax::parse_dtype(d);
        if (!dt) {
          std::cerr << "randgraph_dump: unknown dtype '" << d << "'\n";
          return 1;
        }
        opt.dtypes.push_back(*dt);
      }
    } else {
      return usage();
    }
  }
  std::string json;
  try {
    json = stax::randgraph::random_graph_json(seed, opt);
  } catch (const std::exception& e) {
    std::cerr << "randgraph_dump: " << e.what() << "\n";
    return 1;
  }
  if (out_file.empty()) {
    std::cout << json;
    return 0;
  }
  std::ofstream f(out_file, std::ios::binary);
  f << json;
  if (!f) {
    std::cerr << "randgraph_dump: cannot write " << out_file << "\n";
    return 1;
  }
  return 0;
}
