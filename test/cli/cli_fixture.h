// A scratch folder per test and a way to run the built staxc in it.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "run_process.h"

namespace stax::testing {

class StaxcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(STAX_BINARY_DIR) / "test-tmp" /
           (std::string("cli-") + info->test_suite_name() + "-" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) std::filesystem::remove_all(dir_);
  }

  ProcessResult staxc(const std::vector<std::string>& args) {
    return run_process(STAXC_PATH, args, dir_ / ("run" + std::to_string(runs_++)));
  }
  static std::string data(const std::string& name) { return std::string(STAX_CLI_DATA) + "/" + name; }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
  int runs_ = 0;
};

// stderr is exactly one line "staxc: error: <...>" that contains `fragment`.
inline ::testing::AssertionResult is_error_line(const std::string& err, const std::string& fragment) {
  if (err.rfind("staxc: error: ", 0) != 0) return ::testing::AssertionFailure() << "stderr: '" << err << "'";
  if (err.empty() || err.back() != '\n' || err.find('\n') != err.size() - 1)
    return ::testing::AssertionFailure() << "not one line: '" << err << "'";
  if (err.find(fragment) == std::string::npos)
    return ::testing::AssertionFailure() << "'" << fragment << "' not in '" << err << "'";
  return ::testing::AssertionSuccess();
}

}  // namespace stax::testing
