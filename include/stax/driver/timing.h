// --time-passes: the wall time and peak memory of each stage of a compilation, wrapped around
// the stages from outside (the pipeline in compile.cpp reads as before), reported as a table
// like LLVM's -ftime-report.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace stax::driver {

struct PassTime {
  std::string name;
  double seconds = 0;      // wall time
  double cpu_seconds = 0;  // the process's CPU time (user + system) during the pass
  // The process's peak resident set (VmHWM) during the pass: the high-water mark is reset
  // before the pass where Linux allows it (/proc/self/clear_refs), so this is the pass's own
  // peak; otherwise the peak since the process started.
  std::uint64_t peak_bytes = 0;
};

class PassTimer {
 public:
  // Runs `pass` and records its time and peak memory under `name`.
  template <class F>
  decltype(auto) run(std::string name, F&& pass) {
    Start start = begin();
    struct Finish {
      PassTimer* timer;
      std::string name;
      Start start;
      ~Finish() { timer->end(std::move(name), start); }
    } finish{this, std::move(name), start};
    return std::forward<F>(pass)();
  }

  const std::vector<PassTime>& passes() const { return passes_; }
  // Whether the peak of each pass is its own (the high-water mark could be reset).
  bool peaks_per_pass() const { return resettable_; }
  // The table: one line per pass (CPU and wall seconds, share of the wall total, peak memory,
  // name), then the total.
  std::string report(const std::string& title) const;

 private:
  struct Start {
    std::chrono::steady_clock::time_point wall;
    double cpu = 0;
  };
  Start begin();
  void end(std::string name, Start start);

  std::vector<PassTime> passes_;
  bool resettable_ = true;
};

// Runs `pass` through `timer`, or directly when there is none.
template <class F>
decltype(auto) timed(PassTimer* timer, std::string name, F&& pass) {
  if (timer == nullptr) return std::forward<F>(pass)();
  return timer->run(std::move(name), std::forward<F>(pass));
}

// The process's peak resident set so far (VmHWM of /proc/self/status; getrusage otherwise).
std::uint64_t peak_resident_bytes();

}  // namespace stax::driver
